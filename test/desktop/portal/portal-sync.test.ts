// A desktop service and its portal (a Lookout cloud) in separate processes and
// data directories: connect with the CLI, sync offline work both ways, canonical
// ids and portal numbers with old ids still resolving, conflicts by revision,
// catalogue reviews, edges both ways, portal reads online and offline, owner-only routes.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { freePort, httpReq } from '../desktop-helpers.ts'
import { cli, closedPort, cloudTasks, deskOps, desktopTasks, startCloud, startPortalDesktop, until } from './portal-helpers.ts'
import { acceptingOn, startHttpReceiver } from '../../alerting/alerts/receivers.ts'
import { startSessionBus } from '../session-bus.ts'

const cloud = await startCloud()
t.teardown(() => cloud.stop())
// Toasts reach a private session bus whose notification server records them (test/desktop/session-bus.ts).
const bus = await startSessionBus()
t.teardown(() => bus.stop())
const desk = await startPortalDesktop({ DBUS_SESSION_BUS_ADDRESS: bus.address })
t.teardown(() => desk.stop())
const { owner } = desk
const CW = `/v1/workspaces/${cloud.workspaceId}`

const { create, sync } = deskOps(desk)
const status = async () => (await owner('GET', '/v1/portal/connection')).body

t.test('before connecting: the cloud advertises task-taxonomy-v1; disconnected; portal reads fail', async (t) => {
  const me = await httpReq(cloud.url, 'GET', '/v1/me', undefined, { authorization: `Bearer ${cloud.token}`, 'x-service-desktop-features': 'task-taxonomy-v1' })
  t.equal(me.headers['x-service-desktop-features'], 'task-taxonomy-v1, task-batch-v1')
  t.equal((await status()).state, 'disconnected')
  const rid = await desk.resource('web-1')
  const r = await owner('GET', `/v1/portal/logs?resource_id=${rid}`)
  t.equal(r.status, 503)
  t.equal(r.body.error.code, 'LOOKOUT_PORTAL_OFFLINE')
  t.equal((await owner('POST', '/v1/portal/sync')).body.error.code, 'LOOKOUT_PORTAL_NOT_CONNECTED')
})

