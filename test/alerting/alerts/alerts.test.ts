// Alert routing end to end: AlertChange operations (validation, scopes,
// idempotency, revisions), destination verification over real channels (a
// local HTTP server for webhook/Slack/Discord/SMS provider, a local SMTP
// server), and real incidents from the monitor's outbox routed to verified,
// unpaused destinations with every attempt visible in view=deliveries.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { AlertDispatcher, AlertSender, alertSettings } from '../../../alerting/internal.ts'
import { startTestLookout } from '../../helpers/lookout.ts'
import { tcpCheck, verifiedDestination } from '../../helpers/on-call.ts'
import { INVALID_ALERT_CHANGES, op } from './alert-change-cases.ts'
import { acceptingOn, closedPort, startHttpReceiver, startSmtpReceiver, waitFor, type Received } from './receivers.ts'

const http = await startHttpReceiver()
const smtp = await startSmtpReceiver()
const lk = await startTestLookout({
  env: {
    LOOKOUT_ALLOW_PRIVATE_DESTINATIONS: '1',
    LOOKOUT_SMTP_URL: smtp.url,
    LOOKOUT_SMTP_FROM: 'alerts@lookout.test',
    LOOKOUT_SMS_URL: `${http.url}/sms`,
    LOOKOUT_SMS_TOKEN: 'sms-provider-token',
  },
  deliveries: { alertRetry: { retries: 2, minTimeoutMs: 50, maxTimeoutMs: 200 }, onToast: () => undefined },
})
t.teardown(async () => {
  await lk.stop()
  await http.close()
  await smtp.close()
})

const rid = await lk.resource('alerted-service')
const otherRid = await lk.resource('other-service')
const P = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/alerts`
const post = (operation: string, values: Record<string, unknown> = {}, headers?: Record<string, string>) => lk.req('POST', P, op(operation, values), headers)
const codeIn = (text: string) => /code(?: is)? (\d{6})/.exec(text)?.[1]

/** Saves, verifies (with the code `read` finds) and routes a destination to the resource; returns its id. */
const verified = (channel: string, address: string, read: () => Promise<string>, extra: Record<string, unknown> = {}): Promise<string> =>
  verifiedDestination(lk, rid, { channel, address, label: `${channel} dest`, ...extra }, read, () => 0)

const lastOn = async (path: string, n: number, pick: (r: Received) => any): Promise<any> =>
  waitFor(() => {
    const got = http.on(path)
    return got.length >= n ? pick(got[n - 1] as Received) : undefined
  }, `request ${n} on ${path}`)

t.test('AlertChange is validated as the contract says', async (t) => {
  const bad = async (body: unknown, loc: unknown[], type: string) => {
    const r = await lk.req('POST', P, body)
    t.equal(r.status, 422, JSON.stringify(body).slice(0, 120))
    const hit = r.body.detail.find((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc))
    t.ok(hit, `${JSON.stringify(loc)} in ${JSON.stringify(r.body.detail).slice(0, 300)}`)
    t.equal(hit?.type, type)
  }
  for (const [body, loc, type] of INVALID_ALERT_CHANGES) await bad(body, loc, type)
})

t.test('scopes and grants: monitor:read reads, resources:write changes, only the granted resource', async (t) => {
  const reader = await lk.token_(['monitor:read'], [rid])
  const writer = await lk.token_(['resources:write'], [rid])
  const elsewhere = await lk.token_(['monitor:read', 'resources:write'], [otherRid])
  const as = (tok: string) => ({ authorization: `Bearer ${tok}` })
  t.equal((await lk.req('GET', P, undefined, as(reader))).status, 200)
  t.equal((await lk.req('GET', P, undefined, as(writer))).status, 403, 'GET needs monitor:read')
  t.equal((await post('subscribe', { action: 'defaults' }, as(reader))).status, 403, 'POST needs resources:write')
  t.equal((await post('subscribe', { action: 'defaults' }, as(writer))).status, 200)
  const outside = await lk.req('GET', P, undefined, as(elsewhere))
  t.equal(outside.status, 403)
  t.equal(outside.body.detail[0].type, 'LOOKOUT_FORBIDDEN')
  t.equal((await lk.req('GET', P, undefined, { authorization: '' })).status, 401)
  t.equal((await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${randomUUID()}/alerts`)).status, 404)
})

