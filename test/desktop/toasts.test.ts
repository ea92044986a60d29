// Desktop toasts on a real session D-Bus: a private bus (dbus-run-session)
// with a notification server on it (notification-daemon.py, python3-dbus)
// that records every org.freedesktop.Notifications.Notify call. A real
// incident of the desktop service reaches it once, through notify-send; with
// notification_toasts off nothing reaches it and the inbox keeps the entry;
// without a session bus the status says so and the inbox is the record.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { DbusToasts } from '../../desktop/toasts.ts'
import { startTestDesktop, type TestDesktop } from './desktop-helpers.ts'
import { startSessionBus } from './session-bus.ts'
import { closedPort, waitFor } from '../alerting/alerts/receivers.ts'

// The bus and its notification server (session-bus.ts).
const bus = await startSessionBus()
t.teardown(() => bus.stop())
const { address, calls } = bus

const td = await startTestDesktop({ sizeCapEveryMs: 3_600_000, env: { DBUS_SESSION_BUS_ADDRESS: address } })
t.teardown(() => td.stop())

/** A TCP check on a closed port: a real incident, then its notification in the inbox. */
async function incident(d: TestDesktop, name: string): Promise<{ id: string; title: string; severity: string }> {
  const rid = await d.resource(name)
  const port = await closedPort()
  const check = await d.owner('POST', `/v1/workspaces/${d.workspaceId}/resources/${rid}/monitoring`, {
    name: `${name} port`, kind: 'tcp', configuration: { host: '127.0.0.1', port, interval_seconds: 1, timeout_seconds: 1 },
  })
  if (check.status !== 200) throw new Error(`check: ${check.status} ${JSON.stringify(check.body)}`)
  return waitFor(async () => (await d.owner('GET', '/v1/notifications?limit=50')).body.items
    .find((n: { kind: string; resource_id: string }) => n.kind === 'incident.opened' && n.resource_id === rid), `the ${name} notification`, 60_000)
}

async function toastState(d: TestDesktop, id: string): Promise<string | undefined> {
  const r = await d.desktop.lookout.db.query<{ toast_state: string | null }>('SELECT toast_state FROM notifications WHERE id = $1', [id])
  return r.rows[0]?.toast_state ?? undefined
}

t.test('an incident is shown once on the session bus through the notifications interface', async (t) => {
  t.match((await td.owner('GET', '/v1/desktop')).body.toasts, { delivery: 'dbus', bus: address }, 'the status says toasts go to D-Bus')
  const item = await incident(td, 'dbus-web')
  const call = await waitFor(() => calls.find((c) => c.hints['x-lookout-notification-id'] === item.id), 'the Notify call on the bus', 30_000)
  t.match(call, { method: 'Notify', app_name: 'Lookout', summary: item.title })
  t.equal(call.summary, 'dbus-web is down')
  t.equal(call.hints.urgency, 2, 'a critical incident is a critical notification')
  t.equal(await toastState(td, item.id), 'shown', 'claimed, then shown')
  // The check keeps failing; the incident stays open: still one toast.
  await new Promise((r) => setTimeout(r, 3000))
  t.equal(calls.filter((c) => c.hints['x-lookout-notification-id'] === item.id).length, 1, 'shown once')
  t.match((await td.owner('GET', '/v1/desktop')).body.toasts, { shown: 1, failed: 0, last_error: null })
})

t.test('notification_toasts off: nothing on the bus, the inbox keeps the entry', async (t) => {
  const rev = (await td.owner('GET', '/v1/settings')).body.revision
  t.equal((await td.owner('PATCH', '/v1/settings', { revision: rev, notification_toasts: false })).status, 200)
  const before = calls.length
  const item = await incident(td, 'dbus-quiet')
  t.equal(await waitFor(() => toastState(td, item.id), 'claimed'), 'disabled')
  t.equal(calls.length, before, 'no Notify call')
  t.equal((await td.owner('GET', `/v1/notifications?notification_id=${item.id}`)).body.items[0]?.state, 'unread', 'in the inbox, unread')
})

t.test('the sink on its own: the body is sent as text; a missing notify-send is reported, not run', async (t) => {
  const env = { ...process.env, DBUS_SESSION_BUS_ADDRESS: address }
  const sink = new DbusToasts(env)
  const id = randomUUID()
  await sink.sink({ id, workspace_id: randomUUID(), title: 'markup <b>title</b>', body: 'a <a href="x">link</a> & more', severity: 'info', notification: {} as never })
  const call = await waitFor(() => calls.find((c) => c.hints['x-lookout-notification-id'] === id), 'the Notify call')
  t.equal(call.body, 'a &lt;a href="x"&gt;link&lt;/a&gt; &amp; more', 'the body is escaped: a server reading markup shows it as text')
  t.equal(call.hints.urgency, 0, 'info is a low-urgency notification')
  const missing = new DbusToasts(env, 'no-such-notify-send')
  t.match(missing.status(), { delivery: 'unavailable: no-such-notify-send is not installed (Debian: libnotify-bin)' })
  await t.rejects(async () => missing.sink({ id: randomUUID(), workspace_id: randomUUID(), title: 't', body: 'b', severity: 'info', notification: {} as never }),
    { state: 'unavailable', message: /not installed/ }, 'refused as not shown, nothing run')
})

t.test('no session bus: the status says so and the inbox is the record', async (t) => {
  await td.stop() // one embedded ClickHouse per process
  const lone = await startTestDesktop({ sizeCapEveryMs: 3_600_000, env: { DBUS_SESSION_BUS_ADDRESS: '' } })
  t.teardown(() => lone.stop())
  t.match((await lone.owner('GET', '/v1/desktop')).body.toasts, { delivery: 'unavailable: no session bus', bus: null })
  const before = calls.length
  const item = await incident(lone, 'no-bus-web')
  t.equal(await waitFor(() => toastState(lone, item.id), 'claimed'), 'unavailable', 'recorded as not shown')
  t.equal((await lone.owner('GET', `/v1/notifications?notification_id=${item.id}`)).body.items[0]?.state, 'unread', 'the inbox has it')
  t.equal(calls.length, before, 'nothing reached the other bus')
})