const offline: Record<string, any> = {}
t.test('offline work, then connect with the CLI and sync: each task once on the cloud, canonical ids and numbers here', async (t) => {
  const label = await owner('POST', '/v1/projects/taxonomy', {
    idempotency_key: randomUUID(), kind: 'label', operation: 'create', name: 'urgent',
    revision: (await owner('GET', '/v1/projects/taxonomy')).body.revision,
  })
  t.equal(label.status, 200, 'a local label')
  const labelId = label.body.labels.find((l: any) => l.name === 'urgent').id
  offline.a = await create('write the report', { label_ids: [labelId], priority: 'high' })
  offline.b = await create('review the report')
  offline.c = await create('ship it')
  offline.labelId = labelId
  t.type(offline.a.number, 'number', 'before connecting, local tasks have local numbers')
  const edge = await owner('POST', '/v1/projects/edges', { idempotency_key: randomUUID(), from_id: offline.a.id, to_id: offline.b.id, relation: 'blocks' })
  t.equal(edge.status, 201)
  offline.edge = edge.body

  // Wrong token: refused with a clear error, nothing saved.
  const bad = await cli(desk.env, ['portal', 'connect', '--url', cloud.url, '--token', 'lkt_nope_nope'])
  t.equal(bad.code, 1)
  t.match(bad.stderr, /refused/)
  t.equal((await status()).state, 'disconnected')

  const ok = await cli(desk.env, ['portal', 'connect', '--url', cloud.url, '--token', cloud.token])
  t.equal(ok.code, 0, ok.stderr)
  t.match(ok.stdout, /state\s+connected/)
  t.notMatch(ok.stdout, /lkt_/, 'the token is never printed')
  const round = await sync()
  t.equal(round.state, 'connected', JSON.stringify(round))
  const s = await status()
  t.equal(s.workspace_id, cloud.workspaceId, 'the shared workspace id is the portal workspace uuid')
  t.equal(s.pending_operations, 0)
  t.equal(s.task_taxonomy, true, 'the cloud offers task-taxonomy-v1')
  t.ok(s.last_sync_at)
  t.notOk(JSON.stringify(s).includes(cloud.token), 'the status never shows the token')
  const shared = await owner('GET', `/v1/projects/items?workspace_id=${cloud.workspaceId}`)
  t.equal(shared.status, 200, 'the shared workspace id names the local workspace')
  t.equal(shared.body.items.length, 3)
  const g = await desk.grant(['project:read'])
  const asGrant = await owner('GET', `/v1/projects/items?workspace_id=${cloud.workspaceId}`, undefined, { 'x-lookout-act-as-grant': g.id })
  t.equal(asGrant.status, 200, 'for a grant of the workspace too')
  t.equal(asGrant.body.items.length, 3)

  const onCloud = await cloudTasks(cloud)
  for (const title of ['write the report', 'review the report', 'ship it']) {
    t.equal(onCloud.filter((x) => x.title === title).length, 1, `${title}: exactly once on the cloud`)
  }
  const numbers = onCloud.map((x) => x.number)
  t.equal(new Set(numbers).size, 3, 'three distinct portal numbers')
  const here = await desktopTasks(desk)
  for (const c of onCloud) {
    const local = here.find((x) => x.title === c.title)
    t.equal(local.id, c.id, `${c.title}: the desktop shows the canonical id`)
    t.equal(local.number, c.number, `${c.title}: and the portal number`)
  }
  const cloudA = onCloud.find((x) => x.title === 'write the report')
  t.same(cloudA.priority, 'high')
  const cloudLabels = (await cloud.req('GET', `${CW}/project/taxonomy`)).body.labels
  const urgent = cloudLabels.find((l: any) => l.name === 'urgent')
  t.ok(urgent, 'the local label reached the cloud before the task')
  t.same(cloudA.label_ids, [urgent.id], 'the task names the cloud label')

  // Old ids keep resolving: the item, its assignment view, the edge, a saved label selection.
  const old = await owner('GET', `/v1/projects/items/${offline.a.id}`)
  t.equal(old.status, 200, 'the provisional id still reads the item')
  t.equal(old.body.id, cloudA.id)
  t.equal((await owner('GET', `/v1/projects/items/${offline.a.id}/assignment`)).body.task_id, cloudA.id)
  const edges = (await owner('GET', `/v1/projects/edges?item_id=${offline.a.id}`)).body.items
  t.equal(edges.length, 1)
  t.equal(edges[0].from_id, cloudA.id, 'the edge follows the canonical id')
  const selected = (await owner('GET', `/v1/projects/items?label_ids=${offline.labelId}`)).body.items
  t.same(selected.map((x: any) => x.id), [cloudA.id], 'a saved selection with the old label id is still accepted')
  const patched = await owner('PATCH', `/v1/projects/items/${offline.a.id}`, { idempotency_key: randomUUID(), revision: old.body.revision, description: 'edited by old id' })
  t.equal(patched.status, 200, 'an edit by the old id works')
  await sync()
  t.equal((await cloud.req('GET', `${CW}/tasks/${cloudA.id}`)).body.description, 'edited by old id', 'and reaches the portal')
  offline.cloudA = cloudA
})

