// Several monitor processes on one PostgreSQL: each check has exactly one
// runner at a time, the work is shared, a dead process's checks are taken over
// within two intervals, and a result under a lost lease is fenced off.
import t from 'tap'
import { ManualClock, checkAction } from '../../monitor/internal.ts'
import { startTcp } from '../helpers/servers.ts'
import { harness } from '../helpers/monitor-harness.ts'

const h = await harness()
t.teardown(() => h.close())
const MIN = 60_000
const target = await startTcp()
t.teardown(() => target.close())

t.beforeEach(() => h.clear())

async function owners(): Promise<Map<string, string | null>> {
  const r = await h.db.query<{ id: string; lease_owner: string | null }>('SELECT id, lease_owner FROM monitor_checks')
  return new Map(r.rows.map((x) => [x.id, x.lease_owner]))
}

t.test('two processes share the checks and never run the same one', async (t) => {
  const rid = await h.resource()
  const ids: string[] = []
  for (let i = 0; i < 20; i++) ids.push((await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })).id)
  const a = await h.monitor({ workerId: 'a', leaseMs: 30_000 })
  t.equal(a.owned().length, 20, 'alone, one process takes everything')
  const b = await h.monitor({ workerId: 'b', leaseMs: 30_000 })
  await a.step() // gives back its surplus
  await b.step() // takes it
  t.equal(a.owned().length, 10)
  t.equal(b.owned().length, 10)
  const own = await owners()
  t.same(new Set(own.values()), new Set(['a', 'b']))
  const since = h.clock.now()
  await h.advance(3 * MIN, [a, b], 10_000)
  const r = await h.db.query<{ check_id: string; worker: string; n: number }>(
    'SELECT check_id, worker, count(*)::int AS n FROM monitor_results WHERE observed_at > $1 GROUP BY check_id, worker', [new Date(since).toISOString()])
  t.equal(r.rows.length, 20, 'every check was probed, each by one process only')
  for (const row of r.rows) {
    t.equal(row.worker, own.get(row.check_id), 'by the lease holder')
    t.equal(row.n, 3, 'once per interval')
  }
})

t.test('a dead process\'s checks are picked up within two intervals', async (t) => {
  const rid = await h.resource()
  for (let i = 0; i < 10; i++) await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  const a = await h.monitor({ workerId: 'a', leaseMs: 30_000 })
  const b = await h.monitor({ workerId: 'b', leaseMs: 30_000 })
  await a.step()
  await b.step()
  const orphaned = a.owned()
  t.equal(orphaned.length, 5)
  await h.advance(MIN, [a, b], 10_000)
  a.abandon() // killed: its leases stay in the table until they expire
  const crashedAt = h.clock.now()
  const probedAfter = async (): Promise<number> => {
    const r = await h.db.query<{ n: number }>(
      `SELECT count(DISTINCT check_id)::int AS n FROM monitor_results WHERE worker = 'b' AND check_id = ANY($1::uuid[]) AND observed_at > $2`,
      [orphaned, new Date(crashedAt).toISOString()])
    return r.rows[0]?.n ?? 0
  }
  while ((await probedAfter()) < orphaned.length && h.clock.now() - crashedAt <= 2 * MIN) await h.advance(5_000, [b], 5_000)
  t.equal(await probedAfter(), orphaned.length, 'every orphaned check probed again by the survivor')
  t.ok(h.clock.now() - crashedAt <= 2 * MIN, `within two intervals (${(h.clock.now() - crashedAt) / 1000} s)`)
  t.equal(b.owned().length, 10)
})

