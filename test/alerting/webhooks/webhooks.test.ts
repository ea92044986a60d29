// Assignment webhooks end to end: owner-only management, events written in
// the task change's transaction, a real receiver over loopback (the package's
// WebhookReceiver verifying signatures and deduplicating), the retry schedule
// on an injected clock, 410 / 503 / 3xx handling, manual retry, and the
// destination check with an injected resolver. The server runs without the
// monitor role, so the only delivery worker is the one this test drives.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { ManualClock } from '../../../monitor/internal.ts'
import { MemoryReceiptStore, WebhookReceiver, type ReceiveResult } from '../../../desktop/internal.ts'
import { WebhookWorker, enqueueWebhookDeliveries, retryDelay, signature as webhookSignature } from '../../../alerting/internal.ts'
import { startTestLookout } from '../../helpers/lookout.ts'
import { startHttpReceiver, type Received } from '../alerts/receivers.ts'

const lk = await startTestLookout({ roles: ['api'] })
const http = await startHttpReceiver()
// Starts at the database's time: rows carry the time of their transaction.
const clock = new ManualClock(Date.now())
const names: Record<string, string[]> = { 'receiver.test': ['127.0.0.1'], 'public.example': ['93.184.216.34'], 'mixed.example': ['127.0.0.1', '8.8.8.8'] }
const worker = new WebhookWorker(lk.lookout.db, {
  workerId: 'test-worker', clock,
  resolver: async (host) => (names[host] ?? []).map((address) => ({ address, family: 4 })),
})
t.teardown(async () => {
  await worker.close()
  await lk.stop()
  await http.close()
})

/** Rows are stamped with the database's (real) time: the test clock never falls behind it, and moves on from there. */
const catchUp = () => {
  const behind = Date.now() - clock.now()
  if (behind > 0) clock.advance(behind)
}
const step = async () => {
  catchUp()
  return worker.step()
}
const P = `/v1/workspaces/${lk.workspaceId}`
const W = '/v1/webhooks'
const owner = lk.ownerReq
const task = async (fields: Record<string, unknown>) => {
  const r = await lk.req('POST', `${P}/tasks`, { idempotency_key: randomUUID(), title: 'hooked task', ...fields })
  if (r.status !== 201) throw new Error(JSON.stringify(r.body))
  return r.body as { id: string; revision: number; board_id: string }
}

/** A subscription pointing at a receiver path that verifies with the package's receiver; enabled unless told. */
async function subscription(path: string, body: Record<string, unknown> = {}, enable = true) {
  const created = await owner('POST', W, { url: `http://receiver.test:${http.port}${path}`, ...body })
  if (created.status !== 201) throw new Error(JSON.stringify(created.body))
  const store = new MemoryReceiptStore()
  const results: ReceiveResult[] = []
  const receiver = new WebhookReceiver({ secrets: [created.body.secret], store, now: () => clock.now() })
  http.handle(path, async (r: Received) => {
    const res = await receiver.receive(r.headers, r.raw)
    results.push(res)
    return res.status
  })
  let sub = created.body
  if (enable) sub = (await owner('PATCH', `${W}/${sub.id}`, { generation: sub.generation, enabled: true })).body
  return { sub, secret: created.body.secret as string, results, accepted: () => results.filter((x) => x.event !== undefined).map((x) => x.event as any) }
}

const deliveries = async (id: string, q = '') => (await owner('GET', `${W}/${id}/deliveries${q}`)).body