t.test('the shared workspace id is the portal uuid: records, workspaces, the assignment view, webhook source; the local id still works', async (t) => {
  const ws = cloud.workspaceId
  t.not(desk.workspaceId, ws, 'the desktop\'s own workspace id is another uuid')
  t.same((await owner('GET', '/v1/workspaces')).body.items.map((w: any) => w.id), [ws], 'GET /v1/workspaces')
  const items = (await owner('GET', '/v1/projects/items')).body.items
  t.ok(items.length > 0 && items.every((x: any) => x.workspace_id === ws), 'every record carries it')
  t.equal((await owner('GET', `/v1/projects/items/${offline.cloudA.id}/assignment?workspace_id=${ws}`)).body.workspace_id, ws, 'the assignment view')
  for (const named of [desk.workspaceId, ws]) {
    const byPath = await owner('GET', `/v1/workspaces/${named}/tasks/${offline.cloudA.id}`)
    t.equal(byPath.status, 200, `a path naming ${named === ws ? 'the shared' : 'the local'} id`)
    t.equal(byPath.body.workspace_id, ws)
    const g = await desk.grant(['project:read'])
    const asGrant = await owner('GET', `/v1/workspaces/${named}/tasks/${offline.cloudA.id}`, undefined, { 'x-lookout-act-as-grant': g.id })
    t.equal(asGrant.status, 200, `for a grant too (${named === ws ? 'shared' : 'local'} id)`)
  }
  const byLocal = await owner('GET', `/v1/projects/items?workspace_id=${desk.workspaceId}`)
  t.equal(byLocal.status, 200, 'the local id is still accepted in filters')
  t.equal(byLocal.body.items.length, items.length)
  // The webhook envelope's source.workspace_id: a test event to a receiver on loopback.
  const receiver = await startHttpReceiver()
  t.teardown(() => receiver.close())
  const hook = await owner('POST', `/v1/webhooks?workspace_id=${ws}`, { url: `${receiver.url}/hook` })
  t.equal(hook.status, 201, JSON.stringify(hook.body))
  t.equal((await owner('POST', `/v1/webhooks/${hook.body.id}/test`)).status, 202)
  const event = await until('the test event', async () => receiver.on('/hook')[0]?.json, (e) => e !== undefined)
  t.equal(event.source.workspace_id, ws, 'webhook source.workspace_id')
  t.equal((await owner('DELETE', `/v1/webhooks/${hook.body.id}`)).status, 200)
})

t.test('a task created while connected has no number until the portal supplies it', async (t) => {
  const n = await create('made while shared')
  t.equal(n.number, null)
  await sync()
  const local = (await desktopTasks(desk)).find((x) => x.title === 'made while shared')
  t.type(local.number, 'number')
  const c = (await cloudTasks(cloud)).find((x) => x.title === 'made while shared')
  t.equal(local.id, c.id)
  t.equal(local.number, c.number)
})

t.test('portal edits come back; sync writes no assignment events', async (t) => {
  const c = offline.cloudA
  const cur = (await cloud.req('GET', `${CW}/tasks/${c.id}`)).body
  const e = await cloud.req('PATCH', `${CW}/tasks/${c.id}`, { revision: cur.revision, title: 'write the final report', assignee: 7 })
  t.equal(e.status, 200)
  const made = await cloud.req('POST', `${CW}/tasks`, { idempotency_key: randomUUID(), title: 'made on the portal' })
  t.equal(made.status, 201)
  const worked = await cloud.req('POST', `${CW}/tasks/${c.id}/actions`, { revision: e.body.revision, action: 'work' })
  t.equal(worked.status, 200, JSON.stringify(worked.body))
  const round = await sync()
  t.ok(round.pulled >= 2, JSON.stringify(round))
  const here = await desktopTasks(desk)
  const a = here.find((x) => x.id === c.id)
  t.equal(a.title, 'write the final report')
  t.equal(a.assignee, 7)
  t.equal(a.state, 'in_progress', 'a portal action\'s work state comes back')
  const m = here.find((x) => x.id === made.body.id)
  t.ok(m, 'a task made on the portal arrives with its id')
  t.equal(m.number, made.body.number)
  const hooks = await owner('GET', `/v1/projects/items/${c.id}/history`)
  t.ok(hooks.body.items.some((h: any) => h.action === 'portal_sync'), 'the change is in the history as the portal sync')
  const again = await sync()
  t.equal(again.pushed, 0, 'a pulled change is not sent back')
})

