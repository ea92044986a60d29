// The local notification inbox: incidents become notifications through the
// monitor outbox; listing (personal grant, never marks read, filters, query,
// pages); owner actions; toasts claimed before shown and never replayed;
// notification_toasts off keeps the inbox; 90-day expiry spares open incidents;
// the portal refresh fails offline.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { expireNotifications, Toaster, type Toast } from '../../../alerting/internal.ts'
import { startTestLookout } from '../../helpers/lookout.ts'
import { closedPort, waitFor } from '../alerts/receivers.ts'

const toasts: Toast[] = []
const lk = await startTestLookout({ deliveries: { onToast: (x) => void toasts.push(x) } })
t.teardown(() => lk.stop())
const rid = await lk.resource('inbox-service')
const N = '/v1/notifications'
const owner = lk.ownerReq
const W = `workspace_id=${lk.workspaceId}`

/** Writes incident events into the monitor's outbox, as its writer does; the dispatcher turns them into notifications. */
async function outboxEvents(n: number, type: 'incident.opened' | 'incident.closed', name: (i: number) => string): Promise<string[]> {
  const ids: string[] = []
  for (let i = 0; i < n; i++) {
    const eventId = randomUUID()
    const incident = randomUUID()
    const check = randomUUID()
    const at = new Date(Date.now() - (n - i) * 1000).toISOString()
    const payload = {
      schema_version: 1, event_id: eventId, type, occurred_at: at, workspace_id: lk.workspaceId, resource_id: rid, incident_id: incident,
      check: { id: check, name: name(i), kind: 'https', required: i % 2 === 0 }, health: type === 'incident.opened' ? 'unhealthy' : 'healthy',
      previous_health: 'healthy', reason: `reason ${i}`, code: 'HTTP_STATUS', latency_ms: 12, opened_at: at, closed_at: type === 'incident.closed' ? at : null,
    }
    await lk.lookout.db.query(
      `INSERT INTO monitor_outbox (event_id, type, workspace_id, resource_id, check_id, incident_id, occurred_at, payload) VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb)`,
      [eventId, type, lk.workspaceId, rid, check, incident, at, JSON.stringify(payload)])
    ids.push(eventId)
  }
  await waitFor(async () => (await lk.lookout.db.query('SELECT 1 FROM monitor_outbox WHERE processed_at IS NULL')).rows.length === 0, 'outbox dispatched')
  return ids
}

let openIncident = ''

t.test('an incident becomes one unread notification and one toast', async (t) => {
  const port = await closedPort()
  const check = await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`, {
    name: 'web port', kind: 'tcp', configuration: { host: '127.0.0.1', port, interval_seconds: 1, timeout_seconds: 1 },
  })
  t.equal(check.status, 200)
  const item = await waitFor(async () => (await owner('GET', `${N}?${W}`)).body.items.find((n: { kind: string }) => n.kind === 'incident.opened'), 'the notification')
  t.match(item, { source: 'local', state: 'unread', severity: 'critical', title: 'inbox-service is down', resource_id: rid, incident_state: 'open' })
  openIncident = item.incident_id
  const toast = await waitFor(() => toasts.find((x) => x.id === item.id), 'the toast')
  t.match(toast, { title: 'inbox-service is down', severity: 'critical', workspace_id: lk.workspaceId })
  const row = await lk.lookout.db.query<{ toast_claimed_at: Date | null; toast_state: string }>('SELECT toast_claimed_at, toast_state FROM notifications WHERE id = $1', [item.id])
  t.ok(row.rows[0]?.toast_claimed_at !== null, 'claimed')
  t.equal(row.rows[0]?.toast_state, 'shown')
  // A restarted service (a fresh toaster) finds nothing to show again.
  t.equal(await new Toaster(lk.lookout.db, { sink: (x) => void toasts.push(x) }).step(), 0)
  // The probe keeps failing (two more observations) while the incident stays open; once the outbox and
  // the toast queue are drained, there is still one notification and one toast.
  const results = async () => (await lk.lookout.db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_results WHERE check_id = $1', [check.body.id])).rows[0]?.n ?? 0
  const seen = await results()
  await waitFor(async () => (await results()) >= seen + 2, 'two more failed observations')
  await waitFor(async () => (await lk.lookout.db.query(
    'SELECT 1 FROM monitor_outbox WHERE processed_at IS NULL UNION ALL SELECT 1 FROM notifications WHERE toast_claimed_at IS NULL')).rows.length === 0, 'outbox and toasts drained')
  const opened = await lk.lookout.db.query('SELECT 1 FROM notifications WHERE incident_id = $1', [openIncident])
  t.equal(opened.rows.length, 1, 'one notification for the open incident')
  t.equal(toasts.filter((x) => x.notification.incident_id === openIncident).length, 1, 'no repeated toast while the incident stays open')
  await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`, { id: check.body.id, enabled: false })
})