t.test('management is owner-only; subscriptions start disabled; the secret is shown once', async (t) => {
  t.equal((await lk.req('GET', W)).status, 403, 'no HTTP grant, even with every scope')
  t.equal((await lk.req('POST', W, { url: `${http.url}/x` })).body.error.code, 'LOOKOUT_FORBIDDEN')
  const created = await owner('POST', W, { url: `http://receiver.test:${http.port}/mgmt`, description: 'agent', assignee_ids: [7, 7] })
  t.equal(created.status, 201)
  t.match(created.body, { enabled: false, state: 'disabled', generation: 1, events: ['task.assignment.changed', 'task.deleted'], assignee_ids: [7], board_ids: null })
  t.match(created.body.secret, /^whsec_[A-Za-z0-9_-]{43}$/)
  const list = await owner('GET', W)
  const listed = list.body.items.find((s: { id: string }) => s.id === created.body.id)
  t.ok(listed)
  t.notOk('secret' in listed, 'never listed again')
  const stored = await lk.lookout.db.query<{ secret: Uint8Array }>('SELECT secret FROM webhook_subscriptions WHERE id = $1', [created.body.id])
  t.ok(stored.rows[0] !== undefined)
  const bad = async (body: unknown, code = 'LOOKOUT_VALIDATION') => {
    const r = await owner('POST', W, body)
    t.equal(r.status, 400, JSON.stringify(body))
    t.equal(r.body.error.code, code)
  }
  await bad({})
  await bad({ url: `${http.url}/x`, colour: 'red' })
  await bad({ url: `${http.url}/x`, events: ['task.restored'] })
  await bad({ url: `${http.url}/x`, events: [] })
  await bad({ url: `${http.url}/x`, assignee_ids: [0] })
  await bad({ url: `${http.url}/x`, board_ids: ['nope'] })
  await bad({ url: 'ftp://127.0.0.1/x' }, 'LOOKOUT_WEBHOOK_DESTINATION_REFUSED')
  await bad({ url: 'http://93.184.216.34/x' }, 'LOOKOUT_WEBHOOK_DESTINATION_REFUSED')
  await bad({ url: 'http://169.254.169.254/latest' }, 'LOOKOUT_WEBHOOK_DESTINATION_REFUSED')
  const stale = await owner('PATCH', `${W}/${created.body.id}`, { generation: 5, enabled: true })
  t.equal(stale.status, 409)
  t.equal(stale.body.error.code, 'LOOKOUT_WEBHOOK_STALE_GENERATION')
  t.equal((await owner('PATCH', `${W}/${created.body.id}`, { enabled: true })).status, 400, 'the observed generation is required')
  const rotated = await owner('PATCH', `${W}/${created.body.id}`, { generation: 1, rotate_secret: true })
  t.equal(rotated.status, 200)
  t.match(rotated.body, { generation: 2, enabled: false })
  t.match(rotated.body.secret, /^whsec_/)
  t.not(rotated.body.secret, created.body.secret)
  const plain = await owner('PATCH', `${W}/${created.body.id}`, { generation: 2, description: 'renamed' })
  t.notOk('secret' in plain.body, 'only a rotation shows a secret')
  t.equal((await owner('PATCH', `${W}/${randomUUID()}`, { generation: 1 })).status, 404)
  t.equal((await owner('DELETE', `${W}/${created.body.id}`)).status, 200)
  t.equal((await owner('DELETE', `${W}/${created.body.id}`)).status, 404)
})

