// Log checks due together are counted in one statement (deploy's StoreLogSource
// over query/log-count-batch.ts), on a real embedded engine: every filter kind
// counts exactly what the one-by-one count counts, N counts are one statement,
// a failing statement makes every check in it unknown, and sample lines are
// read only while they matter (the downs that confirm an incident or send its
// notice, and the two ups that recover), judged from the check's stored state.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateLogStore, openLogStore, type LogStore } from '../../ingest/index.ts'
import { countMatchingLines } from '../../query/internal.ts'
import { createRunners, PROBE_REASONS, type LogCountRequest, type Outcome, type ProbeTarget, type Runner } from '../../monitor/index.ts'
import type { ProbeContext } from '../../monitor/internal.ts'
import { applyObservation, initialState, type CheckState } from '../../monitor/state.ts'
import { StoreLogSource } from '../../deploy/roles/log-source.ts'
import { closedPort } from '../alerting/alerts/receivers.ts'

const dir = mkdtempSync(join(tmpdir(), 'lookout-logbatch-'))
const store = openLogStore({ path: dir })
await migrateLogStore(store, { retentionDays: 7 })
t.teardown(async () => {
  await store.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A real store, counting the statements that reach it; `inner` can be switched to another real store. */
function counting(inner: LogStore): LogStore & { statements: number; inner: LogStore } {
  const w = Object.create(inner) as LogStore & { statements: number; inner: LogStore }
  w.statements = 0
  w.inner = inner
  w.query = (sql, params) => {
    w.statements++
    return w.inner.query(sql, params)
  }
  return w
}

const WS = '11111111-1111-4111-8111-111111111111'
const WS2 = '33333333-3333-4333-8333-333333333333'
const A = '22222222-2222-4222-8222-222222222222'
const B = '44444444-4444-4444-8444-444444444444'
const TRACE = '0af7651916cd43dd8448eb211c80319c'
const NOW = Date.now()
const SEV = { DEBUG: 5, INFO: 9, WARN: 13, ERROR: 17, FATAL: 21 } as const
const lines: [string, string, number, keyof typeof SEV, string, Record<string, string>][] = [
  // workspace, resource, seconds ago, level, message, attributes
  [WS, A, 5, 'ERROR', 'payment declined for order 1', {}],
  [WS, A, 8, 'INFO', 'payment declined (retrying)', {}],
  [WS, A, 15, 'ERROR', 'payment accepted', { reason: 'card declined' }],
  [WS, A, 40, 'FATAL', 'kernel panic: 100% cpu', {}],
  [WS, A, 70, 'WARN', 'connection refused to db-1', { peer: '10.0.0.7' }],
  [WS, A, 200, 'DEBUG', 'cache miss', {}],
  [WS, A, 400, 'ERROR', 'payment declined for order 0', {}],
  [WS, B, 3, 'ERROR', 'payment declined on B', {}],
  [WS, B, 30, 'INFO', 'backup done in 42 s', {}],
  [WS, B, 90, 'WARN', 'slow query -- 3 s', {}],
  [WS2, A, 6, 'ERROR', 'payment declined elsewhere', {}],
]
await store.insertJsonRows('logs', Buffer.from(lines.map(([ws, rid, ago, sev, message, attributes], i) => JSON.stringify({
  workspace_id: ws, resource_id: rid, timestamp: (BigInt(NOW - ago * 1000) * 1_000_000n).toString(), received_at: (BigInt(NOW) * 1_000_000n).toString(),
  observed_timestamp: 0, event_id: `e${i}`, message, attributes, severity_number: SEV[sev], severity_text: sev, trace_id: i % 3 === 0 ? TRACE : '',
})).join('\n') + '\n'), 'log-batch-test')

// Every filter kind, alone and together, over windows of several lengths, on both resources and workspaces.
const QUERIES: Record<string, string>[] = [
  {}, { q: 'payment declined' }, { q: '"payment declined"' }, { q: 'payment -declined' }, { q: 'declined OR panic' }, { q: '-"payment declined"' },
  { q: '100%' }, { q: '--' }, { q: '10.0.0.7' }, { q: 'card' }, { severity: 'ERROR' }, { severity: 'WARN', q: 'connection' },
  { trace_id: TRACE }, { trace_id: TRACE.toUpperCase(), severity: 'ERROR' }, { q: 'payment declined', severity: 'ERROR' }, { q: 'nothing matches this' },
]
const reqs: LogCountRequest[] = []
for (const [ws, rid] of [[WS, A], [WS, B], [WS2, A]] as const) {
  for (const windowS of [10, 60, 300, 600]) {
    for (const query of QUERIES) reqs.push({ workspaceId: ws, resourceId: rid, query, startMs: NOW - windowS * 1000, endMs: NOW + 1, timeoutMs: 5000, samples: false })
  }
}

t.test('counts due together: one statement per resource, each count and its lines equal to its own query', async (t) => {
  const one: { count: number; samples: unknown[] }[] = []
  for (const r of reqs) one.push(await countMatchingLines(store, r.workspaceId, r.resourceId, r.query, r.startMs, r.endMs, r.timeoutMs))
  t.ok(one.some((n) => n.count > 5) && one.some((n) => n.count === 0), 'the data gives both empty and larger counts')
  const s = counting(store)
  const src = new StoreLogSource(s, null)
  // Half with their lines, half without, in one batch.
  const batched = await Promise.all(reqs.slice(0, 150).map((r, i) => src.count({ ...r, samples: i % 2 === 0 })))
  // 64 counts on each of (WS, A), (WS, B), (WS2, A): 150 of them span the three.
  t.equal(s.statements, 3, `${batched.length} counts over three resources in three statements`)
  t.same(batched.map((c) => c.count), one.slice(0, 150).map((c) => c.count))
  t.same(batched.map((c, i) => (i % 2 === 0 ? c.samples : null)), one.slice(0, 150).map((c, i) => (i % 2 === 0 ? c.samples : null)), 'the same lines, newest first')
  t.ok(batched.every((c, i) => i % 2 === 0 || c.samples.length === 0), 'no lines where none were asked for')
  // Past the batch bound (200): two batches of three resources each, still the same counts.
  const twice = await Promise.all([...reqs, ...reqs].map((r) => src.count(r)))
  t.same(twice.map((c) => c.count), [...one, ...one].map((c) => c.count))
  t.equal(s.statements, 9)
})

t.test('a batch longer than the engine takes in one statement is cut into several, each count still its own', async (t) => {
  // 200 text queries with a level and their lines: over 256 KiB of SQL in one statement (max_query_size).
  const long = Array.from({ length: 200 }, (_, i): LogCountRequest => ({
    workspaceId: WS, resourceId: A, query: { q: 'payment declined "for order" -retrying', severity: 'ERROR' },
    startMs: NOW - (60 + i) * 1000, endMs: NOW + 1, timeoutMs: 5000, samples: true,
  }))
  const one: { count: number; samples: unknown[] }[] = []
  for (const r of long.slice(0, 4)) one.push(await countMatchingLines(store, r.workspaceId, r.resourceId, r.query, r.startMs, r.endMs, r.timeoutMs))
  t.ok(one.every((c) => c.count === 1), 'each finds its line')
  const s = counting(store)
  const src = new StoreLogSource(s, null)
  const all = await Promise.allSettled(long.map((r) => src.count(r)))
  t.same(all.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason).slice(0, 120)), [], 'no count failed')
  t.ok(s.statements >= 2 && s.statements <= 4, `${s.statements} statements for 200 long counts`)
  t.same(all.slice(0, 4).map((r) => (r as PromiseFulfilledResult<{ count: number; samples: unknown[] }>).value), one, 'the same counts and lines as one by one')
})

