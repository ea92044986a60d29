// The log-volume histogram route (Lookout extension): counts per bucket and
// level equal to the rows stored, the filters of the search, the bucket width
// picked from the range, every limit at its edge, the same grants.
import t from 'tap'
import { bucketSeconds } from '../../query/internal.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())

const ws = lk.workspaceId
const rid = await lk.resource('hist')
const other = await lk.resource('hist-other')
const H = `/v1/workspaces/${ws}/resources/${rid}/logs/histogram`
const base = Math.floor(Date.now() / 60_000) * 60_000 - 30 * 60_000
const at = (s: number) => new Date(base + s * 1000).toISOString()
const T = 'cd'.repeat(16)
const events = [
  ...Array.from({ length: 5 }, (_, i) => ({ message: `info ${i}`, severity: 'INFO', timestamp: at(i) })),
  ...Array.from({ length: 3 }, (_, i) => ({ message: `boom ${i}`, severity: 'ERROR', timestamp: at(70 + i), trace_id: T })),
  { message: 'late warning', severity: 'WARN', timestamp: at(200) },
  { message: 'no level', severity: 'NOTICE2', timestamp: at(201) },
]
const sent = await lk.req('POST', `/v1/workspaces/${ws}/resources/${rid}/logs`, { events })
if (sent.status !== 200) throw new Error(`ingest answered ${sent.status}`)
await lk.req('POST', `/v1/workspaces/${ws}/resources/${other}/logs`, { events: [{ message: 'elsewhere', severity: 'INFO', timestamp: at(1) }] })
await lk.waitRows(rid, events.length)
await lk.waitRows(other, 1)
const range = `start=${encodeURIComponent(at(0))}&end=${encodeURIComponent(at(300))}`

t.test('counts per bucket and level over the range; empty buckets listed', async (t) => {
  const r = await lk.req('GET', `${H}?${range}&buckets=5`)
  t.equal(r.status, 200)
  t.equal(r.body.bucket_seconds, 60, '300 s in at most 5 buckets: 60 s')
  t.equal(r.body.buckets.length, 5)
  t.equal(r.body.total, events.length)
  t.same(r.body.buckets.map((b: { total: number }) => b.total), [5, 3, 0, 2, 0])
  t.same(r.body.buckets[0].counts, { UNSET: 0, TRACE: 0, DEBUG: 0, INFO: 5, WARN: 0, ERROR: 0, FATAL: 0 })
  t.equal(r.body.buckets[1].counts.ERROR, 3)
  t.same([r.body.buckets[3].counts.WARN, r.body.buckets[3].counts.UNSET], [1, 1])
  t.equal(r.body.buckets[0].start, at(0))
})

t.test('the search filters apply: severity, text, trace id', async (t) => {
  t.equal((await lk.req('GET', `${H}?${range}&severity=WARN`)).body.total, 4)
  t.equal((await lk.req('GET', `${H}?${range}&q=boom`)).body.total, 3)
  t.equal((await lk.req('GET', `${H}?${range}&trace_id=${T}`)).body.total, 3)
  t.equal((await lk.req('GET', `${H}?${range}&q=nothing-like-this`)).body.total, 0)
})

t.test('bucket width from the range', async (t) => {
  t.equal(bucketSeconds(60_000, 120), 1)
  t.equal(bucketSeconds(3_600_000, 120), 30)
  t.equal(bucketSeconds(86_400_000, 120), 900)
  t.equal(bucketSeconds(366 * 86_400_000, 120), 4 * 86_400, 'past a day: whole days (3.05 days rounds up to 4)')
  const def = await lk.req('GET', H)
  t.equal(def.status, 200, 'no range: the last hour')
  t.equal(def.body.bucket_seconds, 30)
})

t.test('limits at their edges', async (t) => {
  t.equal((await lk.req('GET', `${H}?${range}&buckets=500`)).status, 200, '500 buckets')
  const over = await lk.req('GET', `${H}?${range}&buckets=501`)
  t.equal(over.status, 422, '501 buckets')
  t.same(over.body.detail[0].loc, ['query', 'buckets'])
  t.equal((await lk.req('GET', `${H}?${range}&buckets=0`)).status, 422)
  const end = Date.parse(at(300))
  const widest = `start=${new Date(end - 366 * 86_400_000).toISOString()}&end=${at(300)}`
  t.equal((await lk.req('GET', `${H}?${widest}`)).status, 200, 'a range of 366 days')
  const wider = await lk.req('GET', `${H}?start=${new Date(end - 366 * 86_400_000 - 1).toISOString()}&end=${at(300)}`)
  t.equal(wider.status, 422, '366 days and 1 ms')
  t.same(wider.body.detail[0].loc, ['query', 'start'])
  const backwards = await lk.req('GET', `${H}?start=${encodeURIComponent(at(300))}&end=${encodeURIComponent(at(0))}`)
  t.equal(backwards.status, 422, 'end before start')
  t.equal((await lk.req('GET', `${H}?${range}&severity=LOUD`)).status, 422)
  t.equal((await lk.req('GET', `${H}?${range}&trace_id=xyz`)).status, 422)
  t.equal((await lk.req('GET', `${H}?${range}&extra=1`)).status, 422, 'unknown parameters refused')
})

t.test('the same auth and grants as the search', async (t) => {
  t.equal((await lk.req('GET', `${H}?${range}`, undefined, { authorization: '' })).status, 401)
  const writer = await lk.token_(['logs:write'])
  t.equal((await lk.req('GET', `${H}?${range}`, undefined, { authorization: `Bearer ${writer}` })).status, 403, 'needs logs:read')
  const onlyOther = await lk.token_(['logs:read'], [other])
  t.equal((await lk.req('GET', `${H}?${range}`, undefined, { authorization: `Bearer ${onlyOther}` })).status, 403, 'outside the grant')
  const r = await lk.req('GET', `/v1/workspaces/${ws}/resources/${other}/logs/histogram?${range}`, undefined, { authorization: `Bearer ${onlyOther}` })
  t.equal(r.status, 200)
  t.equal(r.body.total, 1, 'only its own resource\'s rows')
  t.equal((await lk.req('GET', `/v1/workspaces/${ws}/resources/${crypto.randomUUID()}/logs/histogram`)).status, 404)
})