t.test('assignment events: which changes emit, the envelope, signatures verified by the receiver', async (t) => {
  const before = await task({ assignee: 3 })
  const s = await subscription('/events')
  t.equal(s.sub.enabled, true)
  t.equal((await deliveries(s.sub.id)).items.length, 0, 'enabling does not process existing assignments')
  const created = await task({ assignee: 7 })
  const untouched = await task({})
  let rev = created.revision
  const change = async (method: string, path: string, body: Record<string, unknown>) => {
    const r = await lk.req(method, `${P}/tasks/${created.id}${path}`, { revision: rev, ...body })
    t.equal(r.status, 200, `${method} ${path} ${JSON.stringify(body)}: ${JSON.stringify(r.body).slice(0, 200)}`)
    rev = r.body.revision ?? rev
    return r.body
  }
  await change('PATCH', '', { title: 'edited title', priority: 'high' })
  await change('PATCH', '', { assignee: 7 })
  t.equal((await lk.req('POST', `${P}/tasks/${created.id}/comments`, { idempotency_key: randomUUID(), body: 'a comment' })).status, 201)
  await change('POST', '/actions', { action: 'state', state: 'blocked', blocked_reason: 'waiting' })
  const moved = await change('PATCH', '', { assignee: 8 })
  await change('DELETE', '', {})
  await change('POST', '/actions', { action: 'restore' })
  await lk.req('PATCH', `${P}/tasks/${before.id}`, { revision: 1, title: 'old task edited' })
  const queued = (await deliveries(s.sub.id)).items
  t.same(queued.map((d: { event_type: string; state: string }) => [d.event_type, d.state]).reverse(),
    [['task.assignment.changed', 'queued'], ['task.assignment.changed', 'queued'], ['task.deleted', 'queued']],
    'assigned creation, the reassignment and the delete; not edits, comments, states, unchanged assignment, restore, or the untouched task')
  t.ok(untouched)
  t.equal(await step(), 3)
  const events = s.accepted()
  t.equal(events.length, 3)
  t.same(s.results.map((r) => r.status), [200, 200, 200], 'every signature verified')
  const [first, second, third] = events
  const instance = (await lk.req('GET', `/v1/projects/items/${created.id}/assignment?workspace_id=${lk.workspaceId}`)).body.instance_id
  t.same(Object.keys(first), ['schema_version', 'id', 'type', 'occurred_at', 'source', 'task', 'previous_assignee', 'assignee'])
  t.match(first, {
    schema_version: 1, type: 'task.assignment.changed', source: { instance_id: instance, workspace_id: lk.workspaceId },
    task: { id: created.id, board_id: created.board_id, revision: 1 }, previous_assignee: null, assignee: { id: 'profile:7', kind: 'user' },
  })
  t.match(first.occurred_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
  t.match(second, { type: 'task.assignment.changed', previous_assignee: { id: 'profile:7' }, assignee: { id: 'profile:8' }, task: { revision: moved.revision } })
  t.match(third, { type: 'task.deleted', previous_assignee: { id: 'profile:8' }, task: { id: created.id } })
  const hits = http.on('/events')
  t.equal(hits[0]?.headers['x-service-event-id'], first.id)
  t.equal(hits[0]?.headers['x-service-timestamp'], String(Math.floor(clock.now() / 1000)))
  t.equal(hits[0]?.headers['x-service-signature'], webhookSignature(s.secret, hits[0]?.headers['x-service-timestamp'] as string, hits[0]?.raw as string))
  t.equal(hits[0]?.headers['content-type'], 'application/json')
  const done = (await deliveries(s.sub.id)).items
  t.ok(done.every((d: { state: string; attempts: number }) => d.state === 'delivered' && d.attempts === 1))
  await owner('PATCH', `${W}/${s.sub.id}`, { generation: s.sub.generation, enabled: false })
})

t.test('filters: assignee filters match the old or the new identity; boards and events narrow', async (t) => {
  const board = (await lk.req('POST', `${P}/project/boards`, { idempotency_key: randomUUID(), name: 'hooks board' })).body.id
  const people = await subscription('/people', { assignee_ids: [42] })
  const onBoard = await subscription('/board', { board_ids: [board], events: ['task.deleted'] })
  const a = await task({ assignee: 42 })
  const off = await lk.req('PATCH', `${P}/tasks/${a.id}`, { revision: 1, assignee: null })
  t.equal(off.status, 200)
  await task({ assignee: 43 })
  const b = await task({ assignee: 43, board_id: board })
  await lk.req('DELETE', `${P}/tasks/${b.id}`, { revision: 1 })
  const c = await task({ board_id: null })
  await lk.req('DELETE', `${P}/tasks/${c.id}`, { revision: 1 })
  await step()
  t.same(people.accepted().map((e) => [e.previous_assignee?.id ?? null, e.assignee?.id ?? null]), [[null, 'profile:42'], ['profile:42', null]],
    'assignment to 42 and the unassignment from 42; not 43')
  t.same(onBoard.accepted().map((e) => [e.type, e.task.id]), [['task.deleted', b.id]], 'only deletes on its board')
  // Only local tasks emit: an event of a portal task (or a restore) queues nothing, even for a matching subscription.
  const portal = await lk.lookout.db.transaction((tx) => enqueueWebhookDeliveries(tx, {
    id: randomUUID(), workspaceId: lk.workspaceId, type: 'task.assignment.changed', task: { id: randomUUID(), board_id: board, revision: 1, origin: 'portal' },
    previousAssignee: null, assignee: 42,
  }))
  t.equal(portal, 0)
  const restore = await lk.lookout.db.transaction((tx) => enqueueWebhookDeliveries(tx, {
    id: randomUUID(), workspaceId: lk.workspaceId, type: 'task.restored', task: { id: randomUUID(), board_id: board, revision: 1, origin: 'local' },
    previousAssignee: 42, assignee: 42,
  }))
  t.equal(restore, 0)
  for (const s of [people, onBoard]) await owner('PATCH', `${W}/${s.sub.id}`, { generation: s.sub.generation, enabled: false })
})

/** Steps the worker at exactly the delivery's next attempt time until it leaves the queue; returns the attempt times. */
async function runSchedule(subId: string, deliveryId: string): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < 100; i++) {
    const d = (await deliveries(subId)).items.find((x: { id: string }) => x.id === deliveryId)
    if (d.state !== 'queued') break
    const due = Date.parse(d.next_attempt_at)
    if (due > clock.now()) {
      clock.advance(due - clock.now() - 1)
      await worker.step()
      const still = (await deliveries(subId)).items.find((x: { id: string }) => x.id === deliveryId)
      if (still.attempts !== d.attempts) throw new Error('attempted before it was due')
      clock.advance(1)
    }
    await worker.step()
    times.push(clock.now())
  }
  return times
}

