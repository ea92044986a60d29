// The portal's own notifications on a connected desktop: the cloud serves its
// inbox on the desktop notification path (scopes notifications:read/write,
// limits at their edges), the desktop mirrors all of it (resources it does not
// have included), labels the source, marks read both ways, and offline fails
// without substituting local rows. A cloud `lookout serve` and a `lookout
// desktop`, each a child process on its own data directory.
import t from 'tap'
import { callAdmin } from '../../../deploy/index.ts'
import { httpReq } from '../desktop-helpers.ts'
import { cli, closedPort, startCloud, startPortalDesktop, until } from './portal-helpers.ts'

const cloud = await startCloud()
t.teardown(() => cloud.stop())
const desk = await startPortalDesktop()
t.teardown(() => desk.stop())
const { owner } = desk
const CW = `/v1/workspaces/${cloud.workspaceId}`
const FEED = `${CW}/desktop/notifications`

async function cloudToken(scopes: string[], resources: 'all' | string[] = 'all'): Promise<string> {
  return (await callAdmin(cloud.dir, 'POST', '/admin/tokens', { workspace: cloud.workspaceId, resources, name: 'n', scopes }) as { token: string }).token
}
const FULL = ['project:read', 'project:write', 'resources:write', 'logs:read', 'logs:write', 'monitor:read', 'notifications:read', 'notifications:write']
const full = await cloudToken(FULL)
const asFull = (method: string, path: string, body?: unknown) => httpReq(cloud.url, method, path, body, { authorization: `Bearer ${full}` })

// Two portal resources with failing checks: web-1 exists on the desktop too (same external_id), db-9 only on the portal.
const localRid = await desk.resource('web-1')
const rids: Record<string, string> = {}
for (const ext of ['web-1', 'db-9']) {
  const r = await cloud.req('POST', `${CW}/resources`, { external_id: ext, name: ext.replace('-', ' '), kind: 'server' })
  rids[ext] = r.body.id
  const port = await closedPort()
  const c = await cloud.req('POST', `${CW}/resources/${r.body.id}/monitoring`, {
    name: 'port', kind: 'tcp', configuration: { host: '127.0.0.1', port, interval_seconds: 1, timeout_seconds: 1 },
  })
  if (c.status !== 200) throw new Error(`check: ${c.status} ${JSON.stringify(c.body)}`)
}
await until('two portal notifications', async () => (await asFull('GET', FEED)).body.items ?? [], (i: unknown[]) => i.length >= 2)

t.test('the cloud feed: scopes, a personal token, limits at their edges, paging', async (t) => {
  const all = await asFull('GET', FEED)
  t.equal(all.status, 200)
  t.equal(all.body.workspace_id, cloud.workspaceId)
  t.ok(all.body.items.length >= 2)
  t.match(all.body.items[0], { kind: 'incident.opened', state: 'unread', resource: { external_id: String, name: String } })
  t.equal(all.body.unread_count, all.body.items.length)
  // Only notifications:read reads it; a resource-scoped token cannot.
  const noScope = await cloud.req('GET', FEED)
  t.equal(noScope.status, 403, 'the connection token of the desktop lacks notifications:read')
  t.equal(noScope.body.detail[0].type, 'LOOKOUT_FORBIDDEN')
  const scoped = await cloudToken(['notifications:read', 'notifications:write'], [rids['web-1'] as string])
  t.equal((await httpReq(cloud.url, 'GET', FEED, undefined, { authorization: `Bearer ${scoped}` })).status, 403, 'a resource-scoped token')
  const readOnly = await cloudToken(['notifications:read'])
  const ro = await httpReq(cloud.url, 'POST', `${FEED}/actions`, { action: 'read_all' }, { authorization: `Bearer ${readOnly}` })
  t.equal(ro.status, 403, 'actions need notifications:write')
  // Limits: 1..500, cursors are digits, unknown properties refused.
  for (const q of ['limit=0', 'limit=501', 'after=x', 'after=12345678901234567890', 'page=1']) {
    const r = await asFull('GET', `${FEED}?${q}`)
    t.equal(r.status, 422, q)
    t.ok(Array.isArray(r.body.detail) && r.body.detail[0].loc[0] === 'query', `${q}: ${JSON.stringify(r.body)}`)
  }
  t.equal((await asFull('GET', `${FEED}?limit=500`)).status, 200)
  const one = await asFull('GET', `${FEED}?limit=1`)
  t.equal(one.body.items.length, 1)
  t.type(one.body.next_cursor, 'string')
  const two = await asFull('GET', `${FEED}?limit=1&after=${one.body.next_cursor}`)
  t.not(two.body.items[0].id, one.body.items[0].id, 'the next page')
  const bad = await asFull('POST', `${FEED}/actions`, { action: 'read', id: one.body.items[0].id, extra: 1 })
  t.equal(bad.status, 422)
  t.equal((await asFull('POST', `${FEED}/actions`, { action: 'read' })).status, 422, 'read needs an id')
  t.equal((await asFull('POST', `${FEED}/actions`, { action: 'read_all', id: one.body.items[0].id })).status, 422, 'read_all takes none')
  t.equal((await asFull('POST', `${FEED}/actions`, { action: 'read', id: '00000000-0000-4000-8000-000000000000' })).status, 404)
})

