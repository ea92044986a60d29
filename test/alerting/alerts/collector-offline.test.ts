// A collector that stops reporting is an incident of its resource like a failing
// check: the silence watch opens it, alert routing sends it to the resource's
// verified destinations (a real webhook receiver) and the inbox shows it; the
// collector's next contact closes it and the recovery is sent the same way.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { CollectorWatch } from '../../../monitor/index.ts'
import { startTestLookout } from '../../helpers/lookout.ts'
import { startHttpReceiver, waitFor } from './receivers.ts'

const http = await startHttpReceiver()
const lk = await startTestLookout({ env: { LOOKOUT_ALLOW_PRIVATE_DESTINATIONS: '1' }, deliveries: { onToast: () => undefined } })
t.teardown(async () => {
  await lk.stop()
  await http.close()
})

const rid = await lk.resource('branch-office')
const M = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`
const A = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/alerts`
const alerts = (operation: string, values: Record<string, unknown>) => lk.req('POST', A, { operation, values: { operation_id: randomUUID(), ...values } })
const on = (path: string, n: number) => waitFor(() => {
  const got = http.on(path)
  return got.length >= n ? got[n - 1]?.json : undefined
}, `request ${n} on ${path}`)

t.test('a silent collector is alerted as a warning incident; its return closes it', async (t) => {
  const saved = await alerts('save_destination', { channel: 'webhook', address: `${http.url}/site`, label: 'site hook' })
  t.equal(saved.status, 200)
  const dest = saved.body.destination.id
  t.equal((await alerts('request_verification', { id: dest })).status, 200)
  t.equal((await alerts('verify_destination', { id: dest, code: (await on('/site', 1)).code })).status, 200)

  const enrolled = await lk.req('POST', `${M}/sources`, { action: 'enroll', name: 'dc-1', kind: 'collector' })
  const sourceId: string = enrolled.body.source.id
  const collector = { authorization: `Bearer ${enrolled.body.token}` }
  const check = await lk.req('POST', M, {
    name: 'db port', kind: 'tcp', location: 'collector', source_id: sourceId, configuration: { host: '10.0.0.5', port: 5432, interval_seconds: 60 },
  })
  t.equal(check.status, 200)
  t.equal((await lk.req('GET', '/v1/collector/checks', undefined, collector)).status, 200, 'first contact')
  // Silent for 10 minutes: past max(60 s, 3 x 60 s).
  await lk.lookout.db.query(`UPDATE monitor_sources SET last_contact_at = now() - interval '10 minutes' WHERE id = $1`, [sourceId])
  t.same(await new CollectorWatch(lk.lookout.db).step(), [sourceId], 'declared offline')

  const opened = await on('/site', 2)
  t.equal(opened.type, 'incident.opened')
  t.match(opened.incident, {
    kind: 'collector_offline', severity: 'warning', state: 'open', check: null, source: { id: sourceId, name: 'dc-1' },
    code: 'LOOKOUT_PROBE_COLLECTOR_SILENT', reason: /collector "dc-1" has not reported for over 180 s/,
  })
  t.match(opened.resource, { id: rid, name: 'branch-office' })
  const incidentId: string = opened.incident.id
  const listed = (await lk.req('GET', `${M}?view=incidents`)).body.items.find((i: { id: string }) => i.id === incidentId)
  t.match(listed, { kind: 'collector_offline', source_id: sourceId, check_id: null, state: 'open', notified: true })
  const inbox = await lk.ownerReq('GET', `/v1/notifications?query=branch-office&workspace_id=${lk.workspaceId}`)
  t.ok(inbox.body.items.some((n: { incident_id: string; title: string; severity: string }) =>
    n.incident_id === incidentId && /collector "dc-1" is offline/.test(n.title) && n.severity === 'warning'), 'the inbox has it')

  // The collector reports again: the incident closes and the recovery is sent.
  t.equal((await lk.req('GET', '/v1/collector/checks', undefined, collector)).status, 200)
  const closed = await on('/site', 3)
  t.equal(closed.type, 'incident.closed')
  t.match(closed.incident, { id: incidentId, kind: 'collector_offline', state: 'closed', reason: 'the collector is reporting again' })
  t.ok(closed.incident.closed_at)
  const back = await lk.ownerReq('GET', `/v1/notifications?query=branch-office&workspace_id=${lk.workspaceId}`)
  t.ok(back.body.items.some((n: { incident_id: string; title: string; kind: string }) =>
    n.incident_id === incidentId && n.kind === 'incident.closed' && /collector "dc-1" is no longer offline/.test(n.title)), 'and the recovery')
  await waitFor(async () => (await lk.lookout.db.query(
    `SELECT 1 FROM monitor_outbox WHERE processed_at IS NULL UNION ALL SELECT 1 FROM alert_deliveries WHERE incident_id = $1 AND state = 'queued'`,
    [incidentId])).rows.length === 0, 'outbox and deliveries drained')
  const rows = await lk.lookout.db.query<{ type: string; check_id: string | null }>(
    'SELECT type, check_id FROM monitor_outbox WHERE incident_id = $1 ORDER BY id', [incidentId])
  t.same(rows.rows, [{ type: 'incident.opened', check_id: null }, { type: 'incident.closed', check_id: null }], 'one outbox row each way')
  t.equal(http.on('/site').length, 3, 'one delivery each way, nothing more')

  // Silent again, then revoked: the revocation closes the second incident, and that is sent too.
  await lk.lookout.db.query(`UPDATE monitor_sources SET last_contact_at = now() - interval '10 minutes' WHERE id = $1`, [sourceId])
  t.same(await new CollectorWatch(lk.lookout.db).step(), [sourceId])
  const second = await on('/site', 4)
  t.equal(second.type, 'incident.opened')
  t.not(second.incident.id, incidentId, 'a new incident')
  t.equal((await lk.req('POST', `${M}/sources`, { action: 'revoke', source_id: sourceId })).status, 200)
  await new CollectorWatch(lk.lookout.db).step()
  const revoked = await on('/site', 5)
  t.match(revoked, { type: 'incident.closed', incident: { id: second.incident.id, reason: 'the source was revoked' } })
})