t.test('retry schedule: 5 s doubling to 1 h for 24 h on 503; Retry-After honoured; 410 stops until a manual retry', async (t) => {
  const flaky = await subscription('/flaky')
  http.handle('/flaky', async () => 503)
  await task({ assignee: 9 })
  const id = (await deliveries(flaky.sub.id)).items[0].id
  const times = await runSchedule(flaky.sub.id, id)
  const gaps = times.slice(1).map((x, i) => (x - (times[i] as number)) / 1000)
  t.same(gaps.slice(0, 12), [5, 10, 20, 40, 80, 160, 320, 640, 1280, 2560, 3600, 3600], 'first retry after 5 s, doubling, at most an hour apart')
  const span = (times.at(-1) as number) - (times[0] as number)
  t.ok(span <= 24 * 3_600_000 && span > 23 * 3_600_000, `retried for about 24 h (${span / 3_600_000} h)`)
  const final = (await deliveries(flaky.sub.id)).items[0]
  t.match(final, { state: 'failed', last_status: 503, last_error: /retried for 24 h/, attempts: times.length })
  t.equal(retryDelay(1, 120_000), 120_000)

  const busy = await subscription('/busy')
  http.handle('/busy', async () => ({ status: 429, headers: { 'retry-after': '120' } }))
  await task({ assignee: 10 })
  await step()
  const b = (await deliveries(busy.sub.id)).items[0]
  t.equal(Date.parse(b.next_attempt_at) - clock.now(), 120_000, 'Retry-After: 120 instead of 5 s')
  t.equal(b.attempt_history[0].retry_after_ms, 120_000)

  const gone = await subscription('/gone')
  let answer = 410
  const receiver = new WebhookReceiver({ secrets: [gone.secret], store: new MemoryReceiptStore(), now: () => clock.now() })
  http.handle('/gone', async (r) => (answer === 410 ? 410 : (await receiver.receive(r.headers, r.raw)).status))
  await task({ assignee: 11 })
  await step()
  const g = (await deliveries(gone.sub.id)).items[0]
  t.match(g, { state: 'failed', attempts: 1, last_status: 410, next_attempt_at: null })
  clock.advance(7_200_000)
  await step()
  t.equal(http.on('/gone').length, 1, 'a failed delivery is not retried by itself')
  answer = 200
  const retried = await owner('POST', `${W}/${gone.sub.id}/deliveries/${g.id}/retry`)
  t.equal(retried.status, 202, JSON.stringify(retried.body))
  t.match(retried.body, { state: 'queued', event_id: g.event_id })
  t.equal((await owner('POST', `${W}/${gone.sub.id}/deliveries/${g.id}/retry`)).body.error.code, 'LOOKOUT_WEBHOOK_NOT_RETRYABLE')
  await step()
  const again = http.on('/gone')
  t.equal(again.length, 2)
  t.equal(again[1]?.headers['x-service-event-id'], g.event_id, 'the manual retry keeps the event id')
  t.equal(again[1]?.headers['x-service-event-id'], again[0]?.headers['x-service-event-id'])
  t.not(again[1]?.headers['x-service-timestamp'], again[0]?.headers['x-service-timestamp'], 'timestamp and signature are per attempt')
  t.match((await deliveries(gone.sub.id)).items[0], { state: 'delivered', attempts: 2 })
  t.equal((await owner('POST', `${W}/${gone.sub.id}/deliveries/${g.id}/retry`)).status, 409, 'a delivered one is not retried')
  for (const s of [flaky, busy, gone]) await owner('PATCH', `${W}/${s.sub.id}`, { generation: s.sub.generation, enabled: false })
})

