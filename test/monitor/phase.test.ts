// Phases: a check's offset within its interval comes from a hash of its id,
// so ids that share their leading bits (UUIDv7s made in one burst carry the
// same millisecond timestamp there) still spread evenly over the interval.
import t from 'tap'
import { randomFillSync, randomUUID } from 'node:crypto'
import { KIND_SPECS, phaseOf } from '../../monitor/internal.ts'
import { startTcp } from '../helpers/servers.ts'
import { harness } from '../helpers/monitor-harness.ts'

/** RFC 9562 version 7: 48 bits of Unix milliseconds, then random bits. */
function uuidv7(ms: number): string {
  const b = randomFillSync(Buffer.alloc(16))
  b.writeUIntBE(ms, 0, 6)
  b[6] = 0x70 | ((b[6] as number) & 0x0f)
  b[8] = 0x80 | ((b[8] as number) & 0x3f)
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

/** How many of `n` phases fall in each of `slots` equal parts of the interval. */
function histogram(phases: number[], intervalMs: number, slots: number): number[] {
  const h = new Array<number>(slots).fill(0)
  for (const p of phases) {
    const i = Math.floor((p / intervalMs) * slots)
    h[i] = (h[i] ?? 0) + 1
  }
  return h
}

t.test('a burst of UUIDv7 ids spreads evenly over the interval', async (t) => {
  const interval = 120_000
  const now = Date.now()
  // 4,800 ids within 3 milliseconds, as a bulk import makes them.
  const ids = Array.from({ length: 4_800 }, (_, i) => uuidv7(now + (i % 3)))
  const phases = ids.map((id) => phaseOf(id, interval))
  for (const p of phases) if (!(p >= 0 && p < interval && Number.isInteger(p))) t.fail(`phase ${p} outside [0, ${interval})`)
  const h = histogram(phases, interval, 12)
  // 400 expected per ten-second slot; uniform phases stay within ±25% (more than 5 standard deviations).
  t.ok(h.every((n) => n >= 300 && n <= 500), `every ten-second slot holds 300-500 of 4,800 (${h.join(', ')})`)
  t.ok(new Set(phases).size > 4_500, 'nearly all phases distinct')
})

t.test('phases are stable, per id and interval, and random ids spread as well', async (t) => {
  const id = uuidv7(Date.now())
  t.equal(phaseOf(id, 60_000), phaseOf(id, 60_000), 'the same id has the same phase (in every process)')
  t.ok(phaseOf(id, 1000) < 1000)
  const h = histogram(Array.from({ length: 4_800 }, () => phaseOf(randomUUID(), 60_000)), 60_000, 12)
  t.ok(h.every((n) => n >= 300 && n <= 500), `version 4 ids spread too (${h.join(', ')})`)
})

t.test('the log checks of one resource are due together; other kinds keep their own phase', async (t) => {
  t.equal(KIND_SPECS.log.phaseBy, 'resource')
  t.equal(KIND_SPECS.tcp.phaseBy, undefined, 'probes of other kinds stay spread by their own id')
  const h = await harness()
  t.teardown(() => h.close())
  const rids = [await h.resource(), await h.resource(), await h.resource()]
  const made = h.clock.now()
  for (const rid of rids) {
    for (let i = 0; i < 4; i++) {
      await h.check(rid, 'log', { query: { q: `word${i}` }, window_seconds: 60, threshold: 1, comparison: 'above', interval_seconds: 60, timeout_seconds: 2 }, { id: uuidv7(made) })
    }
  }
  // No log store in this monitor: each evaluation is an `unknown` observation, written at its due time.
  const m = await h.monitor()
  const start = h.clock.now()
  await h.advance(60_000, [m], 1_000)
  const r = await h.db.query<{ resource_id: string; at: Date }>(
    'SELECT c.resource_id, min(r.observed_at) AS at FROM monitor_results r JOIN monitor_checks c ON c.id = r.check_id WHERE r.observed_at > $1 GROUP BY r.check_id, c.resource_id',
    [new Date(start).toISOString()])
  t.equal(r.rows.length, 12, 'every check ran within one interval')
  const instants = new Map<string, Set<number>>()
  for (const x of r.rows) {
    const set = instants.get(x.resource_id) ?? new Set<number>()
    set.add(Math.floor((new Date(x.at).getTime() - start) / 1000))
    instants.set(x.resource_id, set)
  }
  t.same([...instants.values()].map((set) => set.size), [1, 1, 1], 'the four checks of each resource ran in the same second')
  t.ok(new Set([...instants.values()].map((set) => [...set][0])).size >= 2, 'the resources are spread over the interval')
})

t.test('checks created in one burst with UUIDv7 ids are probed spread over their interval', async (t) => {
  const h = await harness()
  t.teardown(() => h.close())
  const target = await startTcp()
  t.teardown(() => target.close())
  const rid = await h.resource()
  const made = h.clock.now()
  for (let i = 0; i < 48; i++) {
    await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 }, { id: uuidv7(made) })
  }
  const m = await h.monitor()
  const start = h.clock.now()
  await h.advance(60_000, [m], 5_000)
  const r = await h.db.query<{ at: Date }>('SELECT min(observed_at) AS at FROM monitor_results WHERE observed_at > $1 GROUP BY check_id', [new Date(start).toISOString()])
  t.equal(r.rows.length, 48, 'every check ran within one interval')
  const slots = histogram(r.rows.map((x) => (new Date(x.at).getTime() - start) % 60_000), 60_000, 12)
  // 48 ids with one timestamp: read from the id they would all share one five-second slot.
  t.ok(slots.filter((n) => n > 0).length >= 8, `spread over the interval (five-second slots: ${slots.join(', ')})`)
  t.ok(Math.max(...slots) <= 12, `no slot holds more than a quarter of them (${Math.max(...slots)})`)
})
