// The confirmation state machine end to end: real probes against a TCP
// listener that goes down and up, a real PostgreSQL (PGlite) and a manual
// clock, so hours of monitoring run in a moment.
import t from 'tap'
import {
  checkAction, editCheck, listIncidents, listTransitions, recordBeat, PROBE_REASONS, type Monitor,
} from '../../monitor/index.ts'
import { startTcp, type TestTcpServer } from '../helpers/servers.ts'
import { harness } from '../helpers/monitor-harness.ts'

const h = await harness()
t.teardown(() => h.close())
const MIN = 60_000

async function outbox(resourceId: string): Promise<{ type: string; incident_id: string; payload: Record<string, unknown> }[]> {
  const r = await h.db.query<{ type: string; incident_id: string; payload: Record<string, unknown> }>(
    'SELECT type, incident_id, payload FROM monitor_outbox WHERE resource_id = $1 ORDER BY id', [resourceId])
  return r.rows
}

/** Each call: the target is up or down, then one interval passes and the monitor probes once. */
async function observe(m: Monitor, target: TestTcpServer, up: boolean): Promise<void> {
  if (up) await target.reopen()
  else await target.close()
  await m.step() // sees API changes made since the last round, as its 1 s housekeeping would
  await h.advance(MIN, [m], MIN)
}

t.beforeEach(() => h.clear())

t.test('one failure does not flip health, two do; one notification per incident', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const m = await h.monitor()
  await observe(m, target, true)
  t.equal((await h.row(c.id)).health, 'unknown', 'one good observation is not a confirmation')
  await observe(m, target, true)
  t.equal((await h.row(c.id)).health, 'healthy', 'two agreeing observations confirm')

  await observe(m, target, false)
  let row = await h.row(c.id)
  t.equal(row.health, 'healthy', 'a single failure does not flip health')
  t.equal(row.last_status, 'down')
  t.equal(row.last_code, PROBE_REASONS.refused)
  t.equal(row.candidate, 'down')
  t.equal(row.streak, 1, 'the streak is stored')
  t.same(await outbox(rid), [], 'no notification yet')

  await observe(m, target, false)
  row = await h.row(c.id)
  t.equal(row.health, 'unhealthy', 'the second failure confirms')
  t.ok(row.open_incident_id, 'an incident is open')
  for (let i = 0; i < 4; i++) await observe(m, target, false)
  let events = await outbox(rid)
  t.equal(events.length, 1, 'one notification however long the failure lasts')
  t.equal(events[0]?.type, 'incident.opened')
  t.equal(events[0]?.payload.reason, row.last_reason)
  t.equal((events[0]?.payload.check as { id: string }).id, c.id)

  await observe(m, target, true)
  t.equal((await h.row(c.id)).health, 'unhealthy', 'one recovery is not enough')
  await observe(m, target, true)
  row = await h.row(c.id)
  t.equal(row.health, 'healthy')
  t.equal(row.open_incident_id, null)
  events = await outbox(rid)
  t.same(events.map((e) => e.type), ['incident.opened', 'incident.closed'])
  t.equal(events[1]?.incident_id, events[0]?.incident_id)
  const incidents = (await listIncidents(h.db, h.workspaceId, rid, 10, null)).items
  t.equal(incidents.length, 1)
  t.equal(incidents[0]?.state, 'closed')
  const history = (await listTransitions(h.db, h.workspaceId, rid, 10, null)).items.map((x) => `${x.from}>${x.to}`)
  t.same(history, ['unhealthy>healthy', 'healthy>unhealthy', 'unknown>healthy'], 'transition history, newest first')
  const results = await h.db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_results WHERE check_id = $1', [c.id])
  t.equal(results.rows[0]?.n, 10, 'every observation is recorded')
})

t.test('flapping produces no incident and no transition', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const m = await h.monitor()
  await observe(m, target, true)
  await observe(m, target, true)
  for (let i = 0; i < 6; i++) await observe(m, target, i % 2 === 1)
  const row = await h.row(c.id)
  t.equal(row.health, 'healthy')
  t.equal(row.open_incident_id, null)
  t.same(await outbox(rid), [])
  t.equal((await listTransitions(h.db, h.workspaceId, rid, 10, null)).items.length, 1, 'only unknown>healthy')
})

