// Request recording and the usage routes: every request counted per key and
// day, request history (metadata only) for staff allowed to read it, batched
// writes flushed on a timer, a full batch, a read, and close.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { buildApp } from '../../../api/index.ts'
import { RequestRecorder } from '../../../workspace/index.ts'
import { startTestLookout, tokenSecret, retryWhenShed } from '../../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
retryWhenShed(lk)
const P = `/v1/workspaces/${lk.workspaceId}`
const as = (token: string) => ({ authorization: `Bearer ${token}` })
const db = lk.lookout.db
const tokenId = (token: string) => {
  const hex = token.split('_')[1] as string
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

// A key that reads its own history: staff 3, allowed to.
await lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: 3, can_read_request_history: true })
const auditor = await lk.token_(['usage:read', 'resources:write', 'logs:write'], 'all', { staffId: 3 })
const auditorId = tokenId(auditor)

t.test('every request is counted per key and day, errors apart', async (t) => {
  const rid = await lk.resource('usage-res')
  t.equal((await lk.req('GET', `${P}/resources/${rid}`, undefined, as(auditor))).status, 200)
  t.equal((await lk.req('GET', `${P}/resources/${rid}`, undefined, as(auditor))).status, 200)
  t.equal((await lk.req('GET', `${P}/resources/${randomUUID()}`, undefined, as(auditor))).status, 404)
  t.equal((await lk.req('POST', `${P}/resources/${rid}/logs`, { events: [{ message: 'counted' }] }, as(auditor))).status, 200)
  const u = await lk.req('GET', `${P}/api-usage`, undefined, as(auditor))
  t.equal(u.status, 200)
  const today = new Date().toISOString().slice(0, 10)
  const mine = u.body.daily.find((d: { key_id: string; date: string }) => d.key_id === auditorId && d.date === today)
  // 4 requests above; the usage read itself is counted when its response is sent, after the snapshot.
  t.match(mine, { requests: 4, client_errors: 1, server_errors: 0 })
  t.ok(u.body.totals.requests >= 4)
  t.match(u.body.consumption, { resources: Number })
  t.equal(u.body.days, 30)
  const again = await lk.req('GET', `${P}/api-usage`, undefined, as(auditor))
  t.equal(again.body.daily.find((d: { key_id: string; date: string }) => d.key_id === auditorId && d.date === today).requests, 5, 'the previous usage read is counted too')
  const no = await lk.token_(['resources:write'])
  const f = await lk.req('GET', `${P}/api-usage`, undefined, as(no))
  t.equal(f.status, 403)
  t.match(f.body.detail[0].msg, /usage:read/)
})

t.test('request history: usage:read and the staff permission to read it', async (t) => {
  const plain = await lk.token_(['usage:read'])
  const r1 = await lk.req('GET', `${P}/api-usage/requests`, undefined, as(plain))
  t.equal(r1.status, 403)
  t.equal(r1.body.detail[0].type, 'LOOKOUT_STAFF_REQUIRED')
  const staffNo = await lk.token_(['usage:read'], 'all', { staffId: 4 })
  await lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: 4 })
  const r2 = await lk.req('GET', `${P}/api-usage/requests`, undefined, as(staffNo))
  t.equal(r2.status, 403)
  t.match(r2.body.detail[0].msg, /may not read the request history/)
  const noScope = await lk.token_(['resources:write'], 'all', { staffId: 3 })
  t.equal((await lk.req('GET', `${P}/api-usage/requests`, undefined, as(noScope))).status, 403)
  t.equal((await lk.req('GET', `${P}/api-usage/requests`, undefined, as(auditor))).status, 200)
})