t.test('rule 4: portal sync and import emit no assignment webhooks; a local task still does', async (t) => {
  const hook = await owner('POST', '/v1/webhooks', { url: `http://127.0.0.1:${await closedPort()}/agent` })
  t.equal(hook.status, 201, JSON.stringify(hook.body))
  t.equal((await owner('PATCH', `/v1/webhooks/${hook.body.id}`, { generation: 1, enabled: true })).status, 200)
  // On the portal: a new assigned task and a reassignment of a synced one, both pulled.
  const made = await cloud.req('POST', `${CW}/tasks`, { idempotency_key: randomUUID(), title: 'assigned on the portal', assignee: 11 })
  const cur = (await cloud.req('GET', `${CW}/tasks/${offline.cloudA.id}`)).body
  t.equal((await cloud.req('PATCH', `${CW}/tasks/${cur.id}`, { revision: cur.revision, assignee: 12 })).status, 200)
  const round = await sync()
  t.ok(round.pulled >= 2, JSON.stringify(round))
  t.equal((await owner('GET', `/v1/projects/items/${made.body.id}`)).body.assignee, 11)
  // The control: a local task made with an assignee (not yet on the portal) is an assignment change.
  const local = await create('assigned here', { assignee: 13 })
  const deliveries = await until('the control delivery', async () => (await owner('GET', `/v1/webhooks/${hook.body.id}/deliveries`)).body.items,
    (items: any[]) => items.some((d) => d.task_id === local.id))
  t.notOk(deliveries.some((d: any) => d.task_id === made.body.id || d.task_id === cur.id), 'nothing for the portal\'s changes')
  t.equal(deliveries.length, 1)
  t.equal((await owner('DELETE', `/v1/webhooks/${hook.body.id}`)).status, 200)
  await sync()
})

t.test('concurrent edits: the portal\'s revision wins, the desktop\'s edit is surfaced and can be retried', async (t) => {
  const id = offline.cloudA.id
  const local = (await owner('GET', `/v1/projects/items/${id}`)).body
  t.equal((await owner('PATCH', `/v1/projects/items/${id}`, { idempotency_key: randomUUID(), revision: local.revision, title: 'desktop title' })).status, 200)
  const cur = (await cloud.req('GET', `${CW}/tasks/${id}`)).body
  t.equal((await cloud.req('PATCH', `${CW}/tasks/${id}`, { revision: cur.revision, title: 'portal title' })).status, 200)
  await sync()
  t.equal((await cloud.req('GET', `${CW}/tasks/${id}`)).body.title, 'portal title', 'the portal kept its edit')
  t.equal((await owner('GET', `/v1/projects/items/${id}`)).body.title, 'portal title', 'the desktop shows the winner')
  const s = await status()
  t.equal(s.conflicts, 1, 'the status counts the conflict')
  const cli1 = await cli(desk.env, ['portal', 'status'])
  t.match(cli1.stdout, /conflicts\s+1/)
  const list = (await owner('GET', '/v1/portal/conflicts')).body.items
  t.equal(list.length, 1)
  t.equal(list[0].item_id, id)
  t.same(list[0].payload, { title: 'desktop title' }, 'the losing edit is kept, not lost')
  t.match(list[0].last_error, /409/)
  t.equal((await owner('POST', `/v1/portal/conflicts/${list[0].seq}`, { action: 'retry' })).status, 200)
  await sync()
  t.equal((await cloud.req('GET', `${CW}/tasks/${id}`)).body.title, 'desktop title', 'the retried edit wins now')
  t.equal((await status()).conflicts, 0)
})

t.test('concurrent catalogue edits need review; the owner decides', async (t) => {
  const localTax = (await owner('GET', '/v1/projects/taxonomy')).body
  const urgent = localTax.labels.find((l: any) => l.name === 'urgent')
  t.equal((await owner('POST', '/v1/projects/taxonomy', { idempotency_key: randomUUID(), kind: 'label', operation: 'update', id: urgent.id, name: 'urgent-desk', revision: localTax.revision })).status, 200)
  const cloudTax = (await cloud.req('GET', `${CW}/project/taxonomy`)).body
  t.equal((await cloud.req('POST', `${CW}/project/taxonomy`, { kind: 'label', operation: 'update', id: urgent.id, name: 'urgent-portal', revision: cloudTax.revision })).status, 200)
  await sync()
  const reviews = (await owner('GET', '/v1/portal/reviews')).body.items
  t.equal(reviews.length, 1, 'needs review')
  t.equal(reviews[0].local_value.name, 'urgent-desk')
  t.equal(reviews[0].portal_value.name, 'urgent-portal')
  t.equal((await cloud.req('GET', `${CW}/project/taxonomy`)).body.labels.find((l: any) => l.id === urgent.id).name, 'urgent-portal', 'no silent overwrite of the portal')
  t.equal((await owner('GET', '/v1/projects/taxonomy')).body.labels.find((l: any) => l.id === urgent.id).name, 'urgent-desk', 'nor of the desktop')
  t.equal((await status()).reviews, 1)
  t.equal((await owner('POST', `/v1/portal/reviews/${reviews[0].id}`, { keep: 'local' })).status, 200)
  await sync()
  t.equal((await cloud.req('GET', `${CW}/project/taxonomy`)).body.labels.find((l: any) => l.id === urgent.id).name, 'urgent-desk', 'the kept local value reaches the portal')
  t.equal((await status()).reviews, 0)
})