t.test('an invalid filter fails only its own count', async (t) => {
  const src = new StoreLogSource(store, null)
  const [bad, good] = await Promise.allSettled([
    src.count({ ...(reqs[0] as LogCountRequest), query: { severity: 'LOUD' } }),
    src.count(reqs[1] as LogCountRequest),
  ])
  t.equal(bad?.status, 'rejected')
  t.match(good, { status: 'fulfilled', value: { count: 2 } })
})

const target = (checkId: string, config: Record<string, unknown>, resourceId = A): ProbeTarget => ({
  checkId, kind: 'log', config: { window_seconds: 60, comparison: 'above', ...config }, credential: null, timeoutMs: 2000, intervalMs: 60_000, graceMs: 0,
  activeSince: NOW - 60_000, resource: { workspaceId: WS, resourceId },
})
const ctx = { now: NOW + 1 } as ProbeContext

/** A check as the scheduler holds it: its stored confirmation state, moved by each outcome (monitor/state.ts). */
class Held {
  state: CheckState = initialState(NOW)
  readonly target: ProbeTarget
  constructor(target: ProbeTarget) {
    this.target = target
  }
  async run(runner: Runner, inMaintenance = false): Promise<Outcome> {
    const o = await runner.run(this.target, { ...ctx, state: this.state })
    this.state = applyObservation(this.state, o.status, { at: NOW, required: true, inMaintenance, staleAfterMs: 3_600_000, missingCounts: false }).next
    return o
  }
}
const samplesOf = (o: Outcome) => (o.details as { log: { samples: { message: string }[] } }).log.samples
const runAll = (runner: Runner, held: readonly Held[]) => Promise.all(held.map((h) => h.run(runner)))