t.test('a result probed under an expired lease is rejected', async (t) => {
  const silent = await startTcp({ reply: () => '' })
  t.teardown(() => silent.close())
  const rid = await h.resource()
  const c = await h.check(rid, 'tcp', { host: '127.0.0.1', port: silent.port, expect: 'HELLO', interval_seconds: 60, timeout_seconds: 2 })
  const a = await h.monitor({ workerId: 'a', leaseMs: 30_000 })
  await checkAction(h.db, h.workspaceId, c.id, c.revision, 'run', null, h.clock.now())
  h.clock.advance(1_000) // a's housekeeping sees the run request and starts the probe, which waits for its timeout
  while (a.stats().probes === 0) await new Promise((r) => setTimeout(r, 5))
  // a stalls (its timers do not run) while time goes on for b: a's lease runs out...
  const b = await h.monitor({ workerId: 'b', leaseMs: 30_000, clock: new ManualClock(h.clock.now() + 31_000) })
  t.equal(b.owned().length, 1, '...and b takes the check')
  await a.settle()
  t.equal(a.stats().rejected, 1, 'a\'s late result is fenced off')
  t.equal(a.owned().length, 0, 'and a lets the check go')
  const row = await h.row(c.id)
  t.equal(row.lease_owner, 'b')
  t.equal(row.last_observed_at, null, 'nothing of it was written')
})

/** `n` checks at once: one made through the harness, the rest copies of it under new ids. */
async function manyChecks(n: number): Promise<void> {
  const rid = await h.resource()
  const first = await h.check(rid, 'tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  await h.db.query(
    `INSERT INTO monitor_checks SELECT (jsonb_populate_record(c, jsonb_build_object('id', gen_random_uuid()))).*
     FROM monitor_checks c, generate_series(1, $2::int) WHERE c.id = $1`, [first.id, n - 1])
}

// The embedded database runs a statement on the event loop: giving back 2,345
// leases goes in pages, each a short statement, and still gives back every one.
t.test('leases are given back in pages, all of them', async (t) => {
  const { releaseLeases } = await import('../../monitor/leases.ts')
  await manyChecks(2345)
  await h.db.query(`UPDATE monitor_checks SET lease_owner = 'w'`)
  const held = async (): Promise<number> => (await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM monitor_checks WHERE lease_owner = 'w'`)).rows[0]?.n ?? -1
  t.equal(await held(), 2345)
  let pauses = 0
  const some = (await h.db.query<{ id: string }>(`SELECT id FROM monitor_checks ORDER BY id LIMIT 1200`)).rows.map((r) => r.id)
  await releaseLeases(h.db, 'w', some, 500, async () => { pauses++ })
  t.equal(pauses, 2, 'the ids in three statements of 500, 500 and 200')
  t.equal(await held(), 1145)
  pauses = 0
  await releaseLeases(h.db, 'w', null, 500, async () => { pauses++ })
  t.equal(pauses, 2, 'every lease of the worker in three statements')
  t.equal(await held(), 0, 'none left')
  await releaseLeases(h.db, 'w', null, 500)
  t.equal(await held(), 0, 'nothing held: one statement that finds nothing')
})

// The fair share's counts on the embedded database: in slices by id, the same totals as one statement each.
t.test('the share counts in slices equal the counts in one statement', async (t) => {
  const { shareOf } = await import('../../monitor/leases.ts')
  await manyChecks(1234)
  await h.db.query(`UPDATE monitor_checks SET lease_owner = CASE WHEN random() < 0.4 THEN 'w' ELSE NULL END`)
  await h.db.query(`UPDATE monitor_checks SET location = 'collector' WHERE id IN (SELECT id FROM monitor_checks ORDER BY id DESC LIMIT 100)`)
  const now = Date.now()
  const whole = await shareOf(h.db, 'w', now)
  let pauses = 0
  const sliced = await shareOf(h.db, 'w', now, async () => { pauses++ }, 500)
  t.same(sliced, whole, `${JSON.stringify(whole)} either way`)
  t.equal(whole.total, 1134, 'collector checks are not shared')
  t.ok(whole.mine > 0 && whole.mine < 1234)
  t.equal(pauses, 1 + 2, 'a turn after the workers count and after each full slice of 500 (1,234 checks: three slices)')
  const exact = await shareOf(h.db, 'w', now, async () => undefined, 1234)
  t.same(exact, whole, 'a last slice exactly full ends on the empty one after it')
})
