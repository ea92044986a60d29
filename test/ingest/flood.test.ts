// Overload is always retryable: a flood far past a small decode queue and
// in-flight budget gets only 200 or 429 on the cloud route (never a 500 a
// sender would not retry), every refusal carries Retry-After, and every event
// of every 200 is stored exactly once (looked for through the redelivery
// window). The same with gzip bodies; that they are charged for their
// inflated size is test/ingest/gzip-charge.test.ts's.
import t, { type Test } from 'tap'
import { gzipSync } from 'node:zlib'
import { Agent, request } from 'undici'
import { startTestLookout } from '../helpers/lookout.ts'
import { settledRows } from '../helpers/stored-once.ts'

const MiB = 1024 * 1024
const lk = await startTestLookout({
  env: { LOOKOUT_WORKERS: '1', LOOKOUT_DECODE_QUEUE: '8', LOOKOUT_MAX_INFLIGHT_BYTES: String(1 * MiB) },
})
t.teardown(() => lk.stop())
// Every request on its own connection, all at once: no client-side queue smooths the flood.
const agent = new Agent({ connections: null, pipelining: 0, connectTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 })
t.teardown(() => agent.close())

interface Sent { status: number; retryAfter: string | null; body: string; messages: string[] }

async function flood(rid: string, requests: number, events: number, gzip: boolean, tag: string): Promise<Sent[]> {
  const url = `${lk.url}/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const sends: Promise<Sent>[] = []
  for (let i = 0; i < requests; i++) {
    const messages = Array.from({ length: events }, (_, j) => `${tag} ${i}.${j} ` + (gzip ? 'x'.repeat(2000) : ''))
    const json = JSON.stringify({ events: messages.map((message) => ({ message, severity: 'INFO' })) })
    const body = gzip ? gzipSync(json) : json
    const headers: Record<string, string> = { authorization: `Bearer ${lk.token}`, 'content-type': 'application/json' }
    if (gzip) headers['content-encoding'] = 'gzip'
    sends.push(request(url, { method: 'POST', headers, body, dispatcher: agent }).then(async (res) => ({
      status: res.statusCode,
      retryAfter: (res.headers['retry-after'] as string | undefined) ?? null,
      body: await res.body.text(),
      messages,
    }), (err: Error) => ({ status: -1, retryAfter: null, body: String(err.message), messages })))
  }
  return await Promise.all(sends)
}

async function check(t: Test, rid: string, sent: Sent[]): Promise<void> {
  const statuses = new Map<number, number>()
  for (const s of sent) statuses.set(s.status, (statuses.get(s.status) ?? 0) + 1)
  t.comment(`statuses: ${JSON.stringify(Object.fromEntries(statuses))}`)
  const failed = [...new Set(sent.filter((s) => s.status === -1).map((s) => s.body))]
  // The client's errors go in the message: a failure then says what the sender saw (tap's reporter hides comments).
  t.same([...statuses.keys()].filter((s) => s !== 200 && s !== 429), [], `only 200 or 429 (the cloud contract's overload status)${failed.length > 0 ? `; client errors: ${failed.join('; ')}` : ''}`)
  const refused = sent.filter((s) => s.status === 429)
  t.ok(refused.length > 0, 'the flood was really past capacity')
  t.ok(sent.some((s) => s.status === 200), 'and some got in')
  t.ok(refused.every((s) => s.retryAfter !== null && Number(s.retryAfter) > 0), 'every refusal carries Retry-After')
  t.ok(refused.every((s) => /LOOKOUT_(INGEST_)?OVERLOADED/.test(s.body)), 'with the overload code')
  const acked = sent.filter((s) => s.status === 200).flatMap((s) => s.messages)
  const rows = await settledRows(lk, rid, acked.length, () => lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, { events: [{ message: 'sentinel' }] }))
  const stored = new Map<string, number>()
  for (const r of rows) stored.set(r.message as string, (stored.get(r.message as string) ?? 0) + 1)
  t.equal(rows.length, acked.length, `stored ${rows.length} rows for ${acked.length} acknowledged events`)
  t.ok(acked.every((m) => stored.get(m) === 1), 'every acknowledged event stored exactly once')
  const ackedSet = new Set(acked)
  t.equal([...stored.keys()].filter((m) => !ackedSet.has(m)).length, 0, 'nothing refused was stored')
}

t.test('2,000 concurrent JSON batches of 20 events against a queue of 8 and 1 MiB in flight', async (t) => {
  const rid = await lk.resource('flood')
  await check(t, rid, await flood(rid, 2000, 20, false, 'flood'))
})

t.test('the same flood with gzip bodies inflating 20:1', async (t) => {
  const rid = await lk.resource('flood-gzip')
  const sent = await flood(rid, 300, 50, true, 'gz')
  const one = sent[0] as Sent
  t.comment(`each body: ${gzipSync(JSON.stringify({ events: one.messages.map((message) => ({ message, severity: 'INFO' })) })).byteLength} bytes gzip`)
  await check(t, rid, sent)
})
