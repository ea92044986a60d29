// Deleting a check (the console's check form; POST …/monitoring/actions with
// action delete, a Lookout extension): at the revision the caller saw, the
// check and its observations go, its open incident closes with a delivered
// recovery notice (so reminders and escalation stop), and no probe of it lands
// afterwards; its incidents stay as history.
import t from 'tap'
import { closedPort, startHttpReceiver, waitFor } from '../alerting/alerts/receivers.ts'
import { tcpCheck, verifiedWebhook, startOnCallLookout } from '../helpers/on-call.ts'

const http = await startHttpReceiver()
const lk = await startOnCallLookout()
t.teardown(async () => {
  await lk.stop()
  await http.close()
})
const rid = await lk.resource('doomed')
const other = await lk.resource('bystander')
const M = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`
await verifiedWebhook(lk, rid, http, '/hook')

t.test('an open incident closes with a delivered notice; the check, its observations and its probes are gone', async (t) => {
  const id = await tcpCheck(lk, rid, await closedPort())
  const opened = await waitFor(() => http.on('/hook').find((r) => r.json?.type === 'incident.opened')?.json, 'the opening alert')
  const check = (await lk.req('GET', M)).body.checks.find((c: { id: string }) => c.id === id)
  const stale = await lk.req('POST', `${M}/actions`, { id, revision: check.revision + 1, action: 'delete' })
  t.equal(stale.status, 409, 'a revision the caller did not see is refused')
  const elsewhere = await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${other}/monitoring/actions`, { id, revision: check.revision, action: 'delete' })
  t.equal(elsewhere.status, 404, 'a check of another resource is not found there')
  const r = await lk.req('POST', `${M}/actions`, { id, revision: check.revision, action: 'delete' })
  t.equal(r.status, 200, JSON.stringify(r.body))
  t.same(r.body, { id, deleted: true, closed_incident_id: opened.incident.id })
  const closed = await waitFor(() => http.on('/hook').find((x) => x.json?.type === 'incident.closed')?.json, 'the closing notice')
  t.equal(closed.incident.id, opened.incident.id)
  t.match(JSON.stringify(closed), /the check was deleted/)
  t.notOk((await lk.req('GET', M)).body.checks.some((c: { id: string }) => c.id === id), 'not listed')
  const history = (await lk.req('GET', `${M}?view=incidents`)).body.items.find((i: { id: string }) => i.id === opened.incident.id)
  t.match(history, { state: 'closed', close_reason: 'the check was deleted' }, 'the incident stays, closed')
  t.equal((await lk.req('POST', `${M}/actions`, { id, revision: check.revision, action: 'delete' })).status, 404, 'deleted once')
  // Probes in flight or scheduled before the monitor dropped it are fenced out: nothing lands.
  const count = async () => Number((await lk.lookout.db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_results WHERE check_id = $1', [id])).rows[0]?.n)
  t.equal(await count(), 0, 'its observations are gone')
  await new Promise((ok) => setTimeout(ok, 3000))
  t.equal(await count(), 0, 'no observation of it after three intervals')
})

t.test('a check without an incident is deleted without a notice', async (t) => {
  const created = await lk.req('POST', M, { name: 'quiet', kind: 'heartbeat', configuration: { interval_seconds: 3600 } })
  const before = http.on('/hook').length
  const r = await lk.req('POST', `${M}/actions`, { id: created.body.id, revision: created.body.revision, action: 'delete' })
  t.same(r.body, { id: created.body.id, deleted: true, closed_incident_id: null })
  t.equal(http.on('/hook').length, before, 'nothing sent')
  t.equal((await lk.req('POST', `${M}/actions`, { id: created.body.id, revision: 1, action: 'erase' })).status, 422, 'only the listed actions')
})
