// Local alerts stay local: on the desktop service email, SMS, Slack, Discord
// and off-machine webhook destinations are refused when saved (desktop error
// shape), even with a mail relay and an SMS provider in the environment; a
// webhook on this machine is verified and receives its alerts; a destination
// of another channel already in the store (a data directory once served by
// `lookout serve`) is never delivered to: no request, no mail.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startTestDesktop } from './desktop-helpers.ts'
import { closedPort, startHttpReceiver, startSmtpReceiver, waitFor } from '../alerting/alerts/receivers.ts'

const http = await startHttpReceiver()
const smtp = await startSmtpReceiver()
const td = await startTestDesktop({
  sizeCapEveryMs: 3_600_000,
  env: {
    // A server would use these; the desktop service must not.
    LOOKOUT_SMTP_URL: smtp.url, LOOKOUT_SMS_URL: `${http.url}/sms`, LOOKOUT_ALLOW_PRIVATE_DESTINATIONS: '1',
  },
  deliveries: { alertRetry: { retries: 0, minTimeoutMs: 50, maxTimeoutMs: 100 }, onToast: () => undefined },
})
t.teardown(async () => {
  await td.stop()
  await http.close()
  await smtp.close()
})
const rid = await td.resource('local-alerts')
const P = `/v1/workspaces/${td.workspaceId}/resources/${rid}/alerts`
const post = (operation: string, values: Record<string, unknown> = {}) =>
  td.owner('POST', P, { operation, values: { operation_id: randomUUID(), ...values } })

t.test('destinations that would leave the machine are refused when saved', async (t) => {
  const refused: [string, string, Record<string, unknown>?][] = [
    ['email', 'oncall@example.com'],
    ['sms', '+14155550123', { consent: true }],
    ['slack', 'https://hooks.slack.com/services/T000/B000/XXXX'],
    ['slack', `${http.url}/slack`],
    ['discord', 'https://discord.com/api/webhooks/1/abc'],
    ['webhook', 'https://93.184.216.34/hook'],
    ['webhook', 'http://10.1.2.3/hook'],
    ['webhook', 'http://192.168.1.20:8080/hook'],
    ['webhook', 'https://alerts.example.com/hook'],
  ]
  for (const [channel, address, extra] of refused) {
    const r = await post('save_destination', { channel, address, label: channel, ...extra })
    t.equal(r.status, 400, `${channel} ${address}: refused`)
    t.equal(r.body?.error?.code, 'LOOKOUT_ALERT_LOCAL_ONLY', 'desktop error shape with its code')
    t.type(r.body?.error?.message, 'string')
  }
  const email = await post('save_destination', { channel: 'email', address: 'oncall@example.com' })
  t.match(email.body.error.message, /never sends email/, 'the message says why')
  const count = await td.desktop.lookout.db.query<{ n: number }>('SELECT count(*)::int AS n FROM alert_destinations')
  t.equal(count.rows[0]?.n, 0, 'nothing was saved')
  const view = await td.owner('GET', P)
  t.equal(view.status, 200)
  t.same(view.body.channels, { email: false, sms: false, webhook: true, slack: false, discord: false }, 'the channels the desktop offers')
  t.equal(smtp.mails.length, 0, 'no mail')
  t.equal(http.on('/sms').length + http.on('/slack').length, 0, 'no request')
})

t.test('a webhook on this machine is verified and receives its alerts', async (t) => {
  const saved = await post('save_destination', { channel: 'webhook', address: `${http.url}/local`, label: 'local script' })
  t.equal(saved.status, 200, JSON.stringify(saved.body))
  const id = saved.body.destination.id as string
  t.equal((await post('request_verification', { id })).status, 200)
  const code = await waitFor(() => http.on('/local')[0]?.json?.code as string | undefined, 'the verification code')
  t.equal((await post('verify_destination', { id, code })).status, 200)
  t.equal((await post('test', { id })).status, 200)
  await waitFor(() => (http.on('/local').length >= 2 ? true : undefined), 'the test alert')
  t.ok(true, 'delivered on the loopback address')
  const localhost = await post('save_destination', { channel: 'webhook', address: `http://localhost:${http.port}/named`, label: 'by name' })
  t.equal(localhost.status, 200, 'localhost is accepted (checked again, resolved, at each delivery)')
})