t.test('the desktop mirrors the portal inbox: every alert, labelled, read both ways', async (t) => {
  const connect = await cli(desk.env, ['portal', 'connect', '--url', cloud.url, '--token', '-'], {}, full)
  t.equal(connect.code, 0, connect.stderr)
  const first = await owner('POST', '/v1/notifications/refresh')
  t.equal(first.status, 200, JSON.stringify(first.body))
  const portalItems = (await asFull('GET', FEED)).body.items as any[]
  t.equal(first.body.imported, portalItems.length, 'all of the portal inbox')
  t.equal(first.body.first_import, true)
  const list = (await owner('GET', '/v1/notifications?limit=50')).body
  const mine = list.items.filter((n: any) => n.source === 'portal')
  t.same(mine.map((n: any) => n.id).sort(), portalItems.map((n) => n.id).sort(), 'the portal\'s entries, by the portal\'s ids')
  t.notOk(list.items.some((n: any) => n.source === 'local'), 'no local alert stands in for them')
  const web = mine.find((n: any) => n.title.startsWith('web 1'))
  const db9 = mine.find((n: any) => n.title.startsWith('db 9'))
  t.match(web, { source: 'portal', resource_id: localRid, state: 'unread', incident_state: 'open', title: 'web 1 is down (portal)' }, 'mapped to the local resource')
  t.match(db9, { source: 'portal', resource_id: null, state: 'unread' }, 'a portal resource the desktop does not have is still covered')
  t.equal(list.sources.portal.items, portalItems.length)

  // Desktop → portal: reading it here reads it on the portal.
  const read = await owner('POST', '/v1/notifications/actions', { action: 'read', id: web.id })
  t.equal(read.status, 200, JSON.stringify(read.body))
  t.equal(read.body.item.state, 'read')
  const onPortal = (await asFull('GET', FEED)).body.items.find((n: any) => n.id === web.id)
  t.equal(onPortal.state, 'read', 'the portal has it read')
  // Portal → desktop: archived on the portal, the next refresh says so here.
  t.equal((await asFull('POST', `${FEED}/actions`, { action: 'archive', id: db9.id })).status, 200)
  const again = await owner('POST', '/v1/notifications/refresh')
  t.equal(again.body.imported, 0)
  t.equal(again.body.first_import, false)
  const archived = (await owner('GET', '/v1/notifications?filter=archived')).body.items
  t.ok(archived.some((n: any) => n.id === db9.id), 'archived on the portal, archived here')
  // Unread again from here: the portal follows.
  t.equal((await owner('POST', '/v1/notifications/actions', { action: 'unread', id: web.id })).body.item.state, 'unread')
  t.equal((await asFull('GET', FEED)).body.items.find((n: any) => n.id === web.id).state, 'unread')
  // read_all: local entries here, the portal's on the portal.
  const all = await owner('POST', '/v1/notifications/actions', { action: 'read_all' })
  t.equal(all.status, 200)
  t.type(all.body.portal.updated, 'number')
  t.equal((await asFull('GET', FEED)).body.unread_count, 0, 'read on the portal')
})

t.test('offline: refresh and portal actions fail, nothing changes, local rows are never substituted', async (t) => {
  const before = (await owner('GET', '/v1/notifications?limit=50')).body
  const entry = before.items.find((n: any) => n.source === 'portal')
  await cloud.kill()
  const refresh = await owner('POST', '/v1/notifications/refresh')
  t.equal(refresh.status, 503)
  t.equal(refresh.body.error.code, 'LOOKOUT_PORTAL_OFFLINE')
  const act = await owner('POST', '/v1/notifications/actions', { action: 'unread', id: entry.id })
  t.equal(act.status, 503, 'the portal\'s entry is the portal\'s to mark')
  const after = (await owner('GET', '/v1/notifications?limit=50')).body
  t.equal(after.items.find((n: any) => n.id === entry.id).state, entry.state, 'unchanged here')
  t.same(after.items.map((n: any) => [n.id, n.source]), before.items.map((n: any) => [n.id, n.source]), 'the same labelled entries, nothing local in their place')
  const all = await owner('POST', '/v1/notifications/actions', { action: 'read_all' })
  t.equal(all.status, 200)
  t.equal(all.body.portal.error.code, 'LOOKOUT_PORTAL_OFFLINE', 'the answer says the portal\'s were not marked')
  await cloud.restart()
})