t.test('operation_id: an identical replay answers the same, other content is a 409', async (t) => {
  const id = randomUUID()
  const body = { operation: 'save_destination', values: { operation_id: id, channel: 'webhook', address: `${http.url}/idem`, label: 'idem' } }
  const first = await lk.req('POST', P, body)
  t.equal(first.status, 200)
  const again = await lk.req('POST', P, body)
  t.equal(again.status, 200)
  t.same(again.body, first.body, 'same body, nothing created twice')
  const list = await lk.req('GET', P)
  t.equal(list.body.destinations.filter((d: { label: string }) => d.label === 'idem').length, 1)
  const other = await lk.req('POST', P, { ...body, values: { ...body.values, label: 'other' } })
  t.equal(other.status, 409)
  t.equal(other.body.detail[0].type, 'LOOKOUT_ALERT_OPERATION_CONFLICT')
  t.notOk(first.body.destination.address_hint.includes('/idem'), 'the URL path (where tokens live) is never shown')
})

t.test('email: the code arrives over SMTP; wrong codes count, are replayed as answered, and lock after five', async (t) => {
  const saved = await post('save_destination', { channel: 'email', address: 'oncall@example.com', label: 'on-call mail' })
  t.equal(saved.status, 200)
  const d = saved.body.destination
  t.match(d, { channel: 'email', verified: false, state: 'unverified', address_hint: 'o***@example.com', revision: 1, mine: true, shared: false })
  const before = smtp.mails.length
  const req = await post('request_verification', { id: d.id })
  t.equal(req.status, 200)
  t.equal(req.body.destination.verification.pending, true)
  const mail = await waitFor(() => smtp.mails[before], 'verification mail')
  t.same(mail.to, ['oncall@example.com'])
  t.equal(mail.from, 'alerts@lookout.test')
  const code = codeIn(mail.raw) as string
  t.match(code, /^\d{6}$/)
  const wrong = String((Number(code) + 1) % 1_000_000).padStart(6, '0')
  const wrongOp = op('verify_destination', { id: d.id, code: wrong })
  const miss = await lk.req('POST', P, wrongOp)
  t.equal(miss.status, 422)
  t.equal(miss.body.detail[0].type, 'LOOKOUT_ALERT_CODE_INVALID')
  t.match(miss.body.detail[0].msg, /4 attempts left/)
  const replay = await lk.req('POST', P, wrongOp)
  t.same(replay.body, miss.body, 'the answered attempt is replayed, not counted again')
  const view = await lk.req('GET', P)
  t.equal(view.body.destinations.find((x: { id: string }) => x.id === d.id).verification.attempts_left, 4)
  for (let i = 0; i < 4; i++) t.equal((await post('verify_destination', { id: d.id, code: wrong })).status, 422)
  const locked = await post('verify_destination', { id: d.id, code })
  t.equal(locked.status, 409, 'five wrong codes void the code, even the right one')
  t.equal(locked.body.detail[0].type, 'LOOKOUT_ALERT_CODE_LOCKED')
  const n = smtp.mails.length
  t.equal((await post('request_verification', { id: d.id })).status, 200)
  const fresh = codeIn((await waitFor(() => smtp.mails[n], 'second mail')).raw) as string
  const ok = await post('verify_destination', { id: d.id, code: fresh })
  t.equal(ok.status, 200)
  t.match(ok.body.destination, { verified: true, state: 'verified', revision: 2 })
  const again = await post('request_verification', { id: d.id })
  t.equal(again.body.detail[0].type, 'LOOKOUT_ALERT_ALREADY_VERIFIED')
  // The stored message of a sent code no longer holds it.
  const stored = await lk.lookout.db.query<{ message: { text: string } }>(
    `SELECT message FROM alert_deliveries WHERE destination_id = $1 AND reason = 'verification' AND state = 'delivered'`, [d.id])
  t.ok(stored.rows.length >= 1)
  t.notOk(stored.rows.some((r) => JSON.stringify(r.message).includes(fresh)), 'sent codes are scrubbed')
})

