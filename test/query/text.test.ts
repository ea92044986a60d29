// The q/text language: parsing, and the two evaluations of it (ClickHouse SQL
// for search, JavaScript for the live tail) agreeing on the same rows, on a
// real embedded engine with the real schema.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateLogStore, openLogStore } from '../../ingest/index.ts'
import { filterConditions, matchesAttrs, matchesText, parseTextQuery, TextSyntaxError, tokensOf, windowQuery, type AttrMatch, type LogFilter } from '../../query/internal.ts'

// The engine and its rows come first, before any subtest is queued: once teardown is
// registered, tap ends the file when it goes idle, even while top-level code awaits.
const dir = mkdtempSync(join(tmpdir(), 'lookout-text-'))
const store = openLogStore({ path: dir })
await migrateLogStore(store, { retentionDays: 7 })
t.teardown(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

// Recent times: older rows would be dropped by the table's TTL under the test's feet.
const BASE_NS = BigInt(Date.now() - 60_000) * 1_000_000n
const WS = '11111111-1111-4111-8111-111111111111'
const RID = '22222222-2222-4222-8222-222222222222'
const rows: { message: string; attributes: Record<string, string> }[] = [
  { message: 'Connection refused to db-1:5432', attributes: {} },
  { message: 'connection reset by peer', attributes: { peer: '10.0.0.7' } },
  { message: 'timeout while refusing', attributes: {} },
  { message: 'user Alice logged in', attributes: { user: 'alice-42' } },
  { message: 'payment failed', attributes: { reason: 'Card Declined', code: 'E_CARD' } },
  { message: "'; DROP TABLE logs; --", attributes: {} },
  { message: '100% done (phase two)', attributes: { phase: 'two' } },
  { message: 'ÉCHEC de connexion', attributes: { lang: 'fr' } },
  { message: 'GET /api/v1/orders/42 200', attributes: { 'http.route': '/api/v1/orders/{id}' } },
  { message: 'nothing to see', attributes: { note: 'connection refused earlier' } },
  { message: 'Größe überschritten: 10MB', attributes: {} },
]
const queries = [
  'connection', 'refused', 'REFUSED', 'refus', '"connection refused"', 'connection refused', '"refused to"', 'alice', 'alice-42', 'alice-4',
  'declined', '"card declined"', 'e_card', 'card e_card', "'; DROP TABLE logs; --", '--', '100%', '(phase', 'two', 'échec', 'ÉCHEC', '10.0.0.7',
  '/api/v1/orders/42', 'orders/{id}', '{id}', 'peer 10.0.0.7', 'nothing connection', '"refused earlier"', 'x', '42', 'gr', 'größe', 'GRÖSSE', 'ÜBERSCHRITTEN', '10mb',
  // Issue 34: exclusions and OR groups.
  '-refused', 'connection -refused', 'refused OR declined', '"card declined" OR alice', '-"connection refused"', 'nothing OR x -connection',
  'a OR b OR 42', '-größe', '-- -x',
]
await store.insertJsonRows('logs', Buffer.from(rows.map((r, i) => JSON.stringify({
  workspace_id: WS, resource_id: RID, timestamp: (BASE_NS + BigInt(i)).toString(), received_at: BASE_NS.toString(), observed_timestamp: 0,
  event_id: `e${i}`, message: r.message, attributes: r.attributes, severity_number: 9, severity_text: 'INFO',
})).join('\n') + '\n'), 'text-test')

t.test('parsing', async (t) => {
  t.same(parseTextQuery('  '), null)
  t.same(parseTextQuery(''), null)
  t.same(parseTextQuery('Disk FULL')?.terms, [{ text: 'Disk', tokens: ['disk'] }, { text: 'FULL', tokens: ['full'] }])
  t.same(parseTextQuery('"connection refused" db')?.terms.map((x) => x.text), ['connection refused', 'db'])
  t.same(parseTextQuery('"unclosed phrase here')?.terms.map((x) => x.text), ['unclosed phrase here'])
  t.same(parseTextQuery('a"b c')?.terms.map((x) => x.text), ['a"b', 'c'], 'a quote inside a word is a character')
  t.same(parseTextQuery('x x X "x"')?.terms.length, 1, 'repeated terms count once')
  t.same(parseTextQuery('""')?.terms, undefined)
  t.same(parseTextQuery('user-42')?.terms[0]?.tokens, ['user', '42'])
  t.same(parseTextQuery('--')?.terms[0]?.tokens, [], 'no words: a substring search')
  t.same(parseTextQuery('a -b "c d" OR e -"f g"'), {
    terms: [{ text: 'a', tokens: ['a'] }],
    anyOf: [[{ text: 'c d', tokens: ['c', 'd'] }, { text: 'e', tokens: ['e'] }]],
    not: [{ text: 'b', tokens: ['b'] }, { text: 'f g', tokens: ['f', 'g'] }],
  }, 'words, exclusions, an OR group')
  t.same(parseTextQuery('-x')?.not.map((x) => x.text), ['x'], 'only an exclusion is a query')
  t.same(parseTextQuery('-- -')?.terms.map((x) => x.text), ['--', '-'], 'a dash not before a word is text')
  t.same(parseTextQuery('or Or')?.terms.map((x) => x.text), ['or'], 'only OR in capitals is the operator')
  for (const bad of ['level:error', 'x*', '/a.b+/', 'OR', 'a OR OR b', '-a OR b', 'AND', 'NOT x']) t.throws(() => parseTextQuery(bad), TextSyntaxError, bad)
  for (const ok of ['"level:error"', 'db-1:5432', '10:30', '/api/v1/', '"x*"']) t.doesNotThrow(() => parseTextQuery(ok), ok)
  t.same(tokensOf('Größe 10ms,ERR_x ÉCHEC'), ['größe', '10ms', 'err', 'x', 'Échec'], 'words as splitByNonAlpha on lower() makes them')
  t.same(parseTextQuery('Größe échec')?.terms.map((x) => x.tokens), [[], []], 'words with other letters are substring matches')
})

t.test('user text never enters the SQL text', async (t) => {
  const nasty = ["';", 'DROP_TABLE_marker', '{ws:UUID}', "\\'", '`x`', '"phrase with \' quote"', '}UNION_marker{']
  const f: LogFilter = {
    workspaceId: '00000000-0000-4000-8000-000000000000', resourceIds: null, startNs: null, endNs: null, minSeverity: null,
    text: parseTextQuery(nasty.join(' ')), traceId: 'a'.repeat(32),
  }
  const q = windowQuery('lookout', f, { loNs: 1n, hiNs: 2n, after: null }, 10)
  t.notOk(q.sql.includes("'"), 'no string literal at all in the SQL')
  t.notOk(q.sql.includes('marker'), 'no term in the SQL')
  t.notOk(q.sql.includes('aaaa'), 'no trace id in the SQL')
  const values = Object.values(q.params).flat()
  for (const term of f.text?.terms ?? []) t.ok(values.includes(term.text), `${term.text} travels as a parameter`)
})

t.test('the SQL and the tail agree on every query', async (t) => {
  for (const q of queries) {
    const text = parseTextQuery(q)
    const f: LogFilter = { workspaceId: WS, resourceIds: [RID], startNs: null, endNs: null, minSeverity: null, text, traceId: null }
    const params: Record<string, unknown> = {}
    const where = filterConditions(f, params).join(' AND ')
    const r = await store.query<{ event_id: string }>(`SELECT event_id FROM ${store.database}.logs WHERE ${where} ORDER BY event_id`, params)
    const sql = r.rows.map((x) => x.event_id)
    const js = rows.flatMap((row, i) => (text === null || matchesText(text, row.message, row.attributes) ? [`e${i}`] : [])).sort()
    t.same(sql, js, `q=${q} → ${JSON.stringify(js)}`)
  }
})

t.test('the SQL and the tail agree on attribute filters', async (t) => {
  const cases: AttrMatch[][] = [
    [{ scope: 'attr', key: 'user', value: 'alice-42', negate: false }],
    [{ scope: 'attr', key: 'lang', value: 'fr', negate: true }],
    [{ scope: 'attr', key: 'nope', value: 'x', negate: true }],
    [{ scope: 'attr', key: 'constructor', value: 'x', negate: false }],
    [{ scope: 'attr', key: 'reason', value: 'card declined', negate: false }],
    [{ scope: 'resource', key: 'service.name', value: 'x', negate: true }, { scope: 'attr', key: 'phase', value: 'two', negate: false }],
  ]
  for (const attrs of cases) {
    const f: LogFilter = { workspaceId: WS, resourceIds: [RID], startNs: null, endNs: null, minSeverity: null, text: null, traceId: null, attrs }
    const params: Record<string, unknown> = {}
    const r = await store.query<{ event_id: string }>(`SELECT event_id FROM ${store.database}.logs WHERE ${filterConditions(f, params).join(' AND ')} ORDER BY event_id`, params)
    const js = rows.flatMap((row, i) => (matchesAttrs(attrs, row.attributes as Record<string, string>, {}) ? [`e${i}`] : [])).sort()
    t.same(r.rows.map((x) => x.event_id), js, `${JSON.stringify(attrs)} → ${JSON.stringify(js)}`)
  }
})

t.test('the expected matches', async (t) => {
  const ids = (q: string) => {
    const text = parseTextQuery(q)
    return rows.flatMap((row, i) => (text !== null && matchesText(text, row.message, row.attributes) ? [i] : []))
  }
  t.same(ids('refused'), [0, 9], 'message or attribute value')
  t.same(ids('refus'), [], 'whole words only')
  t.same(ids('"connection refused"'), [0, 9])
  t.same(ids('connection refused'), [0, 9])
  t.same(ids('alice-4'), [])
  t.same(ids('échec'), [7], 'case-insensitive beyond ASCII')
  t.same(ids('orders/{id}'), [8])
  t.same(ids('peer 10.0.0.7'), [1], 'terms may match different fields')
  t.same(ids('connection -refused'), [1], 'an exclusion')
  t.same(ids('alice OR declined'), [3, 4], 'either')
})