t.test('maintenance suppresses notifications; a failure outlasting it is told once', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const m = await h.monitor()
  await observe(m, target, true)
  await observe(m, target, true)
  let row = await h.row(c.id)
  await checkAction(h.db, h.workspaceId, c.id, row.revision, 'maintenance', 10, h.clock.now())
  await observe(m, target, false)
  await observe(m, target, false)
  row = await h.row(c.id)
  t.equal(row.health, 'unhealthy', 'health is still judged during maintenance')
  t.ok(row.open_incident_id, 'the incident is recorded')
  t.same(await outbox(rid), [], 'but nobody is notified')
  await observe(m, target, true)
  await observe(m, target, true)
  t.equal((await h.row(c.id)).health, 'healthy')
  t.same(await outbox(rid), [], 'an incident that opened and closed in maintenance notifies nothing')
  const closed = (await listIncidents(h.db, h.workspaceId, rid, 10, null)).items
  t.equal(closed[0]?.state, 'closed')
  t.equal(closed[0]?.notified, false)

  // Down again inside the window; still down after it: one notification when it ends.
  await observe(m, target, false)
  await observe(m, target, false)
  t.same(await outbox(rid), [])
  row = await h.row(c.id)
  await checkAction(h.db, h.workspaceId, c.id, row.revision, 'end_maintenance', null, h.clock.now())
  await observe(m, target, false)
  await observe(m, target, false)
  const events = await outbox(rid)
  t.same(events.map((e) => e.type), ['incident.opened'], 'told once, when maintenance is over')
  t.equal((await h.row(c.id)).incident_notified, true)
  await observe(m, target, true)
  await observe(m, target, true)
  t.same((await outbox(rid)).map((e) => e.type), ['incident.opened', 'incident.closed'])
})

t.test('a result probed before an edit is rejected and changes nothing', async (t) => {
  // The target accepts and stays silent, so the probe waits for its expected text until its timeout.
  const silent = await startTcp({ reply: () => '' })
  t.teardown(() => silent.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: silent.port, expect: 'HELLO', interval_seconds: 60, timeout_seconds: 0.5 })
  const m = await h.monitor()
  h.clock.advance(MIN) // the dispatch timer starts the probe
  const edited = await editCheck(h.db, h.workspaceId, rid, c.id, { name: 'renamed while probing' }, c.revision, h.clock.now())
  t.equal(edited.revision, c.revision + 1)
  await m.settle()
  const row = await h.row(c.id)
  t.equal(m.stats().rejected, 1, 'the stale result was fenced off')
  t.equal(row.last_observed_at, null, 'no observation recorded')
  t.equal(row.streak, 0)
  const results = await h.db.query('SELECT 1 FROM monitor_results WHERE check_id = $1', [c.id])
  t.equal(results.rows.length, 0)
  await m.step()
  h.clock.advance(MIN)
  await m.settle()
  t.equal((await h.row(c.id)).last_code, PROBE_REASONS.banner, 'the next probe, under the new revision, counts')
})

t.test('results of a paused check are rejected; resume after a long gap starts over', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const m = await h.monitor()
  await observe(m, target, true)
  await observe(m, target, true)
  let row = await h.row(c.id)
  t.equal(row.health, 'healthy')
  row = await checkAction(h.db, h.workspaceId, c.id, row.revision, 'pause', null, h.clock.now())
  t.equal(row.enabled, false)
  await m.step()
  const probes = m.stats().probes
  await h.advance(10 * MIN, [m], MIN)
  t.equal(m.stats().probes, probes, 'a paused check is not probed')
  row = await checkAction(h.db, h.workspaceId, c.id, row.revision, 'resume', null, h.clock.now())
  t.equal(row.health, 'unknown', 'after a long gap the old health vouches for nothing')
  t.equal(row.streak, 0)
  await observe(m, target, true)
  t.equal((await h.row(c.id)).health, 'unknown')
  await observe(m, target, true)
  t.equal((await h.row(c.id)).health, 'healthy', 'confirmed again by two fresh observations')
  const stale = await checkAction(h.db, h.workspaceId, c.id, row.revision - 1, 'pause', null, h.clock.now()).catch((e: { code?: string }) => e.code)
  t.equal(stale, 'LOOKOUT_MONITOR_REVISION_CONFLICT', 'actions check the revision')
})

t.test('run now probes at once without waiting for the interval', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 3600, timeout_seconds: 2 })
  const m = await h.monitor()
  await m.step()
  const before = m.stats().probes
  await checkAction(h.db, h.workspaceId, c.id, c.revision, 'run', null, h.clock.now())
  const row0 = await h.row(c.id)
  t.equal(row0.revision, c.revision, 'run is not an edit')
  await m.step()
  t.equal(m.stats().probes, before + 1)
  t.equal((await h.row(c.id)).last_status, 'up')
})