t.test('codes expire, requests are limited to five an hour, SMS needs consent', async (t) => {
  const saved = await post('save_destination', { channel: 'sms', address: '+14155550100', consent: true, label: 'phone' })
  t.equal(saved.status, 200)
  t.equal(saved.body.destination.consent, true)
  t.equal(saved.body.destination.address_hint, '+1******0100')
  const id = saved.body.destination.id
  t.equal((await post('request_verification', { id })).status, 200)
  const sms = await lastOn('/sms', 1, (r) => r.json?.body)
  t.equal(http.on('/sms')[0]?.headers.authorization, 'Bearer sms-provider-token')
  t.equal(http.on('/sms')[0]?.json.to, '+14155550100')
  const code = codeIn(sms) as string
  // Fifteen minutes pass (the expiry moves into the past).
  await lk.lookout.db.query(`UPDATE alert_destinations SET code_expires_at = now() - interval '1 second' WHERE id = $1`, [id])
  const late = await post('verify_destination', { id, code })
  t.equal(late.status, 409)
  t.equal(late.body.detail[0].type, 'LOOKOUT_ALERT_CODE_EXPIRED')
  for (let i = 2; i <= 5; i++) t.equal((await post('request_verification', { id })).status, 200, `code ${i} of 5`)
  const sixth = await post('request_verification', { id })
  t.equal(sixth.status, 429)
  t.equal(sixth.body.detail[0].type, 'LOOKOUT_ALERT_VERIFICATION_LIMITED')
  t.ok(Number(sixth.headers.get('retry-after')) > 3000, 'Retry-After says when the hour is over')
})