t.test('destinations: a public name is refused, redirects are not followed, a dead worker\'s claim is taken over', async (t) => {
  const pub = await owner('POST', W, { url: `http://public.example:${http.port}/public` })
  const mixed = await owner('POST', W, { url: `http://mixed.example:${http.port}/mixed` })
  const redirect = await subscription('/redirect')
  http.handle('/redirect', async () => ({ status: 302, headers: { location: `${http.url}/elsewhere` } }))
  for (const s of [pub.body, mixed.body]) await owner('PATCH', `${W}/${s.id}`, { generation: 1, enabled: true })
  await task({ assignee: 12 })
  await step()
  const p = (await deliveries(pub.body.id)).items[0]
  t.match(p, { state: 'failed', last_status: null, last_error: /refused: public\.example resolves to 93\.184\.216\.34, a public address/ })
  t.match((await deliveries(mixed.body.id)).items[0], { state: 'failed', last_error: /8\.8\.8\.8, a public address/ })
  t.equal(http.on('/public').length + http.on('/mixed').length, 0, 'nothing was sent')
  t.match((await deliveries(redirect.sub.id)).items[0], { state: 'failed', last_status: 302, last_error: /redirects are not followed/ })
  t.equal(http.on('/elsewhere').length, 0)
  for (const s of [pub.body, mixed.body]) await owner('DELETE', `${W}/${s.id}`)

  // A worker claimed a delivery and died before sending: its lease runs out, another worker delivers.
  const crash = await subscription('/crash')
  await task({ assignee: 13 })
  const d = (await deliveries(crash.sub.id)).items[0]
  await lk.lookout.db.query(`UPDATE webhook_deliveries SET claimed_by = 'dead', claimed_until = $2 WHERE id = $1`, [d.id, new Date(clock.now() + 60_000).toISOString()])
  await step()
  t.equal(http.on('/crash').length, 0, 'still leased')
  clock.advance(60_001)
  await step()
  t.equal(crash.accepted().length, 1, 'delivered after the lease ran out')
  await owner('PATCH', `${W}/${crash.sub.id}`, { generation: crash.sub.generation, enabled: false })
  await owner('PATCH', `${W}/${redirect.sub.id}`, { generation: redirect.sub.generation, enabled: false })
})

t.test('disabling cancels queued deliveries; saving a configuration cancels the old one\'s; test events', async (t) => {
  const s = await subscription('/cfg')
  await task({ assignee: 14 })
  const disabled = await owner('PATCH', `${W}/${s.sub.id}`, { generation: s.sub.generation, enabled: false })
  t.equal(disabled.body.cancelled_deliveries, 1)
  t.match((await deliveries(s.sub.id)).items[0], { state: 'cancelled', last_error: /disabled/ })
  const enabled = await owner('PATCH', `${W}/${s.sub.id}`, { generation: disabled.body.generation, enabled: true })
  await task({ assignee: 15 })
  const saved = await owner('PATCH', `${W}/${s.sub.id}`, { generation: enabled.body.generation, description: 'new config', assignee_ids: [15, 16] })
  t.equal(saved.body.cancelled_deliveries, 1)
  t.equal(saved.body.generation, enabled.body.generation + 1)
  await step()
  t.equal(http.on('/cfg').length, 0, 'nothing of the old configuration was sent')

  const test = await owner('POST', `${W}/${s.sub.id}/test`)
  t.equal(test.status, 202)
  t.match(test.body, { event_type: 'webhook.test', state: 'queued' })
  await step()
  const ev = s.accepted().at(-1)
  t.same(Object.keys(ev), ['schema_version', 'id', 'type', 'occurred_at', 'source'], 'the test envelope carries no task')
  t.match(ev, { type: 'webhook.test', id: test.body.event_id, source: { workspace_id: lk.workspaceId } })

  // A receiver with the old secret refuses a rotated one's signature: 401 fails the delivery (no blind retries).
  const rotated = await owner('PATCH', `${W}/${s.sub.id}`, { generation: saved.body.generation, rotate_secret: true })
  await owner('POST', `${W}/${s.sub.id}/test`)
  await step()
  t.match((await deliveries(s.sub.id, '?limit=1')).items[0], { state: 'failed', last_status: 401 })
  t.ok(rotated.body.secret)
})