t.test('destinations of other channels already in the store are never delivered to', async (t) => {
  const db = td.desktop.lookout.db
  const now = new Date().toISOString()
  const planted: Record<string, string> = {}
  for (const [channel, address] of [['slack', `${http.url}/planted-slack`], ['discord', `${http.url}/planted-discord`], ['sms', '+14155550123']] as const) {
    const id = randomUUID()
    planted[channel] = id
    await db.query(
      `INSERT INTO alert_destinations (id, workspace_id, owner, shared, label, channel, address, consent_at, verified_at, created_at, updated_at)
       VALUES ($1, $2, 'token:owner', true, $3, $4, $5, $6, $6, $6, $6)`, [id, td.workspaceId, `planted ${channel}`, channel, address, now])
  }
  for (const channel of ['slack', 'discord']) {
    const r = await post('test', { id: planted[channel] })
    t.equal(r.status, 200, `${channel}: a test is queued`)
    const state = await waitFor(async () => {
      const d = await db.query<{ state: string; last_error: string | null }>(
        `SELECT state, last_error FROM alert_deliveries WHERE destination_id = $1 AND state <> 'queued'`, [planted[channel]])
      return d.rows[0]
    }, `${channel} delivery settled`)
    t.equal(state.state, 'failed', `${channel}: failed without sending`)
    t.match(state.last_error, /local alerts never leave this machine/)
  }
  const sms = await post('test', { id: planted.sms })
  t.equal(sms.status, 503, 'SMS: no provider on the desktop, whatever the environment says')
  t.equal(sms.body.error.code, 'LOOKOUT_ALERT_CHANNEL_UNAVAILABLE')
  t.equal(http.on('/planted-slack').length + http.on('/planted-discord').length + http.on('/sms').length, 0, 'no request left for them')
  t.equal(smtp.mails.length, 0, 'no mail')
})

t.test('nothing of an incident is uploaded: with forwarding on, only log batches reach the cloud', async (t) => {
  // A stand-in cloud on loopback that records every request the service makes to it.
  const cloudWs = randomUUID()
  const cloudRid = randomUUID()
  const json = (body: unknown) => ({ status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  http.handle(`/v1/workspaces/${cloudWs}/resources`, async () => json({ items: [{ id: cloudRid }], next_cursor: null }))
  http.handle(`/v1/workspaces/${cloudWs}/resources/${cloudRid}/logs`, async () => json({ accepted: 1 }))
  const rev = (await td.owner('GET', '/v1/settings')).body.revision
  const on = await td.owner('PATCH', '/v1/settings', {
    revision: rev, forward_enabled: true, forward_url: http.url, forward_workspace_id: cloudWs, forward_token: 'cloud-token-0123456789',
  })
  t.equal(on.status, 200)
  const watched = await td.resource('uploaded-or-not')
  const port = await closedPort()
  const check = await td.owner('POST', `/v1/workspaces/${td.workspaceId}/resources/${watched}/monitoring`, {
    name: 'secret-check-name', kind: 'tcp', configuration: { host: '127.0.0.1', port, interval_seconds: 1, timeout_seconds: 1 },
  })
  t.equal(check.status, 200)
  const incident = await waitFor(async () => (await td.owner('GET', '/v1/notifications?limit=50')).body.items
    .find((n: { kind: string; resource_id: string }) => n.kind === 'incident.opened' && n.resource_id === watched), 'the incident notification', 60_000)
  const logged = await td.owner('POST', '/v1/logs', { resource_id: watched, events: [{ id: 'fwd-1', timestamp: new Date().toISOString(), severity: 'error', message: 'a log line' }] })
  t.equal(logged.status, 200)
  await waitFor(() => (http.on(`/v1/workspaces/${cloudWs}/resources/${cloudRid}/logs`).length > 0 ? true : undefined), 'the forwarded log batch', 60_000)
  const toCloud = http.requests.filter((r) => r.path.startsWith(`/v1/workspaces/${cloudWs}`))
  t.ok(toCloud.length >= 2, `${toCloud.length} requests reached the cloud`)
  for (const r of toCloud) {
    t.ok([`GET /v1/workspaces/${cloudWs}/resources`, `POST /v1/workspaces/${cloudWs}/resources/${cloudRid}/logs`].includes(`${r.method} ${r.path}`),
      `${r.method} ${r.path}: a resource lookup or a log batch`)
    for (const leak of [incident.id, incident.incident_id, 'secret-check-name', 'incident']) {
      t.notOk(r.raw.includes(String(leak)), `${r.method} ${r.path} carries nothing of the incident (${leak})`)
    }
  }
  t.match(http.on(`/v1/workspaces/${cloudWs}/resources/${cloudRid}/logs`)[0]?.raw, /a log line/, 'the log line itself is forwarded')
})