t.test('chat and webhook channels verify with the code they receive; tests need a verified destination', async (t) => {
  const hook = await verified('webhook', `${http.url}/hook`, () => lastOn('/hook', 1, (r) => r.json?.code))
  t.equal(http.on('/hook')[0]?.json.type, 'destination.verification')
  const slack = await verified('slack', `${http.url}/slack`, () => lastOn('/slack', 1, (r) => codeIn(r.json?.text ?? '')))
  const discord = await verified('discord', `${http.url}/discord`, () => lastOn('/discord', 1, (r) => codeIn(r.json?.content ?? '')))
  t.ok(hook && slack && discord)
  const unverified = await post('save_destination', { channel: 'webhook', address: `${http.url}/never`, label: 'never verified' })
  const refused = await post('test', { id: unverified.body.destination.id })
  t.equal(refused.status, 409)
  t.equal(refused.body.detail[0].type, 'LOOKOUT_ALERT_NOT_VERIFIED')
  const test = await post('test', { id: hook })
  t.equal(test.status, 200)
  const got = await lastOn('/hook', 2, (r) => r.json?.type)
  t.equal(got, 'alert.test')
  t.equal(http.on('/hook')[1]?.json.resource.id, rid)
  const deliveries = await waitFor(async () => {
    const r = await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring?view=deliveries`)
    const d = r.body.items.find((x: { id: string }) => x.id === test.body.delivery.id)
    return d?.state === 'delivered' ? d : undefined
  }, 'the test delivery in view=deliveries')
  t.match(deliveries, { event_type: 'alert.test', reason: 'test', channel: 'webhook', attempts: 1 })
  t.equal(deliveries.attempt_history[0].status, 200)
})

t.test('an incident reaches every verified, unpaused, routed destination once; retries are recorded; recovery follows', async (t) => {
  // The destinations of the resource (routes are created with them).
  const hook = await verified('webhook', `${http.url}/inc-hook`, () => lastOn('/inc-hook', 1, (r) => r.json?.code))
  const slack = await verified('slack', `${http.url}/inc-slack`, () => lastOn('/inc-slack', 1, (r) => codeIn(r.json?.text ?? '')))
  const gone = await verified('webhook', `${http.url}/inc-gone`, () => lastOn('/inc-gone', 1, (r) => r.json?.code))
  const paused = await verified('discord', `${http.url}/inc-paused`, () => lastOn('/inc-paused', 1, (r) => codeIn(r.json?.content ?? '')))
  const pausedRev = (await lk.req('GET', P)).body.destinations.find((d: { id: string }) => d.id === paused).revision
  const p = await post('pause_destination', { id: paused, revision: pausedRev })
  t.equal(p.status, 200)
  t.equal(p.body.destination.state, 'paused')
  t.equal((await post('pause_destination', { id: paused, revision: pausedRev })).status, 409, 'a stale revision changes nothing')
  // Personal SMS is off by default in the subscription, so the owner's phone stays quiet.
  const phone = await post('save_destination', { channel: 'sms', address: '+14155550111', consent: true, label: 'quiet phone' })
  const phoneId = phone.body.destination.id
  await post('request_verification', { id: phoneId })
  const smsCode = codeIn(await waitFor(() => http.on('/sms').find((r) => r.json?.to === '+14155550111')?.json.body as string | undefined, 'phone code')) as string
  t.equal((await post('verify_destination', { id: phoneId, code: smsCode })).status, 200)
  // The other resource's routes are separate.
  t.equal((await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${otherRid}/alerts`, op('save_route', { id: hook }))).status, 200)
  http.script('/inc-hook', [503, 200])
  http.script('/inc-gone', [410])
  const smsBefore = http.on('/sms').length

  const port = await closedPort()
  const check = await tcpCheck(lk, rid, port)
  const opened = await lastOn('/inc-hook', 3, (r) => r.json)
  t.equal(opened.type, 'incident.opened')
  t.match(opened, { schema_version: 1, workspace_id: lk.workspaceId, resource: { id: rid, name: 'alerted-service', external_id: 'alerted-service' } })
  t.match(opened.incident, { state: 'open', severity: 'critical', check: { id: check, kind: 'tcp' } })
  t.equal(http.on('/inc-hook')[2]?.headers['x-lookout-event-id'], opened.id)
  t.equal(http.on('/inc-hook')[1]?.json.id, opened.id, 'the retry sent the same event')
  const slackText = await lastOn('/inc-slack', 2, (r) => r.json?.text)
  t.match(slackText, /DOWN: alerted-service/)
  await lastOn('/inc-gone', 2, (r) => r.json?.type)
  const incidentId = opened.incident.id
  const view = await waitFor(async () => {
    const r = await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring?view=deliveries&limit=100`)
    const mine = r.body.items.filter((d: { incident_id: string | null }) => d.incident_id === incidentId)
    return mine.length >= 3 && mine.every((d: { state: string }) => d.state !== 'queued') ? mine : undefined
  }, 'the incident deliveries settled')
  const byDest = (id: string) => view.find((d: { destination_id: string }) => d.destination_id === id)
  t.match(byDest(hook), { state: 'delivered', attempts: 2, event_type: 'incident.opened', reason: 'initial' })
  t.same(byDest(hook).attempt_history.map((a: { outcome: string; status: number }) => [a.outcome, a.status]), [['retry', 503], ['delivered', 200]])
  t.match(byDest(gone), { state: 'failed', attempts: 1, last_status: 410 })
  t.match(byDest(slack), { state: 'delivered' })
  t.notOk(byDest(paused), 'a paused destination gets nothing')
  t.notOk(byDest(phoneId), 'SMS is off in the owner\'s subscription by default')
  t.equal(http.on('/sms').length, smsBefore)
  t.equal(http.on('/inc-paused').length, 1, 'only its verification code')

  const alerts = await lk.req('GET', P)
  const inc = alerts.body.incidents.find((i: { id: string }) => i.id === incidentId)
  t.match(inc, { state: 'open', acknowledged: false })
  const ack = await post('acknowledge', { incident_id: incidentId })
  t.equal(ack.status, 200)
  t.equal(ack.body.incident.acknowledged_by, 'staff:1')
  t.equal((await post('acknowledge', { incident_id: randomUUID() })).status, 404)

  // Recovery: something listens on the port now.
  t.teardown(await acceptingOn(port))
  const closed = await lastOn('/inc-hook', 4, (r) => r.json)
  t.equal(closed.type, 'incident.closed')
  t.equal(closed.incident.id, incidentId)
  t.equal(closed.incident.state, 'closed')
  t.equal((await post('acknowledge', { incident_id: incidentId })).body.detail[0].type, 'LOOKOUT_ALERT_INCIDENT_CLOSED')
  // Exactly once per destination and event: once the outbox is drained and nothing of the incident is
  // queued any more, nothing more can arrive.
  await waitFor(async () => (await lk.lookout.db.query(
    `SELECT 1 FROM monitor_outbox WHERE processed_at IS NULL UNION ALL SELECT 1 FROM alert_deliveries WHERE incident_id = $1 AND state = 'queued'`,
    [incidentId])).rows.length === 0, 'outbox and deliveries of the incident drained')
  const perDest = await lk.lookout.db.query<{ destination_id: string; event_type: string; n: number }>(
    `SELECT destination_id, event_type, count(*)::int AS n FROM alert_deliveries WHERE incident_id = $1 GROUP BY 1, 2`, [incidentId])
  t.ok(perDest.rows.length > 0 && perDest.rows.every((r) => r.n === 1), 'one delivery per destination and event')
  t.equal(http.on('/inc-hook').filter((r) => r.json?.type === 'incident.opened' && r.headers['x-lookout-event-id'] === opened.id).length, 2, 'one delivery (two attempts)')
  t.equal(http.on('/inc-slack').filter((r) => /DOWN/.test(r.json?.text ?? '')).length, 1)
  const notes = await lk.ownerReq('GET', `/v1/notifications?query=alerted-service&workspace_id=${lk.workspaceId}`)
  t.ok(notes.body.items.some((n: { kind: string; incident_id: string }) => n.kind === 'incident.opened' && n.incident_id === incidentId), 'the inbox has the incident')
  await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`, { id: check, enabled: false })
})

