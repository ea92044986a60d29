// The on-call reads: the workspace overview across resources (with a
// one-resource grant applied), one incident's page with its timeline, and the
// signed-in principal's inbox with its own read marks. Real TCP incidents,
// real webhook deliveries to a local receiver.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { createServer } from 'node:net'
import { acceptingOn, closedPort, startHttpReceiver, waitFor } from '../alerting/alerts/receivers.ts'
import { tcpCheck, verifiedWebhook, startOnCallLookout } from '../helpers/on-call.ts'

const http = await startHttpReceiver()
const lk = await startOnCallLookout()
t.teardown(async () => {
  await lk.stop()
  await http.close()
})
const W = `/v1/workspaces/${lk.workspaceId}`
const front = await lk.resource('front-door')
const back = await lk.resource('back-office')
const as = (tok: string) => ({ authorization: `Bearer ${tok}` })
const hook = await verifiedWebhook(lk, back, http, '/on-call')
const port = await closedPort()
const downCheck = await tcpCheck(lk, back, port)
// A check on the other resource that stays up: never on the overview.
const listening = createServer((s) => s.end())
await new Promise<void>((resolve) => listening.listen(0, '127.0.0.1', () => resolve()))
t.teardown(() => new Promise<void>((resolve) => listening.close(() => resolve())))
const upCheck = await tcpCheck(lk, front, (listening.address() as { port: number }).port)
const opened = await waitFor(() => http.on('/on-call').find((r) => r.json?.type === 'incident.opened')?.json, 'the incident alert')
// Created after the down check, the up check may still lack its second observation (health unknown, listed).
await waitFor(async () => {
  const r = await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${front}/monitoring`)
  return r.body.checks?.find((x: { id: string; health: string }) => x.id === upCheck && x.health === 'healthy')
}, 'the up check confirmed healthy')
const incidentId = opened.incident.id as string

t.test('the overview shows a down check and its incident on another resource, with the alert sent', async (t) => {
  const o = await waitFor(async () => {
    const r = await lk.req('GET', `${W}/monitoring/overview`)
    return r.status === 200 && r.body.notifications.some((d: { state: string }) => d.state === 'delivered') ? r.body : undefined
  }, 'the delivered alert on the overview')
  const c = o.checks.find((x: { id: string }) => x.id === downCheck)
  t.match(c, { attention: 'down', health: 'unhealthy', resource: { id: back, name: 'back-office', external_id: 'back-office' } })
  t.notOk(o.checks.some((x: { id: string }) => x.id === upCheck), 'a healthy check is not listed')
  const i = o.incidents.find((x: { id: string }) => x.id === incidentId)
  t.match(i, { state: 'open', kind: 'check', resource: { id: back }, check: { id: downCheck, kind: 'tcp', required: true }, acknowledged: false, severity: 'critical' })
  t.ok(i.age_seconds >= 0)
  const d = o.notifications.find((x: { incident_id: string }) => x.incident_id === incidentId)
  t.match(d, { channel: 'webhook', destination_id: hook, destination_label: '/on-call', state: 'delivered', event_type: 'incident.opened', resource: { id: back } })
  t.match(d.destination, /^http:\/\/127\.0\.0\.1/)
  t.ok(o.summary.down >= 1 && o.summary.open_incidents >= 1 && o.summary.unacknowledged >= 1)
  t.same(o.truncated, { checks: false, incidents: false, notifications: false })
  const status = await lk.req('GET', `${W}/resources/${back}/monitoring`)
  t.same(status.body.checks.find((x: { id: string }) => x.id === downCheck).uptime, { h24: 0, d7: 0, d30: 0 }, 'uptime % in the status view: never up')
  t.equal(typeof o.generated_at, 'string')
})

t.test('the resource grant applies: a token for one resource sees only that resource', async (t) => {
  const frontOnly = await lk.token_(['monitor:read'], [front])
  const r = await lk.req('GET', `${W}/monitoring/overview`, undefined, as(frontOnly))
  t.equal(r.status, 200)
  t.notOk(r.body.checks.some((x: { resource_id: string }) => x.resource_id === back), 'no check of the other resource')
  t.same(r.body.incidents, [])
  t.same(r.body.notifications, [])
  const backOnly = await lk.token_(['monitor:read'], [back])
  const b = await lk.req('GET', `${W}/monitoring/overview`, undefined, as(backOnly))
  t.ok(b.body.incidents.some((x: { id: string }) => x.id === incidentId))
  t.equal((await lk.req('GET', `${W}/monitoring/overview`, undefined, as(await lk.token_(['logs:read'])))).status, 403, 'needs monitor:read')
  t.equal((await lk.req('GET', `/v1/workspaces/${randomUUID()}/monitoring/overview`)).status, 403, 'another workspace')
  const bad = await lk.req('GET', `${W}/monitoring/overview?limit=101`)
  t.equal(bad.status, 422)
  t.same(bad.body.detail[0].loc, ['query', 'limit'])
  t.equal((await lk.req('GET', `${W}/monitoring/overview?color=red`)).status, 422, 'unknown query parameters are refused')
  t.equal((await lk.req('GET', `${W}/monitoring/overview?limit=100`)).status, 200, 'the bound itself is accepted')
})

t.test('a failing check not yet confirmed is "failing", not up', async (t) => {
  // One probe, then none for five minutes: the first failure stays unconfirmed.
  const slow = await lk.req('POST', `${W}/resources/${front}/monitoring`, {
    name: 'slow', kind: 'tcp', configuration: { host: '127.0.0.1', port: await closedPort(), interval_seconds: 300, timeout_seconds: 1 },
  })
  const run = await lk.req('POST', `${W}/resources/${front}/monitoring/actions`, { id: slow.body.id, revision: slow.body.revision, action: 'run' })
  t.equal(run.status, 200)
  const c = await waitFor(async () => (await lk.req('GET', `${W}/monitoring/overview`)).body.checks.find((x: { id: string; last_result: unknown }) => x.id === slow.body.id && x.last_result !== null), 'the first observation')
  t.equal(c.attention, 'failing')
  t.not(c.health, 'unhealthy')
  t.equal(c.last_result.status, 'down')
})

t.test('the incident page: timeline, observations, deliveries; acknowledged and resolved entries appear', async (t) => {
  const url = `${W}/resources/${back}/monitoring/incidents/${incidentId}`
  const first = await lk.req('GET', url)
  t.equal(first.status, 200, JSON.stringify(first.body).slice(0, 300))
  t.match(first.body.incident, { id: incidentId, state: 'open', check: { id: downCheck }, resource: { id: back } })
  t.equal(first.body.check.id, downCheck)
  t.equal(first.body.log, null, 'not a log check')
  const types = first.body.timeline.map((e: { type: string }) => e.type)
  t.same(types.slice(0, 3), ['observation', 'observation', 'opened'], 'two confirming observations, then the opening')
  t.match(first.body.timeline[0], { status: 'down', code: 'LOOKOUT_PROBE_REFUSED' })
  const note = first.body.timeline.find((e: { type: string }) => e.type === 'notification')
  t.match(note, { channel: 'webhook', event_type: 'incident.opened', state: 'delivered', destination_label: '/on-call' })
  t.ok(first.body.observations.length >= 2)
  t.equal(first.body.observations[0].status, 'down')
  t.ok(first.body.deliveries.some((d: { id: string }) => d.id === note.delivery_id))

  const ack = await lk.req('POST', `${W}/resources/${back}/alerts`, { operation: 'acknowledge', values: { operation_id: randomUUID(), incident_id: incidentId } })
  t.equal(ack.status, 200)
  const acked = await lk.req('GET', url)
  t.match(acked.body.incident, { acknowledged: true, acknowledged_by: 'staff:1' })
  t.match(acked.body.timeline.find((e: { type: string }) => e.type === 'acknowledged'), { by: 'staff:1' })

  t.teardown(await acceptingOn(port))
  const done = await waitFor(async () => {
    const r = await lk.req('GET', url)
    return r.body.incident.state === 'closed' && r.body.timeline.some((e: { type: string; event_type?: string }) => e.event_type === 'incident.closed') ? r.body : undefined
  }, 'the recovery on the incident page')
  t.equal(done.timeline[done.timeline.length - 1].type === 'resolved' || done.timeline.some((e: { type: string }) => e.type === 'resolved'), true)
  t.match(done.timeline.find((e: { type: string }) => e.type === 'resolved'), { reason: /./ })

  t.equal((await lk.req('GET', `${W}/resources/${back}/monitoring/incidents/${randomUUID()}`)).status, 404)
  t.equal((await lk.req('GET', `${W}/resources/${front}/monitoring/incidents/${incidentId}`)).status, 404, 'an incident of another resource')
  t.equal((await lk.req('GET', url, undefined, as(await lk.token_(['monitor:read'], [front])))).status, 403, 'outside the grant')
  t.equal((await lk.req('GET', `${W}/resources/${back}/monitoring/incidents/not-a-uuid`)).status, 422)
})

t.test('the inbox: per-principal read marks, unread count, grant applied', async (t) => {
  const inbox = `${W}/notifications`
  const mine = await waitFor(async () => {
    const r = await lk.req('GET', inbox)
    return r.body.items?.some((n: { incident_id: string }) => n.incident_id === incidentId) ? r.body : undefined
  }, 'the incident in the inbox')
  const n = mine.items.find((x: { incident_id: string; kind: string }) => x.incident_id === incidentId && x.kind === 'incident.opened')
  t.equal(n.state, 'unread')
  t.ok(mine.unread_count >= 1)
  const read = await lk.req('POST', `${inbox}/actions`, { action: 'read', id: n.id })
  t.equal(read.status, 200)
  t.equal(read.body.item.state, 'read')
  t.equal(read.body.unread_count, mine.unread_count - 1)
  const unreadOnly = await lk.req('GET', `${inbox}?filter=unread`)
  t.notOk(unreadOnly.body.items.some((x: { id: string }) => x.id === n.id))
  // Another person of the team still has it unread.
  const colleague = await lk.token_(['monitor:read'], 'all', { staffId: 2 })
  const theirs = await lk.req('GET', inbox, undefined, as(colleague))
  t.equal(theirs.body.items.find((x: { id: string }) => x.id === n.id).state, 'unread')
  t.equal(theirs.body.unread_count, mine.unread_count)
  // A token for the other resource sees none of it, and cannot mark it.
  const frontOnly = await lk.token_(['monitor:read'], [front])
  t.notOk((await lk.req('GET', inbox, undefined, as(frontOnly))).body.items.some((x: { resource_id: string }) => x.resource_id === back))
  t.equal((await lk.req('POST', `${inbox}/actions`, { action: 'read', id: n.id }, as(frontOnly))).status, 404)
  const unread = await lk.req('POST', `${inbox}/actions`, { action: 'unread', id: n.id })
  t.equal(unread.body.item.state, 'unread')
  const all = await lk.req('POST', `${inbox}/actions`, { action: 'read_all' })
  t.ok(all.body.updated >= 1)
  t.equal(all.body.unread_count, 0)
  t.equal((await lk.req('GET', inbox, undefined, as(colleague))).body.unread_count, theirs.body.unread_count, 'read_all is mine only')
  // Paging and validation.
  const page1 = await lk.req('GET', `${inbox}?limit=1`)
  t.equal(page1.body.items.length, 1)
  t.type(page1.body.next_cursor, 'string')
  const page2 = await lk.req('GET', `${inbox}?limit=1&cursor=${encodeURIComponent(page1.body.next_cursor)}`)
  t.not(page2.body.items[0].id, page1.body.items[0].id)
  const bad = async (method: string, path: string, body: unknown, loc: string[]) => {
    const r = await lk.req(method, path, body)
    t.equal(r.status, 422, `${path} ${JSON.stringify(body)}`)
    t.same(r.body.detail[0].loc, loc)
  }
  await bad('GET', `${inbox}?limit=51`, undefined, ['query', 'limit'])
  await bad('GET', `${inbox}?cursor=forged.cursor`, undefined, ['query', 'cursor'])
  await bad('POST', `${inbox}/actions`, { action: 'read' }, ['body', 'id'])
  await bad('POST', `${inbox}/actions`, { action: 'read_all', id: n.id }, ['body', 'id'])
  await bad('POST', `${inbox}/actions`, { action: 'archive', id: n.id }, ['body', 'action'])
  t.equal((await lk.req('GET', `${inbox}?limit=50`)).status, 200)
  t.equal((await lk.req('POST', `${inbox}/actions`, { action: 'read', id: randomUUID() })).status, 404)
})