t.test('request history: metadata only, filters, paging, limit edges', async (t) => {
  const rid = await lk.resource('history-res')
  const marked = await lk.req('PATCH', `${P}/resources/${rid}?`, { description: 'secret-body-value' }, as(auditor))
  t.equal(marked.status, 200)
  const requestId = marked.headers.get('x-request-id') as string
  t.match(requestId, /^[0-9a-f-]{36}$/)
  await lk.req('GET', `${P}/resources?external_id=secret-query-value`, undefined, as(auditor))
  const one = await lk.req('GET', `${P}/api-usage/requests?request_id=${requestId}`, undefined, as(auditor))
  t.equal(one.status, 200)
  t.equal(one.body.items.length, 1)
  t.match(one.body.items[0], {
    request_id: requestId, key_id: auditorId, method: 'PATCH', route: '/v1/workspaces/{workspace_id}/resources/{resource_id}', status: 200,
  })
  t.ok(one.body.items[0].duration_ms >= 0)
  t.ok(Date.parse(one.body.items[0].at) > 0)
  const list = await lk.req('GET', `${P}/api-usage/requests?key_id=${auditorId}&limit=100`, undefined, as(auditor))
  t.ok(list.body.items.length >= 6)
  t.ok(list.body.items.every((i: { key_id: string }) => i.key_id === auditorId))
  const times = list.body.items.map((i: { at: string }) => i.at)
  t.same(times, [...times].sort().reverse(), 'newest first')
  const listed = list.body.items.find((i: { route: string; method: string }) => i.method === 'GET' && i.route === '/v1/workspaces/{workspace_id}/resources')
  t.ok(listed, 'a route template, without the query string')
  const notFound = await lk.req('GET', `${P}/api-usage/requests?status=404&key_id=${auditorId}`, undefined, as(auditor))
  t.ok(notFound.body.items.length >= 1)
  t.ok(notFound.body.items.every((i: { status: number }) => i.status === 404))
  // Nothing but metadata is kept, in the responses or in the table.
  const stored = await db.query('SELECT * FROM api_requests')
  const everything = JSON.stringify(stored.rows) + JSON.stringify(list.body)
  for (const s of ['secret-body-value', 'secret-query-value', auditor, tokenSecret(auditor), 'external_id=']) {
    t.notOk(everything.includes(s), `not recorded: ${s.slice(0, 20)}`)
  }
  t.same(Object.keys(stored.rows[0] ?? {}).sort(), ['at', 'duration_ms', 'id', 'key_id', 'method', 'request_id', 'route', 'status', 'workspace_id'])
  // Paging.
  const seen: string[] = []
  let cursor: string | null = null
  do {
    const page: { status: number; body: any } = await lk.req('GET', `${P}/api-usage/requests?key_id=${auditorId}&limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, undefined, as(auditor))
    t.equal(page.status, 200)
    t.ok(page.body.items.length <= 2)
    seen.push(...page.body.items.map((i: { id: string }) => i.id))
    cursor = page.body.next_cursor
  } while (cursor !== null && seen.length < 200)
  t.equal(new Set(seen).size, seen.length, 'no item twice')
  t.ok(seen.length >= list.body.items.length, 'pages cover the list')
  for (const q of ['limit=0', 'limit=101', 'status=600', 'status=-1', 'key_id=abc', 'request_id=abc', 'cursor=forged.x', 'path=/']) {
    t.equal((await lk.req('GET', `${P}/api-usage/requests?${q}`, undefined, as(auditor))).status, 422, q)
  }
  for (const q of ['limit=1', 'limit=100', 'status=0', 'status=599']) {
    t.equal((await lk.req('GET', `${P}/api-usage/requests?${q}`, undefined, as(auditor))).status, 200, q)
  }
})

t.test('the recorder batches: buffered until a flush, one write per batch', async (t) => {
  const rec = new RequestRecorder(db, { intervalMs: 3_600_000, batchSize: 100 })
  const ws = lk.workspaceId
  const key = `batch-${randomUUID()}`
  const count = async () => Number((await db.query<{ n: string }>('SELECT count(*)::text AS n FROM api_requests WHERE key_id = $1', [key])).rows[0]?.n)
  const one = (i: number) => ({ at: Date.now(), workspaceId: ws, keyId: key, requestId: `r${i}`, method: 'GET', route: '/x', status: i % 2 === 0 ? 200 : i % 5 === 0 ? 503 : 404, durationMs: 1.5 })
  for (let i = 0; i < 99; i++) rec.record(one(i))
  t.equal(rec.pending, 99)
  t.equal(await count(), 0, 'nothing written before a flush')
  rec.record(one(99))
  await rec.flush()
  t.equal(await count(), 100, 'a full batch is written')
  for (let i = 100; i < 250; i++) rec.record(one(i))
  await rec.close()
  t.equal(await count(), 250, 'close writes the rest')
  const day = await db.query<{ requests: string; client_errors: string; server_errors: string }>(
    'SELECT requests::text, client_errors::text, server_errors::text FROM api_usage_daily WHERE key_id = $1', [key])
  // Odd i: 125 errors, of which i % 5 === 0 (25) are 503s.
  t.same(day.rows, [{ requests: '250', client_errors: '100', server_errors: '25' }])
  rec.record(one(999))
  t.equal(rec.pending, 0, 'a closed recorder takes nothing')
})

t.test('an app flushes what it recorded when it closes', async (t) => {
  const app = await buildApp({ db, ingest: lk.lookout.ingest as never, store: lk.lookout.store, maxEventLoopDelayMs: 0, recorder: { intervalMs: 3_600_000 } })
  const rid = randomUUID()
  for (let i = 0; i < 3; i++) {
    t.equal((await app.inject({ method: 'GET', url: `${P}/resources/${rid}`, headers: { ...as(auditor), 'x-request-id': `closing-${rid}-${i}` } })).statusCode, 404)
  }
  const before = await db.query('SELECT 1 FROM api_requests WHERE request_id LIKE $1', [`closing-${rid}-%`])
  t.equal(before.rows.length, 0, 'still buffered')
  await app.close()
  const after = await db.query('SELECT 1 FROM api_requests WHERE request_id LIKE $1', [`closing-${rid}-%`])
  t.equal(after.rows.length, 3)
})