t.test('subscription gates personal destinations; routes can be paused; removed destinations are gone', async (t) => {
  const sub = await post('subscribe', { action: 'subscribe', channels: { sms: 'on', email: '' } })
  t.equal(sub.status, 200)
  t.match(sub.body.subscription, { source: 'saved', channels: { sms: 'on', email: 'on' } })
  const un = await post('subscribe', { action: 'unsubscribe' })
  t.match(un.body.subscription, { source: 'unsubscribed', channels: { sms: 'off', email: 'off', webhook: 'off' } })
  const def = await post('subscribe', { action: 'defaults' })
  t.equal(def.body.subscription.source, 'defaults')
  const d = await post('save_destination', { channel: 'webhook', address: `${http.url}/routes`, label: 'routed', shared: true })
  const id = d.body.destination.id
  const view = await lk.req('GET', P)
  const route = view.body.routes.find((r: { destination_id: string }) => r.destination_id === id)
  t.match(route, { paused: false, revision: 1, active: false }, 'created with its destination; inactive until verified')
  t.equal((await post('save_route', { id })).status, 409, 'saving needs the current revision')
  const paused = await post('pause_route', { id, revision: 1 })
  t.match(paused.body.route, { paused: true, revision: 2 })
  const resumed = await post('save_route', { id, revision: 2, paused: false })
  t.match(resumed.body.route, { paused: false, revision: 3 })
  const rev = (await lk.req('GET', P)).body.destinations.find((x: { id: string }) => x.id === id).revision
  const removed = await post('remove_destination', { id, revision: rev })
  t.equal(removed.status, 200)
  const after = await lk.req('GET', P)
  t.notOk(after.body.destinations.some((x: { id: string }) => x.id === id))
  t.notOk(after.body.routes.some((x: { destination_id: string }) => x.destination_id === id))
  t.equal((await post('test', { id })).status, 404)
  // Personal destinations of another subscriber are invisible.
  const stranger = await lk.token_(['resources:write', 'monitor:read'], 'all', { staffId: 77 })
  const theirs = await post('save_destination', { channel: 'webhook', address: `${http.url}/theirs`, label: 'theirs' }, { authorization: `Bearer ${stranger}` })
  t.equal(theirs.status, 200)
  t.equal((await post('test', { id: theirs.body.destination.id })).status, 404)
  t.notOk((await lk.req('GET', P)).body.destinations.some((x: { id: string }) => x.id === theirs.body.destination.id))
})