let cloudRid = ''
t.test('edges sync both ways: made offline between provisional ids, tombstoned on each side', async (t) => {
  const a = await create('edge from')
  const b = await create('edge to')
  const e = await owner('POST', '/v1/projects/edges', { idempotency_key: randomUUID(), from_id: a.id, to_id: b.id, relation: 'blocks' })
  t.equal(e.status, 201, JSON.stringify(e.body))
  t.equal(e.headers['x-lookout-sync'], undefined)
  await sync()
  const tasks = await desktopTasks(desk)
  const [ca, cb] = ['edge from', 'edge to'].map((x) => tasks.find((y) => y.title === x).id)
  const there = (await cloud.req('GET', `/v1/projects/edges?item_id=${ca}`)).body.items
  t.same(there.map((x: any) => [x.from_id, x.to_id, x.relation]), [[ca, cb, 'blocks']], 'on the cloud between the canonical ids')
  const here = (await owner('GET', `/v1/projects/edges?item_id=${ca}`)).body.items
  t.same(here.map((x: any) => x.id), [there[0].id], 'the edge took the canonical id')
  // The cloud's edge comes here; each side tombstones one.
  const made = await cloud.req('POST', '/v1/projects/edges', { idempotency_key: randomUUID(), from_id: cb, to_id: ca, relation: 'relates_to' })
  t.equal(made.status, 201, JSON.stringify(made.body))
  await sync()
  t.ok((await owner('GET', `/v1/projects/edges?item_id=${ca}`)).body.items.some((x: any) => x.id === made.body.id), 'the cloud\'s edge came back')
  t.equal((await owner('DELETE', `/v1/projects/edges/${e.body.id}`, { idempotency_key: randomUUID(), revision: here[0].revision })).status, 200, 'tombstoned here by its old id')
  t.equal((await cloud.req('DELETE', `/v1/projects/edges/${made.body.id}`, { idempotency_key: randomUUID(), revision: made.body.revision })).status, 200)
  await sync()
  t.same((await cloud.req('GET', `/v1/projects/edges?item_id=${ca}`)).body.items, [], 'no live edge on the cloud')
  t.same((await owner('GET', `/v1/projects/edges?item_id=${ca}`)).body.items, [], 'no live edge on the desktop')
  t.equal((await owner('GET', `/v1/projects/edges?item_id=${ca}&deleted=true`)).body.items.length, 2, 'both tombstones here')
  const s = await status()
  t.equal(s.conflicts, 0)
  t.equal(s.pending_operations, 0)
})

