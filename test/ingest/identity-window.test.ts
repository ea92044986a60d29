// An Idempotency-Key is remembered for the duplicate window
// (LOOKOUT_DUPLICATE_WINDOW_MS, here 8 s; README "Event identity"): the same
// key with another body, refused within the window, is accepted after it, and
// stored (its identity holds the body: the loader does not take it for the
// first body's events, which it did when the identity was the key alone).
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startTestLookout } from '../helpers/lookout.ts'
import { until } from '../helpers/until.ts'
import { settledRows } from '../helpers/stored-once.ts'

const WINDOW_MS = 8_000
const lk = await startTestLookout({ env: { LOOKOUT_DUPLICATE_WINDOW_MS: String(WINDOW_MS) } })
t.teardown(() => lk.stop())

t.test('a key is remembered for the window, then free', async (t) => {
  const rid = await lk.resource()
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const key = randomUUID()
  const sentAt = Date.now()
  t.equal((await lk.req('POST', path, { events: [{ message: 'first' }] }, { 'idempotency-key': key })).status, 200)
  t.equal((await lk.req('POST', path, { events: [{ message: 'second' }] }, { 'idempotency-key': key })).status, 409, 'within the window: another body is a conflict')
  const later = await until('the key expired', () => lk.req('POST', path, { events: [{ message: 'second' }] }, { 'idempotency-key': key }), (r) => r.status !== 409, 30_000)
  const after = Date.now() - sentAt
  t.equal(later.status, 200, `accepted once the window passed (${after} ms after the first use)`)
  t.ok(after >= WINDOW_MS, 'not before the window ended')
  const rows = await settledRows(lk, rid, 2, () => lk.req('POST', path, { events: [{ message: 'sentinel' }] }))
  t.same(rows.map((r) => r.message).sort(), ['first', 'second'], 'both bodies stored, each once')
})
