// A gzip body is charged against the in-flight budget for what it costs once
// inflated (README "Overload and slow senders"), not for its compressed size.
// The decode queue here is roomy, so it never refuses: every refusal must come
// from the budget, and the budget holds every body charged at its compressed
// size (plus its rows), so only the inflated charge can fill it.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { Readable } from 'node:stream'
import { Agent, request } from 'undici'
import { startTestLookout } from '../helpers/lookout.ts'
import { until } from '../helpers/until.ts'

const REQUESTS = 100
const EVENTS = 100
// Random text barely compresses, so a body's real cost (inflated, then rows) stays close to a few times its size.
const plain = Array.from({ length: REQUESTS }, (_, i) => JSON.stringify({ events: Array.from({ length: EVENTS }, (_, j) => ({ message: `gz ${i}.${j} ${randomBytes(750).toString('base64')}`, severity: 'INFO' })) }))
const bodies = plain.map((p) => gzipSync(p))
const plainBytes = Buffer.byteLength(plain[0] as string)
const gzBytes = Math.max(...bodies.map((b) => b.byteLength))
// Admission charges the body, ten times it inflated (the estimate) and rows of twice that
// (ingest/service.ts `admit`): 31 times the compressed size. Six times it for every request
// at once is room for their compressed charges (3 times) and for their real cost once decoded,
// so only the inflated estimate can fill the budget.
const budget = 6 * gzBytes * REQUESTS
const lk = await startTestLookout({
  env: { LOOKOUT_WORKERS: '1', LOOKOUT_DECODE_QUEUE: '100000', LOOKOUT_MAX_INFLIGHT_BYTES: String(budget) },
})
t.teardown(() => lk.stop())
const agent = new Agent({ connections: null, pipelining: 0, connectTimeout: 60_000, headersTimeout: 120_000, bodyTimeout: 120_000 })
t.teardown(() => agent.close())

t.test('the admission charge of a gzip body counts its inflated size', async (t) => {
  const ingest = lk.lookout.ingest
  if (ingest === null) throw new Error('no api role')
  t.comment(`one body: ${plainBytes} bytes, ${gzBytes} gzip; budget ${budget} bytes`)
  t.equal(ingest.admit(plainBytes, false), 3 * plainBytes, 'plain: the body and its rows')
  t.ok(ingest.admit(gzBytes, true) >= gzBytes + 10 * gzBytes, `gzip: at least the body and ten times it inflated (${ingest.admit(gzBytes, true)})`)
})

t.test(`${REQUESTS} concurrent gzip bodies: refused by the in-flight budget, never by the roomy queue`, async (t) => {
  const rid = await lk.resource('gzip-charge')
  const url = `${lk.url}/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const headers = { authorization: `Bearer ${lk.token}`, 'content-type': 'application/json', 'content-encoding': 'gzip' }
  // Every body but its last byte goes out first; the last bytes then go together, so the bodies
  // complete at once and are charged before the one decode worker gets through many of them
  // (sent unheld, a slow machine could let each decode finish before the next body arrived,
  // and nothing was refused: CI, 2026-11-28).
  let release!: () => void
  const gate = new Promise<void>((resolve) => { release = resolve })
  let held = 0
  async function* lastByteHeld(body: Buffer): AsyncGenerator<Buffer> {
    yield body.subarray(0, body.byteLength - 1)
    held++
    await gate
    yield body.subarray(body.byteLength - 1)
  }
  // The route asks ingest.admit before reading a body, after authentication (onRequest): each
  // such call is a request waiting for its body. Counted on the real service, which still decides.
  const ingest = lk.lookout.ingest
  if (ingest === null) throw new Error('no api role')
  const admit = ingest.admit.bind(ingest)
  let admitted = 0
  ingest.admit = (received: number, gzip: boolean) => {
    admitted++
    return admit(received, gzip)
  }
  t.teardown(() => { ingest.admit = admit })
  const pending = bodies.map((body) => request(url, { method: 'POST', headers: { ...headers, 'content-length': String(body.byteLength) }, body: Readable.from(lastByteHeld(body)), dispatcher: agent })
    .then(async (res) => ({ status: res.statusCode, retryAfter: res.headers['retry-after'], body: await res.body.text() })))
  await until('every body sent but its last byte, every request waiting for it', async () => ({ held, admitted }), (v) => v.held === REQUESTS && v.admitted === REQUESTS, 30_000)
  t.equal(held, REQUESTS, 'every body sent but its last byte')
  t.equal(admitted, REQUESTS, 'every request authenticated and waiting for its body')
  release()
  const sent = await Promise.all(pending)
  const statuses: Record<string, number> = {}
  for (const s of sent) statuses[s.status] = (statuses[s.status] ?? 0) + 1
  t.comment(`statuses: ${JSON.stringify(statuses)}`)
  t.same(Object.keys(statuses).filter((s) => s !== '200' && s !== '429'), [], 'only 200 or 429 (cloud)')
  const refused = sent.filter((s) => s.status === 429)
  t.ok(refused.length > 0, 'the inflated charges filled the budget')
  t.same(refused.filter((s) => !/LOOKOUT_INGEST_OVERLOADED/.test(s.body) || !/bytes in flight/.test(s.body)).map((s) => s.body), [], 'every refusal is the in-flight budget\'s')
  t.ok(refused.every((s) => Number(s.retryAfter) > 0), 'with Retry-After')
  t.ok(sent.some((s) => s.status === 200), 'and some got in')
})