t.test('portal notifications: scopes required, first import silent, source labelled, opening marks read', async (t) => {
  const rid = (await owner('GET', `/v1/workspaces/${desk.workspaceId}/resources?external_id=web-1`)).body.items[0].id
  const cr = await cloud.req('POST', `${CW}/resources`, { external_id: 'web-1', name: 'web 1', kind: 'server' })
  t.equal(cr.status, 201)
  cloudRid = cr.body.id
  const noScope = await owner('POST', '/v1/notifications/refresh')
  t.equal(noScope.status, 403, 'a token connected without the notification scopes')
  t.equal(noScope.body.error.code, 'LOOKOUT_PORTAL_RECONNECT_REQUIRED')
  t.match(noScope.body.error.message, /reconnect/)

  const port = await closedPort()
  const check = await cloud.req('POST', `${CW}/resources/${cloudRid}/monitoring`, {
    name: 'web port', kind: 'tcp', configuration: { host: '127.0.0.1', port, interval_seconds: 1, timeout_seconds: 1 },
  })
  t.equal(check.status, 200)
  await until('a portal incident', async () => (await cloud.req('GET', `${CW}/resources/${cloudRid}/monitoring?view=incidents`)).body.items, (i) => i.length > 0)

  const full = await cli(desk.env, ['token', 'create', '--workspace', cloud.workspaceId, '--scopes',
    'project:read,project:write,resources:write,logs:read,logs:write,monitor:read,notifications:read,notifications:write'].map((x) => x), { LOOKOUT_DATA_DIR: cloud.dir })
  t.equal(full.code, 0, full.stderr)
  // The token from standard input (--token -), so it never appears in the process list.
  const again = await cli(desk.env, ['portal', 'connect', '--url', cloud.url, '--token', '-'], {}, full.stdout)
  t.equal(again.code, 0, again.stderr)
  const first = await owner('POST', '/v1/notifications/refresh')
  t.equal(first.status, 200, JSON.stringify(first.body))
  t.equal(first.body.imported, 1)
  t.equal(first.body.first_import, true)
  const list = await owner('GET', '/v1/notifications')
  const item = list.body.items.find((n: any) => n.source === 'portal')
  t.match(item, { source: 'portal', kind: 'incident.opened', state: 'unread', resource_id: rid, incident_state: 'open', title: 'web 1 is down (portal)' })
  t.equal(list.body.sources.portal.connected, true)
  t.ok(list.body.sources.portal.refreshed_at, 'portal freshness')
  t.equal(list.body.sources.portal.items, 1)
  const unread = list.body.unread_count
  t.ok(unread >= 1)

  // Recovery on the portal: the second import is not silent.
  t.teardown(await acceptingOn(port))
  await until('the portal incident closes', async () => (await cloud.req('GET', `${CW}/resources/${cloudRid}/monitoring?view=incidents`)).body.items, (i) => i[0]?.state === 'closed')
  // The portal's inbox gets the recovery once its dispatcher has handled the closed incident.
  const second = await until('the recovery in the portal inbox', () => owner('POST', '/v1/notifications/refresh'), (r) => r.body.imported > 0)
  t.equal(second.body.imported, 1)
  t.equal(second.body.first_import, false)
  const shown = (text: string) => bus.calls.some((c) => `${c.summary} ${c.body}`.includes(text))
  await until('the recovery toast', async () => shown('web 1 recovered (portal)'), (yes) => yes, 30_000)
  t.notOk(shown('web 1 is down (portal)'), 'no toast for the first (silent) import')
  const after = (await owner('GET', '/v1/notifications')).body
  t.equal(after.items.find((n: any) => n.id === item.id).incident_state, 'closed')
  const read = await owner('POST', '/v1/notifications/actions', { action: 'read', id: item.id })
  t.equal(read.status, 200)
  t.equal(read.body.item.state, 'read', 'opening the alert marks it read')
  t.equal(read.body.unread_count, after.unread_count - 1)
  await cloud.req('POST', `${CW}/resources/${cloudRid}/monitoring`, { id: check.body.id, enabled: false })
})