t.test('policy: revisioned; repeats and escalation fire while unacknowledged and stop on acknowledge', async (t) => {
  const first = await post('policy', { revision: 0, configuration: { repeat_minutes: 10, escalation: [] } })
  t.equal(first.status, 200)
  t.match(first.body.policy, { enabled: true, revision: 1, configuration: { repeat_minutes: 10, events: ['opened', 'closed'] } })
  t.equal((await post('policy', { revision: 0, enabled: false })).status, 409)
  const warn = await post('policy', { revision: 1, configuration: { severities: ['warning'] } })
  t.match(warn.body.policy.configuration, { severities: ['warning'], repeat_minutes: 0 }, 'a configuration replaces the previous one')
  t.equal(warn.body.policy.revision, 2)

  // An escalation-only destination: verified, its route to this resource paused.
  const esc = await verified('webhook', `${http.url}/esc`, () => lastOn('/esc', 1, (r) => r.json?.code))
  t.equal((await post('pause_route', { id: esc, revision: 1 })).status, 200)
  const timed = await post('policy', {
    revision: 2, configuration: { repeat_minutes: 5, max_repeats: 3, escalation: [{ after_minutes: 10, destination_ids: [esc] }] },
  })
  t.equal(timed.status, 200)
  const hookBefore = http.on('/inc-hook').length
  const check = await tcpCheck(lk, rid, await closedPort())
  const opened = await lastOn('/inc-hook', hookBefore + 1, (r) => (r.json?.type === 'incident.opened' ? r.json : undefined))
  const incidentId = opened.incident.id as string
  const inc = (await lk.req('GET', P)).body.incidents.find((i: { id: string }) => i.id === incidentId)
  t.ok(inc.next_repeat_at !== null && inc.next_escalation_at !== null, 'repeat and escalation are scheduled')
  t.equal(http.on('/esc').length, 1, 'escalation destinations wait')

  // Time moves on for a dispatcher and a sender of our own (the running ones keep real time).
  const settings = alertSettings({ LOOKOUT_ALLOW_PRIVATE_DESTINATIONS: '1' })
  const at = (minutes: number) => () => Date.now() + minutes * 60_000
  await new AlertDispatcher(lk.lookout.db, { workerId: 'test+6', now: at(6) }).step()
  await new AlertDispatcher(lk.lookout.db, { workerId: 'test+11', now: at(11) }).step()
  const queued = await lk.lookout.db.query<{ reason: string; n: number }>(
    `SELECT reason, count(*)::int AS n FROM alert_deliveries WHERE incident_id = $1 AND state = 'queued' GROUP BY reason ORDER BY reason`, [incidentId])
  const reasons = queued.rows.map((r) => r.reason)
  t.ok(reasons.includes('repeat') && reasons.includes('escalation'), `repeat and escalation deliveries queued (${reasons.join(', ')})`)
  const sender = new AlertSender(lk.lookout.db, settings, { workerId: 'test-sender', now: at(11), retry: { retries: 0 } })
  await sender.step()
  await sender.close()
  const escalated = http.on('/esc').at(-1)?.json
  t.match(escalated, { type: 'incident.escalated', escalation_level: 1, incident: { id: incidentId } })
  const reminders = http.on('/inc-hook').filter((r) => r.json?.type === 'incident.reminder' && r.json.incident.id === incidentId)
  t.same(reminders.map((r) => r.json.repeat).sort(), [1, 2], 'two reminders by minute 11')

  // Acknowledged: nothing more, even much later.
  const ack = await post('acknowledge', { incident_id: incidentId })
  t.equal(ack.status, 200)
  t.equal(await new AlertDispatcher(lk.lookout.db, { workerId: 'test+60', now: at(60) }).step(), 0, 'no repeat or escalation after the acknowledgement')
  const after = (await lk.req('GET', P)).body.incidents.find((i: { id: string }) => i.id === incidentId)
  t.match(after, { acknowledged: true, next_repeat_at: null, next_escalation_at: null, repeats: 2, escalation_level: 1 })
  await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`, { id: check, enabled: false })
})

t.test('timers: an incident closed on the monitor before its close is dispatched repeats nothing and leaves the due page', async (t) => {
  const hookBefore = http.on('/inc-hook').length
  const check = await tcpCheck(lk, rid, await closedPort())
  const opened = await lastOn('/inc-hook', hookBefore + 1, (r) => (r.json?.type === 'incident.opened' ? r.json : undefined))
  const incidentId = opened.incident.id as string
  // Closed in the monitor's table only: its close is not in the outbox, so alerting's row is still open.
  await lk.lookout.db.query('UPDATE monitor_incidents SET closed_at = now() WHERE id = $1', [incidentId])
  const later = () => Date.now() + 30 * 60_000
  await new AlertDispatcher(lk.lookout.db, { workerId: 'test-closed', now: later }).step()
  const timed = await lk.lookout.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM alert_deliveries WHERE incident_id = $1 AND reason IN ('repeat', 'escalation')`, [incidentId])
  t.equal(timed.rows[0]?.n, 0, 'no reminder and no escalation for an incident the monitor closed')
  const row = await lk.lookout.db.query('SELECT repeats, next_repeat_at, next_escalation_at FROM alert_incidents WHERE incident_id = $1', [incidentId])
  t.match(row.rows[0], { repeats: 0, next_repeat_at: null, next_escalation_at: null }, 'its timers stop')
  await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`, { id: check, enabled: false })
})

t.test('email: alerts go over SMTP; a 4xx reply is retried, a 5xx reply fails the delivery', async (t) => {
  const address = 'pager@example.com'
  const n = smtp.mails.length
  const id = await verified('email', address, async () => codeIn((await waitFor(() => smtp.mails.slice(n).find((m) => m.to.includes(address)), 'code mail')).raw) as string)
  const settled = (deliveryId: string) => waitFor(async () => {
    const r = await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring?view=deliveries&limit=100`)
    const d = r.body.items.find((x: { id: string }) => x.id === deliveryId)
    return d !== undefined && d.state !== 'queued' ? d : undefined
  }, `delivery ${deliveryId} settled`)

  smtp.reject(address, [451])
  const before = smtp.mails.length
  const test = await post('test', { id })
  t.equal(test.status, 200)
  const d = await settled(test.body.delivery.id)
  t.match(d, { state: 'delivered', channel: 'email', event_type: 'alert.test', attempts: 2 })
  t.same(d.attempt_history.map((a: { outcome: string; status: number }) => [a.outcome, a.status]), [['retry', 451], ['delivered', 250]], 'the relay\'s 451 was retried')
  const mails = smtp.mails.slice(before).filter((m) => m.to.includes(address))
  t.equal(mails.length, 1, 'one mail')
  t.equal(mails[0]?.from, 'alerts@lookout.test')
  t.match(mails[0]?.raw, new RegExp(`X-Lookout-Delivery-Id: ${test.body.delivery.id}`, 'i'))
  t.match(mails[0]?.raw, /Subject: .*alerted-service/)

  smtp.reject(address, [550])
  const bounced = await post('test', { id })
  const f = await settled(bounced.body.delivery.id)
  t.match(f, { state: 'failed', attempts: 1, last_status: 550 })
  t.match(f.last_error, /smtp .*550/)
})