t.test('listing: personal grant with notifications:read; never marks read; filters, query, pages and limits', async (t) => {
  await outboxEvents(44, 'incident.closed', (i) => `probe-${String(i).padStart(2, '0')}`)
  const personal = await lk.token_(['notifications:read'])
  const scoped = await lk.token_(['notifications:read'], [rid])
  const noScope = await lk.token_(['monitor:read'])
  const as = (tok: string) => ({ authorization: `Bearer ${tok}` })
  const first = await lk.req('GET', N, undefined, as(personal))
  t.equal(first.status, 200)
  t.equal(first.body.items.length, 20, 'limit defaults to 20')
  t.equal(first.body.next_page, 2)
  t.same(Object.keys(first.body).sort(), ['items', 'next_page'], 'a token sees items and next_page only')
  const forbidden = await lk.req('GET', N, undefined, as(scoped))
  t.equal(forbidden.status, 403, 'a resource-scoped grant cannot read notifications')
  t.equal(forbidden.body.error.code, 'LOOKOUT_FORBIDDEN')
  t.equal((await lk.req('GET', N, undefined, as(noScope))).status, 403)
  t.equal((await lk.req('GET', N, undefined, { authorization: '' })).status, 401)
  const again = await lk.req('GET', N, undefined, as(personal))
  t.ok(again.body.items.every((n: { state: string }) => n.state === 'unread'), 'reading the list marks nothing read')
  const all: string[] = []
  for (let page = 1; ; page++) {
    const r = await lk.req('GET', `${N}?limit=50&page=${page}`, undefined, as(personal))
    t.ok(r.body.items.length <= 50)
    all.push(...r.body.items.map((n: { id: string }) => n.id))
    if (r.body.next_page === null) break
    t.equal(r.body.next_page, page + 1)
  }
  t.equal(all.length, 45, '44 recoveries and the open incident')
  t.equal(new Set(all).size, 45)
  t.equal((await lk.req('GET', `${N}?limit=51`, undefined, as(personal))).status, 400)
  t.equal((await lk.req('GET', `${N}?limit=0`, undefined, as(personal))).status, 400)
  t.equal((await lk.req('GET', `${N}?page=0`, undefined, as(personal))).status, 400)
  t.equal((await lk.req('GET', `${N}?filter=starred`, undefined, as(personal))).status, 400)
  t.equal((await lk.req('GET', `${N}?page=99`, undefined, as(personal))).body.items.length, 0)
  const found = await lk.req('GET', `${N}?query=probe-07`, undefined, as(personal))
  t.equal(found.body.items.length, 1)
  t.match(found.body.items[0], { title: 'inbox-service recovered', severity: 'info', incident_state: 'closed' })
  t.match(found.body.items[0].body, /probe-07/)
  t.equal((await lk.req('GET', `${N}?query=${encodeURIComponent('100%_')}`, undefined, as(personal))).body.items.length, 0, 'LIKE wildcards are literal')
  const one = await lk.req('GET', `${N}?notification_id=${found.body.items[0].id}`, undefined, as(personal))
  t.same(one.body.items.map((n: { id: string }) => n.id), [found.body.items[0].id])
  const ownerView = await owner('GET', `${N}?${W}`)
  t.equal(ownerView.body.unread_count, 45)
  t.match(ownerView.body.sources, { local: { state: 'current' }, portal: { connected: false, state: 'offline' } })
})