t.test('portal reads: the cloud\'s data for the mapped resource online; offline they fail and never return local rows', async (t) => {
  const rid = (await owner('GET', `/v1/workspaces/${desk.workspaceId}/resources?external_id=web-1`)).body.items[0].id
  const cr = { body: { id: cloudRid } }
  const now = new Date().toISOString()
  t.equal((await cloud.req('POST', `${CW}/resources/${cr.body.id}/logs`, { events: [{ message: 'from the cloud', severity: 'ERROR', timestamp: now }] })).status, 200)
  const local = await owner('POST', '/v1/logs', { resource_id: rid, events: [{ id: 'l1', timestamp: now, severity: 'error', message: 'only local', attributes: {} }] })
  t.equal(local.status, 200)
  const logs = await (async () => {
    const deadline = Date.now() + 30_000
    for (;;) {
      const r = await owner('GET', `/v1/portal/logs?resource_id=${rid}`)
      if (r.status === 200 && r.body.events.length > 0) return r
      if (Date.now() > deadline) throw new Error(`portal logs: ${JSON.stringify(r.body)}`)
      await new Promise((res) => setTimeout(res, 200))
    }
  })()
  t.equal(logs.body.source, 'portal')
  t.equal(logs.body.portal_resource_id, cr.body.id, 'mapped by external_id')
  t.same(logs.body.events.map((e: any) => e.message), ['from the cloud'], 'the cloud\'s rows, not the local one')
  const mon = await owner('GET', `/v1/portal/monitoring?resource_id=${rid}`)
  t.equal(mon.status, 200)
  t.equal(mon.body.source, 'portal')
  t.equal(mon.body.resource_id, rid)

  // Owner only: a grant acting over the socket is refused.
  const g = await desk.grant(['project:read', 'project:write', 'logs:read', 'monitor:read'])
  for (const [m, p] of [['POST', '/v1/notifications/refresh'], ['POST', '/v1/portal/connection'], ['GET', '/v1/portal/connection'], ['POST', '/v1/portal/sync'], ['GET', `/v1/portal/logs?resource_id=${rid}`], ['DELETE', '/v1/portal/connection']] as const) {
    const r = await owner(m, p, undefined, { 'x-lookout-act-as-grant': g.id })
    t.equal(r.status, 403, `${m} ${p} refuses a grant`)
  }

  // And over the loopback listener, with a bearer grant holding every scope the reads would need.
  const port = await freePort()
  const rev = (await owner('GET', '/v1/settings')).body.revision
  t.equal((await owner('PATCH', '/v1/settings', { revision: rev, loopback_enabled: true, loopback_port: port })).status, 200)
  const all = await desk.grant(['project:read', 'project:write', 'logs:read', 'monitor:read', 'notifications:read', 'notifications:write'])
  for (const [m, p] of [['GET', '/v1/portal/connection'], ['POST', '/v1/portal/sync'], ['GET', `/v1/portal/logs?resource_id=${rid}`],
    ['GET', `/v1/portal/monitoring?resource_id=${rid}`], ['POST', '/v1/notifications/refresh'], ['GET', '/v1/portal/conflicts'], ['GET', '/v1/portal/reviews']] as const) {
    const r = await httpReq(`http://127.0.0.1:${port}`, m, p, undefined, { authorization: `Bearer ${all.token}` })
    t.equal(r.status, 403, `${m} ${p} refuses an HTTP grant`)
  }

  await cloud.kill()
  const off = await owner('GET', `/v1/portal/logs?resource_id=${rid}`)
  t.equal(off.status, 503)
  t.equal(off.body.error.code, 'LOOKOUT_PORTAL_OFFLINE')
  t.notOk(JSON.stringify(off.body).includes('only local'), 'no local rows in place of the portal\'s')
  t.equal((await owner('GET', `/v1/portal/monitoring?resource_id=${rid}`)).status, 503)
  await create('made while the portal is down')
  const round = await sync()
  t.equal(round.state, 'offline')
  const s = await status()
  t.equal(s.state, 'offline')
  t.ok(s.pending_operations >= 1, 'the change waits in the outbox')
  t.ok(s.last_error)
  await cloud.restart()
  await sync()
  t.equal((await status()).state, 'connected')
  t.equal((await cloudTasks(cloud)).filter((x) => x.title === 'made while the portal is down').length, 1)
})

t.test('disconnect forgets the token; the CLI says disconnected', async (t) => {
  const r = await cli(desk.env, ['portal', 'disconnect'])
  t.equal(r.code, 0, r.stderr)
  t.equal((await status()).state, 'disconnected')
  const rid = (await owner('GET', `/v1/workspaces/${desk.workspaceId}/resources?external_id=web-1`)).body.items[0].id
  const r2 = await owner('GET', `/v1/portal/monitoring?resource_id=${rid}`)
  t.equal(r2.status, 503, 'portal reads fail without a connection')
  t.equal(r2.body.error.code, 'LOOKOUT_PORTAL_OFFLINE')
})