t.test('sample lines while they matter; a failing statement makes every check in it unknown', async (t) => {
  const s = counting(store)
  const runner = createRunners(null, { logs: new StoreLogSource(s, null) }, ['log']).log
  if (runner === undefined) throw new Error('no log runner')
  const checks = Array.from({ length: 6 }, (_, i) => new Held(target(`c${i}`, { query: { q: 'payment declined' }, threshold: i % 2 ? 1 : 50, comparison: i % 2 ? 'below' : 'above' })))
  // The first two ups of each check read their lines (a recovery quotes them), the six together.
  for (let round = 0; round < 2; round++) {
    const o = await runAll(runner, checks)
    t.same(o.map((x) => x.status), checks.map(() => 'up'))
    t.ok(o.every((x) => samplesOf(x).length === 3), 'up, recovering: with its lines')
  }
  t.equal(s.statements, 2)
  // Steady: the six are counted together, without lines.
  const steady = await runAll(runner, checks)
  t.same(steady.map((x) => x.status), checks.map(() => 'up'))
  t.ok(steady.every((x) => samplesOf(x).length === 0))
  t.same(steady.map((x) => (x.details as { log: { count: number } }).log.count), checks.map(() => 3), 'the two declines and a line whose attribute says declined')
  t.equal(s.statements, 3, 'one statement for the six')
  // A steady check that crosses is counted again with its lines: the incident quotes them.
  const c0 = checks[0] as Held
  c0.target.config.threshold = 1
  const crossing = await c0.run(runner)
  t.equal(crossing.status, 'down')
  const lines = ['payment declined for order 1', 'payment declined (retrying)', 'payment accepted']
  t.same(samplesOf(crossing).map((x) => x.message), lines)
  t.equal(s.statements, 5)
  // The second down confirms and opens the incident (its reason quotes the lines); once the incident is
  // open and notified, a steady down is counted without them, and the first up after it with them again.
  const confirming = await c0.run(runner)
  t.equal(c0.state.health, 'unhealthy')
  t.ok(c0.state.openIncidentId !== null && c0.state.incidentNotified, 'incident opened and notified')
  t.same(samplesOf(confirming).map((x) => x.message), lines, 'the confirming observation quotes the lines')
  t.match(confirming.reason, /; newest: \[.*\] payment declined for order 1/)
  const before = s.statements
  const steadyDown = await c0.run(runner)
  t.equal(steadyDown.status, 'down')
  t.same(samplesOf(steadyDown), [], 'a steady down reads no lines')
  t.notMatch(steadyDown.reason, /newest:/)
  t.equal(s.statements, before + 1, 'one count, not counted again')
  c0.target.config.threshold = 50
  const recovering = await c0.run(runner)
  t.equal(recovering.status, 'up')
  t.same(samplesOf(recovering).map((x) => x.message), lines, 'the first recovering up quotes its lines (counted again with them)')
  t.same(samplesOf(await c0.run(runner)).map((x) => x.message), lines, 'and the second, whose recovery notice quotes them')
  t.equal(c0.state.openIncidentId, null)
  t.same(samplesOf(await c0.run(runner)), [], 'steady up again')
  // An incident opened during maintenance has no notice yet: its downs keep their lines until one sends it.
  const m = new Held(target('m', { query: { q: 'payment declined' }, threshold: 1 }))
  for (let i = 0; i < 3; i++) t.equal(samplesOf(await m.run(runner, true)).length, 3, `down ${i + 1} in maintenance: lines`)
  t.ok(m.state.openIncidentId !== null && !m.state.incidentNotified)
  t.equal(samplesOf(await m.run(runner)).length, 3, 'the down that sends the deferred notice: lines')
  t.same(samplesOf(await m.run(runner)), [], 'then steady')
  // Without the scheduler's state (another caller): always with lines.
  t.equal(samplesOf(await runner.run(c0.target, ctx)).length, 3)
  // The store stops answering (a ClickHouse nothing listens on): the one statement fails, all six are unknown, none up.
  const gone = openLogStore({ url: `http://127.0.0.1:${await closedPort()}` })
  t.teardown(() => gone.close())
  s.inner = gone
  const rest = checks.slice(1)
  const failing = s.statements
  const failed = await runAll(runner, rest)
  t.equal(s.statements, failing + 1, 'one failing statement')
  t.same(failed.map((x) => [x.status, x.code]), rest.map(() => ['unknown', PROBE_REASONS.logUnavailable]))
})