t.test('owner actions: read, unread, archive, restore, read_all', async (t) => {
  const list = (await owner('GET', `${N}?${W}&limit=3`)).body.items
  const [a, b] = list
  const act = (body: unknown) => owner('POST', `${N}/actions?${W}`, body)
  t.equal((await lk.req('POST', `${N}/actions`, { action: 'read', id: a.id })).status, 403, 'not for HTTP grants')
  const read = await act({ action: 'read', id: a.id })
  t.equal(read.status, 200)
  t.match(read.body, { item: { id: a.id, state: 'read' }, unread_count: 44 })
  t.match((await act({ action: 'unread', id: a.id })).body.item, { state: 'unread', read_at: null })
  t.match((await act({ action: 'archive', id: b.id })).body.item, { state: 'archived' })
  const archived = await owner('GET', `${N}?${W}&filter=archived`)
  t.same(archived.body.items.map((n: { id: string }) => n.id), [b.id])
  t.notOk((await owner('GET', `${N}?${W}&limit=50`)).body.items.some((n: { id: string }) => n.id === b.id), 'archived leaves the inbox')
  t.match((await act({ action: 'restore', id: b.id })).body.item, { state: 'unread', archived_at: null }, 'restored to the inbox')
  await act({ action: 'read', id: b.id })
  const unread = await owner('GET', `${N}?${W}&filter=unread&limit=50`)
  t.notOk(unread.body.items.some((n: { id: string }) => n.id === b.id))
  const all = await act({ action: 'read_all' })
  t.match(all.body, { action: 'read_all', updated: 44, unread_count: 0 })
  t.equal((await owner('GET', `${N}?${W}&filter=unread`)).body.items.length, 0)
  t.equal((await act({ action: 'read' })).status, 400, 'an id is needed')
  t.equal((await act({ action: 'read_all', id: a.id })).status, 400)
  t.equal((await act({ action: 'read', id: randomUUID() })).status, 404)
  t.equal((await act({ action: 'star', id: a.id })).status, 400)
})

t.test('notification_toasts off: no toast, the inbox still fills', async (t) => {
  t.same((await owner('GET', `${N}/settings?${W}`)).body, { notification_toasts: true })
  t.same((await owner('PUT', `${N}/settings?${W}`, { notification_toasts: false })).body, { notification_toasts: false })
  t.equal((await owner('PUT', `${N}/settings?${W}`, {})).status, 400)
  t.equal((await lk.req('PUT', `${N}/settings`, { notification_toasts: true })).status, 403)
  const before = toasts.length
  const [id] = await outboxEvents(1, 'incident.closed', () => 'quiet-probe')
  const item = await waitFor(async () => (await owner('GET', `${N}?${W}&query=quiet-probe`)).body.items[0], 'the quiet notification')
  t.ok(item && id)
  await waitFor(async () => (await lk.lookout.db.query<{ toast_state: string }>('SELECT toast_state FROM notifications WHERE id = $1', [item.id])).rows[0]?.toast_state, 'claimed')
  const state = await lk.lookout.db.query<{ toast_state: string }>('SELECT toast_state FROM notifications WHERE id = $1', [item.id])
  t.equal(state.rows[0]?.toast_state, 'disabled')
  t.equal(toasts.length, before, 'no toast')
  await owner('PUT', `${N}/settings?${W}`, { notification_toasts: true })
  t.equal(await new Toaster(lk.lookout.db, { sink: (x) => void toasts.push(x) }).step(), 0, 'switching toasts back on replays nothing')
})

t.test('history expires after 90 days, except notifications of open incidents', async (t) => {
  const removed = await expireNotifications(lk.lookout.db, Date.now() + 91 * 86_400_000)
  t.ok(removed >= 45)
  const left = await owner('GET', `${N}?${W}&limit=50`)
  t.same(left.body.items.map((n: { incident_id: string }) => n.incident_id), [openIncident], 'the open incident\'s notification stays')
  t.equal(await expireNotifications(lk.lookout.db, Date.now() + 30 * 86_400_000), 0, 'nothing younger than 90 days goes')
})

t.test('the portal refresh fails offline and never substitutes local results', async (t) => {
  const r = await owner('POST', `${N}/refresh?${W}`)
  t.equal(r.status, 503)
  t.equal(r.body.error.code, 'LOOKOUT_PORTAL_OFFLINE')
  t.equal((await lk.req('POST', `${N}/refresh`)).status, 403)
})
