// A term that is one ASCII word is matched by the text indexes' answer alone (query/sql.ts,
// termCondition): the word among a value's words is the term within the value. Against the
// full rule (whole words, and the term as a case-insensitive substring) on awkward lines.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { randomUUID } from 'node:crypto'
import { migrateLogStore, openLogStore, type QueryParams } from '../../ingest/index.ts'
import { filterConditions, parseTextQuery } from '../../query/internal.ts'
import { objectRowLine } from '../helpers/object-row.ts'

const dir = mkdtempSync(join(tmpdir(), 'lookout-word-term-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
const store = openLogStore({ path: dir })
t.teardown(() => store.close())
await migrateLogStore(store, { retentionDays: 7 })

const ws = randomUUID()
const rid = randomUUID()
const ns = BigInt(Date.now()) * 1_000_000n
const lines: { message: string; attributes?: Record<string, string> }[] = [
  { message: 'connection REFUSED by peer' },
  { message: 'refused;retrying' },
  { message: 'unrefused' },
  { message: 'refus' },
  { message: 'Ärger: refused' },
  { message: 'nothing here', attributes: { reason: 'Refused' } },
  { message: 'nothing here', attributes: { reason: 'unrefused', other: 'x' } },
  { message: 'db-3 down' },
  { message: 'db 3 down' },
  { message: 'port 5432 refused' },
]
let body = ''
lines.forEach((l, i) => {
  body += objectRowLine({ workspaceId: ws, resourceId: rid, receivedNs: ns, timestampNs: ns + BigInt(i), batchId: 'w', eventId: `w-${i}`, message: l.message, attributes: l.attributes })
})
await store.insertJsonRows('logs', Buffer.from(body), 'word-term')

/** The event ids a search's conditions select. */
async function matching(q: string): Promise<{ ids: string[]; sql: string }> {
  const params: QueryParams = {}
  const where = filterConditions({ workspaceId: ws, resourceIds: [rid], startNs: null, endNs: null, minSeverity: null, traceId: null, text: parseTextQuery(q) }, params).join(' AND ')
  const r = await store.query<{ event_id: string }>(`SELECT event_id FROM ${store.database}.logs WHERE ${where} ORDER BY event_id`, params)
  return { ids: r.rows.map((x) => x.event_id), sql: where }
}

/** The full rule, written out: every word of the term among the value's words, and the term in it. */
async function fullRule(text: string, tokens: string[]): Promise<string[]> {
  const r = await store.query<{ event_id: string }>(
    `SELECT event_id FROM ${store.database}.logs WHERE workspace_id = {ws:UUID} AND resource_id = {rid:UUID}
     AND ((hasAllTokens(lower(message), {t:Array(String)}) AND positionCaseInsensitiveUTF8(message, {p:String}) > 0)
       OR arrayExists(v -> hasAllTokens(lower(v), {t:Array(String)}) AND positionCaseInsensitiveUTF8(v, {p:String}) > 0, mapValues(attributes)))
     ORDER BY event_id`, { ws, rid, t: tokens, p: text })
  return r.rows.map((x) => x.event_id)
}

t.test('one word: the index alone, the same lines as the full rule', async (t) => {
  for (const [q, token] of [['refused', 'refused'], ['Refused', 'refused'], ['REFUSED', 'refused'], ['5432', '5432'], ['refus', 'refus']] as const) {
    const got = await matching(q)
    t.notMatch(got.sql, /positionCaseInsensitiveUTF8/, `${q}: no substring check`)
    t.same(got.ids, await fullRule(q, [token]), q)
  }
  t.same((await matching('refused')).ids, ['w-0', 'w-1', 'w-4', 'w-5', 'w-9'], 'the word, in any case, in a message or an attribute value')
})

t.test('anything else keeps the substring check', async (t) => {
  for (const q of ['db-3', '"db 3"', 'Ärger']) {
    const got = await matching(q)
    t.match(got.sql, /positionCaseInsensitiveUTF8/, `${q}: checked as a substring`)
  }
  t.same((await matching('db-3')).ids, ['w-7'])
  t.same((await matching('"db 3"')).ids, ['w-8'])
})
