// Bounded in-flight bytes: past the budget the cloud routes answer 429 and the
// desktop route 503, both with Retry-After; what was acknowledged is stored.
import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'
import { settledRows } from '../helpers/stored-once.ts'

const lk = await startTestLookout({ env: { LOOKOUT_MAX_INFLIGHT_BYTES: String(1024 * 1024) } })
t.teardown(() => lk.stop())
const rid = await lk.resource('pressure')
const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
// Stamped events: identical bodies are then one request retried (README "Event identity").
const stamp = new Date(Date.now() - 60_000).toISOString()
const body = { events: Array.from({ length: 1000 }, (_, i) => ({ message: `pressure ${i} ` + 'p'.repeat(300), timestamp: stamp })) }

t.test('over the in-flight budget: 429 with Retry-After, and the accepted ones are stored', async (t) => {
  const results = await Promise.all(Array.from({ length: 12 }, () => lk.req('POST', path, body)))
  const codes = results.map((r) => r.status)
  const refused = results.filter((r) => r.status === 429)
  t.ok(refused.length > 0, `some requests refused (${codes.join(',')})`)
  t.ok(codes.every((c) => c === 200 || c === 429), 'only 200 or 429')
  for (const r of refused) t.equal(r.headers.get('retry-after'), '1')
  const accepted = results.filter((r) => r.status === 200).length
  t.ok(accepted > 0, 'some accepted')
  // Identical bodies are one request retried: they are stored once, also after the redelivery window.
  const rows = await settledRows(lk, rid, 1000, () => lk.req('POST', path, { events: [{ message: 'sentinel' }] }))
  t.equal(rows.length, 1000)
  t.equal(new Set(rows.map((r) => r.message)).size, 1000, 'each event once')
})

t.test('the desktop route answers 503 under the same pressure', async (t) => {
  const token = await lk.token_(['logs:write'], [rid])
  const legacy = (k: number) => ({ resource_id: rid, events: Array.from({ length: 100 }, (_, i) => ({ id: `${k}-${i}`, timestamp: new Date().toISOString(), severity: 'info', message: 'd'.repeat(9000) })) })
  const results = await Promise.all(Array.from({ length: 8 }, (_, k) => lk.req('POST', '/v1/logs', legacy(k), { authorization: `Bearer ${token}` })))
  const codes = results.map((r) => r.status)
  t.ok(codes.includes(503), `some refused with 503 (${codes.join(',')})`)
  t.ok(codes.every((c) => c === 200 || c === 503))
  t.ok(results.filter((r) => r.status === 503).every((r) => r.headers.get('retry-after') === '1'))
})
