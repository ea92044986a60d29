// Two webhook rules of the spec: the assignee kind droid for agent profiles
// (fixed when the event is queued, so every attempt sends the same bytes), and
// workspace restore (subscriptions and pending deliveries cleared, a fresh
// source identity, reconfiguration required), with a real receiver.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { WebhookWorker } from '../../../alerting/internal.ts'
import { setStaff } from '../../../workspace/index.ts'
import { startTestLookout } from '../../helpers/lookout.ts'
import { startHttpReceiver } from '../alerts/receivers.ts'

const lk = await startTestLookout({ roles: ['api'] })
const http = await startHttpReceiver()
const worker = new WebhookWorker(lk.lookout.db, { workerId: 'kinds-test' })
t.teardown(async () => {
  await worker.close()
  await lk.stop()
  await http.close()
})
const owner = lk.ownerReq

async function subscribe(path: string): Promise<string> {
  const created = await owner('POST', '/v1/webhooks', { url: `${http.url}${path}` })
  if (created.status !== 201) throw new Error(JSON.stringify(created.body))
  const on = await owner('PATCH', `/v1/webhooks/${created.body.id}`, { generation: created.body.generation, enabled: true })
  if (on.status !== 200) throw new Error(JSON.stringify(on.body))
  return created.body.id as string
}

async function task(assignee: number | null): Promise<{ id: string; revision: number }> {
  const r = await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/tasks`, { idempotency_key: randomUUID(), title: 'kinds', assignee })
  if (r.status !== 201) throw new Error(JSON.stringify(r.body))
  return r.body
}

async function deliverAll(path: string, n: number): Promise<any[]> {
  for (let i = 0; i < 100 && http.on(path).length < n; i++) {
    await worker.step()
    if (http.on(path).length < n) await new Promise((r) => setTimeout(r, 100))
  }
  return http.on(path).map((r) => r.json)
}

t.test('assignee kind: droid for an agent profile, user otherwise, fixed when queued', async (t) => {
  await setStaff(lk.lookout.db, lk.workspaceId, 9, { name: 'build agent', agent: true })
  await setStaff(lk.lookout.db, lk.workspaceId, 5, { name: 'Ada' })
  await subscribe('/kinds')
  const a = await task(9)
  const moved = await lk.req('PATCH', `/v1/workspaces/${lk.workspaceId}/tasks/${a.id}`, { revision: a.revision, assignee: 5 })
  t.equal(moved.status, 200)
  // Queued while 9 was an agent; 9 stops being one before the delivery: the event keeps what was true when it happened.
  await task(9)
  await setStaff(lk.lookout.db, lk.workspaceId, 9, { agent: false })
  const got = await deliverAll('/kinds', 3)
  t.equal(got.length, 3)
  t.same(got[0].assignee, { id: 'profile:9', kind: 'droid' }, 'assigned to the agent profile')
  t.equal(got[0].previous_assignee, null)
  t.same(got[1].previous_assignee, { id: 'profile:9', kind: 'droid' }, 'from the agent')
  t.same(got[1].assignee, { id: 'profile:5', kind: 'user' }, 'to a person')
  t.same(got[2].assignee, { id: 'profile:9', kind: 'droid' }, 'fixed when queued')
  await task(9)
  const after = await deliverAll('/kinds', 4)
  t.same(after[3].assignee, { id: 'profile:9', kind: 'user' }, 'no longer an agent: user')
})

t.test('workspace restore: subscriptions and pending deliveries cleared, a fresh source identity', async (t) => {
  const sub = await subscribe('/before')
  await task(5)
  const before = (await deliverAll('/before', 1))[0]
  const oldInstance = before.source.instance_id as string
  t.match(oldInstance, /^[0-9a-f-]{36}$/)
  // A delivery still queued when the restore happens.
  await task(5)
  const queued = await lk.lookout.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM webhook_deliveries WHERE state = 'queued'`)
  t.ok((queued.rows[0]?.n ?? 0) >= 1, 'something is pending')

  t.equal((await owner('POST', '/v1/webhooks/restore', {})).status, 400, 'the word restore is required')
  t.equal((await lk.req('POST', '/v1/webhooks/restore', { confirm: 'restore' })).status, 403, 'owner-only: no HTTP grant, even with every scope')
  const r = await owner('POST', '/v1/webhooks/restore', { confirm: 'restore' })
  t.equal(r.status, 200)
  t.match(r.body, { cleared_subscriptions: 2, previous_instance_id: oldInstance, reconfiguration_required: true })
  t.ok(r.body.cancelled_deliveries >= 1, 'pending deliveries counted')
  t.not(r.body.instance_id, oldInstance, 'a fresh source identity')
  t.same((await owner('GET', '/v1/webhooks')).body.items, [], 'no subscription left: reconfiguration required')
  t.equal((await owner('GET', `/v1/webhooks/${sub}/deliveries`)).status, 404)
  const left = await lk.lookout.db.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_deliveries')
  t.equal(left.rows[0]?.n, 0, 'no delivery left')
  const sentBefore = http.on('/before').length
  await worker.step()
  t.equal(http.on('/before').length, sentBefore, 'nothing pending is sent after the restore')

  // Reconfigured: events carry the new identity, the assignment view too.
  await subscribe('/after')
  const fresh = await task(5)
  const after = (await deliverAll('/after', 1))[0]
  t.equal(after.source.instance_id, r.body.instance_id, 'new events carry the fresh identity')
  const view = await owner('GET', `/v1/projects/items/${fresh.id}/assignment?workspace_id=${lk.workspaceId}`)
  t.equal(view.body.instance_id, r.body.instance_id, 'the assignment view agrees')
})