t.test('a missed heartbeat goes unknown by default, then unhealthy only when configured', async (t) => {
  const rid = await h.resource()
  const strict = await h.check(rid, 'heartbeat', { interval_seconds: 60, grace_seconds: 30, missing: 'unhealthy' })
  const lenient = await h.check(rid, 'heartbeat', { interval_seconds: 60, grace_seconds: 30 })
  t.equal((await h.row(lenient.id)).configuration.missing, 'unknown', 'the default is unknown (desktop spec)')
  const m = await h.monitor()
  const beat = async () => {
    await recordBeat(h.db, h.workspaceId, rid, strict.id, h.clock.now())
    await recordBeat(h.db, h.workspaceId, rid, lenient.id, h.clock.now())
  }
  for (let i = 0; i < 3; i++) {
    await beat()
    await h.advance(MIN, [m], 15_000)
  }
  t.equal((await h.row(strict.id)).health, 'healthy', 'regular beats confirm health')
  t.equal((await h.row(lenient.id)).health, 'healthy')
  // Silence from here. The beat was due by lastBeat + interval + grace.
  const lastBeat = h.clock.now() - MIN
  const deadline = lastBeat + MIN + 30_000
  const healthAt = async (): Promise<string> => (await h.row(strict.id)).health
  while ((await healthAt()) === 'healthy') await h.advance(5_000, [m], 5_000)
  const unknownAt = h.clock.now()
  let s = await h.row(strict.id)
  t.equal(s.health, 'unknown', 'a missing beat first makes it unknown')
  t.ok(unknownAt > deadline && unknownAt <= deadline + 5_000, 'as soon as interval + grace has passed')
  t.equal(s.last_code, PROBE_REASONS.beatMissing)
  t.equal(s.open_incident_id, null, 'no incident on the first miss')
  while ((await healthAt()) === 'unknown') await h.advance(5_000, [m], 5_000)
  s = await h.row(strict.id)
  t.equal(s.health, 'unhealthy', 'the next miss confirms the failure')
  t.ok(h.clock.now() - unknownAt <= MIN + 5_000, 'within one more interval')
  t.ok(s.open_incident_id)
  const l = await h.row(lenient.id)
  t.equal(l.health, 'unknown', 'by default a missing beat never turns unhealthy')
  t.equal(l.open_incident_id, null)
  for (let i = 0; i < 3; i++) {
    await beat()
    await h.advance(MIN, [m], 15_000)
  }
  t.equal((await h.row(strict.id)).health, 'healthy', 'beats again: recovered')
  t.same((await outbox(rid)).map((e) => e.type), ['incident.opened', 'incident.closed'])
})

t.test('the streak is durable across a restart of the monitor', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const a = await h.monitor({ workerId: 'first' })
  await observe(a, target, true)
  await observe(a, target, true)
  await observe(a, target, false)
  await a.stop()
  t.equal((await h.row(c.id)).streak, 1)
  const b = await h.monitor({ workerId: 'second' })
  await observe(b, target, false)
  const row = await h.row(c.id)
  t.equal(row.health, 'unhealthy', 'the failure seen before the restart counts toward confirmation')
  t.equal(row.lease_owner, 'second')
})

t.test('a long silence makes the next observation start over from unknown', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const a = await h.monitor({ workerId: 'before-outage' })
  await observe(a, target, true)
  await observe(a, target, true)
  await a.stop()
  h.clock.advance(30 * MIN) // no monitor running
  const b = await h.monitor({ workerId: 'after-outage' })
  await observe(b, target, true)
  const row = await h.row(c.id)
  t.equal(row.health, 'unknown', 'a stale health is not trusted')
  const last = (await listTransitions(h.db, h.workspaceId, rid, 1, null)).items[0]
  t.equal(last?.to, 'unknown')
  t.match(last?.reason, /confirmation starts over/)
  await observe(b, target, true)
  t.equal((await h.row(c.id)).health, 'healthy')
})

t.test('an unavailable adapter gives unknown, never unhealthy', async (t) => {
  const rid = await h.resource()
  const c = await h.check(rid, 'icmp', { host: '127.0.0.1', count: 1, interval_seconds: 60, timeout_seconds: 2 })
  const m = await h.monitor({ icmp: { pingPath: '/nonexistent/ping' } })
  for (let i = 0; i < 4; i++) await h.advance(MIN, [m], MIN)
  const row = await h.row(c.id)
  t.equal(row.health, 'unknown')
  t.equal(row.last_code, PROBE_REASONS.icmpUnavailable)
  t.equal(row.open_incident_id, null)
  t.same(await outbox(rid), [])
})

t.test('a check that is not required opens no incident', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 }, { required: false })
  const m = await h.monitor()
  for (let i = 0; i < 3; i++) await observe(m, target, false)
  const row = await h.row(c.id)
  t.equal(row.health, 'unhealthy')
  t.equal(row.open_incident_id, null)
  t.same(await outbox(rid), [])
})

t.test('old result rows are pruned after the retention time', async (t) => {
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const m = await h.monitor({ resultRetentionMs: 5 * MIN })
  await h.advance(30 * MIN, [m], MIN)
  const r = await h.db.query<{ total: number; old: number }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE observed_at < $2)::int AS old FROM monitor_results WHERE check_id = $1`,
    [c.id, new Date(h.clock.now() - 15 * MIN).toISOString()])
  t.ok((r.rows[0]?.total ?? 0) >= 5, 'recent results are kept')
  t.equal(r.rows[0]?.old, 0, 'older ones are gone (pruned every 10 minutes)')
})