t.test('delivery history pages; bad cursors and limits are 400', async (t) => {
  const s = await subscription('/pages')
  for (let i = 0; i < 5; i++) await owner('POST', `${W}/${s.sub.id}/test`)
  const ids: string[] = []
  let cursor: string | null = null
  do {
    const r: any = await deliveries(s.sub.id, `?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    t.ok(r.items.length <= 2)
    ids.push(...r.items.map((d: { id: string }) => d.id))
    cursor = r.next_cursor
  } while (cursor !== null)
  t.equal(ids.length, 5)
  t.equal(new Set(ids).size, 5)
  t.equal((await owner('GET', `${W}/${s.sub.id}/deliveries?limit=101`)).status, 400)
  t.equal((await owner('GET', `${W}/${s.sub.id}/deliveries?limit=0`)).status, 400)
  t.equal((await owner('GET', `${W}/${s.sub.id}/deliveries?limit=100`)).status, 200)
  t.equal((await owner('GET', `${W}/${s.sub.id}/deliveries?cursor=forged.x`)).status, 400)
  t.equal((await owner('GET', `${W}/${randomUUID()}/deliveries`)).status, 404)
  t.equal((await owner('GET', `${W}/${s.sub.id}/deliveries?state=queued`)).body.items.length, 5)
})

t.test('the receiver helper: constant-time signature, five-minute skew, durable dedupe by (instance, id)', async (t) => {
  const secret = 'whsec_test'
  const store = new MemoryReceiptStore()
  const now = Date.UTC(2031, 5, 1) // pinned-date: the receiver takes its clock from the test; any fixed instant works
  const r = new WebhookReceiver({ secrets: ['whsec_old', secret], store, now: () => now })
  const body = JSON.stringify({ schema_version: 1, id: 'e1', type: 'webhook.test', occurred_at: 'x', source: { instance_id: 'i1', workspace_id: 'w' } })
  const ts = String(Math.floor(now / 1000))
  const h = (b: string, stamp = ts, id = 'e1') => ({ 'x-service-event-id': id, 'x-service-timestamp': stamp, 'x-service-signature': webhookSignature(secret, stamp, b) })
  t.match(await r.receive(h(body), body), { status: 200, reason: 'accepted' })
  t.match(await r.receive(h(body), body), { status: 200, duplicate: true })
  const other = body.replace('webhook.test', 'task.deleted')
  t.match(await r.receive(h(other), other), { status: 409 })
  t.match(await r.receive({ ...h(body), 'x-service-signature': 'sha256=' + '0'.repeat(64) }, body), { status: 401, reason: 'bad signature' })
  t.match(await r.receive(h(body), body + ' '), { status: 401 }, 'the exact raw body is signed')
  const old = String(Math.floor(now / 1000) - 301)
  t.match(await r.receive(h(body, old), body), { status: 401, reason: /five minutes/ })
  const near = String(Math.floor(now / 1000) - 299)
  t.match(await r.receive(h(body, near), body), { status: 200, duplicate: true })
  t.match(await r.receive(h(body, ts, 'e2'), body), { status: 400 })
  t.match(await r.receive({}, body), { status: 401 })
})

t.test('delivery history is kept 30 days', async (t) => {
  const s = await subscription('/history')
  await owner('POST', `${W}/${s.sub.id}/test`)
  await owner('POST', `${W}/${s.sub.id}/test`)
  await step()
  const [young, old] = (await deliveries(s.sub.id)).items
  t.match([young.state, old.state], ['delivered', 'delivered'])
  const day = 86_400_000
  await lk.lookout.db.query('UPDATE webhook_deliveries SET created_at = $2 WHERE id = $1', [old.id, new Date(clock.now() - 31 * day).toISOString()])
  await lk.lookout.db.query('UPDATE webhook_deliveries SET created_at = $2 WHERE id = $1', [young.id, new Date(clock.now() - 29 * day).toISOString()])
  clock.advance(600_001)
  await step()
  t.same((await deliveries(s.sub.id)).items.map((d: { id: string }) => d.id), [young.id], 'the 31-day-old delivery is gone, the 29-day-old one kept')
  const attempts = await lk.lookout.db.query('SELECT 1 FROM webhook_attempts WHERE delivery_id = $1', [old.id])
  t.equal(attempts.rows.length, 0, 'its attempts went with it')
  await owner('PATCH', `${W}/${s.sub.id}`, { generation: s.sub.generation, enabled: false })
})
