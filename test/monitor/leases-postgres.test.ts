// Process leases on a real PostgreSQL server (the server-mode setup): three
// monitors, each with its own connection pool as separate processes would have,
// start and step at the same time, so their claims really race (FOR UPDATE SKIP
// LOCKED, the re-checked holder). Each check has exactly one runner, every
// result row is the holder's, a killed process's checks are taken over within
// two intervals, and the dead process's row is purged later.
import t, { type Test } from 'tap'
import { PG_MIGRATIONS } from '../../deploy/index.ts'
import { createWorkspace, registerResource } from '../../workspace/index.ts'
import { migrate, openPostgres, type Database } from '../../core/index.ts'
import { ManualClock, Monitor, createCheck, parseConfig } from '../../monitor/internal.ts'
import { claimChecks, registerWorker, removeWorker } from '../../monitor/leases.ts'
import { postgresAvailable, startPostgresServer, startTcp } from '../helpers/servers.ts'

const MIN = 60_000
const CHECKS = 30
const LEASE_MS = 10_000

t.test('leases on a PostgreSQL server', { skip: postgresAvailable() ? false : 'initdb not found (Debian package postgresql)' }, async (t) => {
  const server = await startPostgresServer()
  t.teardown(() => server.stop())
  const url = `postgres://${server.user}:${encodeURIComponent(server.password)}@${server.host}:${server.port}/postgres`
  const db = await openPostgres(url, 4)
  t.teardown(() => db.close())
  await migrate(db, PG_MIGRATIONS)
  const target = await startTcp()
  t.teardown(() => target.close())

  const clock = new ManualClock()
  const ws = await createWorkspace(db, 'lease tests')
  const rid = (await registerResource(db, ws.id, { external_id: 'leases', name: 'leases' })).resource.id
  const parsed = parseConfig('tcp', { host: '127.0.0.1', port: target.port, interval_seconds: 60, timeout_seconds: 2 })
  if (!parsed.ok) throw new Error('bad configuration')
  const ids: string[] = []
  for (let i = 0; i < CHECKS; i++) {
    const c = await createCheck(db, {
      workspaceId: ws.id, resourceId: rid, name: `port ${i}`, kind: 'tcp', location: 'public', config: parsed.config, credential: null,
      sourceId: null, enabled: true, required: true, maintenanceUntil: null, runNow: false,
    }, clock.now())
    ids.push(c.id)
  }

  // One pool per monitor, as in separate processes.
  const pools: Database[] = []
  const monitors: Monitor[] = []
  t.teardown(async () => {
    for (const m of monitors) await m.stop().catch(() => undefined)
    for (const p of pools) await p.close().catch(() => undefined)
  })
  for (const name of ['a', 'b', 'c']) {
    const pool = await openPostgres(url, 3)
    pools.push(pool)
    monitors.push(new Monitor(pool, { clock, workerId: name, leaseMs: LEASE_MS, syncMs: 1000, flushMs: 5, logger: { warn: () => undefined } }))
  }
  const [a, b, c] = monitors as [Monitor, Monitor, Monitor]

  async function owners(): Promise<Map<string, string | null>> {
    const r = await db.query<{ id: string; lease_owner: string | null }>('SELECT id, lease_owner FROM monitor_checks')
    return new Map(r.rows.map((x) => [x.id, x.lease_owner]))
  }

  /** No check is held by two monitors, and what each holds in memory is what the table says. */
  async function exclusive(t: Test, live: readonly Monitor[]): Promise<void> {
    const own = await owners()
    const holder = new Map<string, string>()
    const twice: string[] = []
    const disagree: string[] = []
    for (const m of live) {
      for (const id of m.owned()) {
        if (holder.has(id)) twice.push(`${id} by ${holder.get(id) ?? ''} and ${m.workerId}`)
        holder.set(id, m.workerId)
        if (own.get(id) !== m.workerId) disagree.push(`${id}: ${m.workerId} in memory, ${own.get(id) ?? 'nobody'} in the table`)
      }
    }
    t.same(twice, [], 'no check is held by two processes')
    t.same(disagree, [], 'what each process holds is what the table says')
  }

  /** Moves the clock in steps, every live monitor's round at the same time. */
  async function advance(ms: number, live: readonly Monitor[], stepMs: number): Promise<void> {
    for (let left = ms; left > 0; left -= stepMs) {
      clock.advance(Math.min(stepMs, left))
      await Promise.all(live.map((m) => m.step()))
    }
  }

  await t.test('claims racing for the same free rows never return a row twice', async (t) => {
    const racers = pools.map((_, i) => `racer-${i}`)
    // Live processes: a row another racer has just taken is then held, not free.
    for (const r of racers) await registerWorker(db, r, clock.now(), clock.now() + 10 * MIN)
    const overlaps: string[] = []
    for (let round = 0; round < 20; round++) {
      await db.exec('UPDATE monitor_checks SET lease_owner = NULL')
      // Each wants every check: SKIP LOCKED and the re-checked holder must split them.
      const got = await Promise.all(pools.map((p, i) => claimChecks(p, racers[i] as string, clock.now(), CHECKS)))
      const seen = new Set<string>()
      for (const rows of got) for (const r of rows) {
        if (seen.has(r.id)) overlaps.push(`round ${round}: ${r.id}`)
        seen.add(r.id)
      }
    }
    t.same(overlaps, [], 'no check claimed by two racers in the same round')
    for (const r of racers) await removeWorker(db, r)
    await db.exec('UPDATE monitor_checks SET lease_owner = NULL')
  })

  await t.test('three processes starting at once split the checks without overlap', async (t) => {
    await Promise.all(monitors.map((m) => m.start()))
    await exclusive(t, monitors)
    // Converge to the fair share (10 each; one over is tolerated so a share of 10 does not churn).
    for (let i = 0; i < 10 && monitors.some((m) => m.owned().length < CHECKS / 3 - 1); i++) await advance(LEASE_MS / 3, monitors, LEASE_MS / 3)
    const counts = monitors.map((m) => m.owned().length)
    t.equal(counts.reduce((x, y) => x + y, 0), CHECKS, `every check has a runner (${counts.join('/')})`)
    for (const n of counts) t.ok(n >= CHECKS / 3 - 1 && n <= CHECKS / 3 + 1, `a fair share: ${n}`)
    await exclusive(t, monitors)
  })

  await t.test('all three claiming the same free checks at once still never overlap', async (t) => {
    for (let round = 0; round < 5; round++) {
      // Every check free at once (as if all holders had expired): the three claims race for the same rows.
      await db.exec('UPDATE monitor_checks SET lease_owner = NULL')
      await Promise.all(monitors.map((m) => m.step()))
      await exclusive(t, monitors)
    }
    for (let i = 0; i < 10 && monitors.reduce((n, m) => n + m.owned().length, 0) < CHECKS; i++) await advance(1_000, monitors, 1_000)
    t.equal(monitors.reduce((n, m) => n + m.owned().length, 0), CHECKS, 'and every check is held again')
    await exclusive(t, monitors)
  })

  await t.test('each check is probed once per interval, by its lease holder only', async (t) => {
    const before = await owners()
    const since = clock.now()
    await advance(3 * MIN, monitors, 5_000)
    await exclusive(t, monitors)
    t.same(await owners(), before, 'no lease moved while every process was alive')
    const r = await db.query<{ check_id: string; worker: string; n: number }>(
      'SELECT check_id, worker, count(*)::int AS n FROM monitor_results WHERE observed_at > $1 GROUP BY check_id, worker',
      [new Date(since).toISOString()])
    t.equal(r.rows.length, CHECKS, 'every check probed, each by one process')
    for (const row of r.rows) {
      t.equal(row.worker, before.get(row.check_id), 'by the holder')
      t.equal(row.n, 3, 'three intervals, three probes')
    }
  })

  await t.test('a killed process\'s checks are taken over within two intervals', async (t) => {
    const orphaned = a.owned()
    t.ok(orphaned.length > 0)
    a.abandon() // kill -9: its lease and its checks' lease_owner stay until the lease expires
    const crashedAt = clock.now()
    const survivors = [b, c]
    const taken = async (): Promise<number> => {
      const r = await db.query<{ n: number }>(
        `SELECT count(DISTINCT check_id)::int AS n FROM monitor_results WHERE worker <> 'a' AND check_id = ANY($1::uuid[]) AND observed_at > $2`,
        [orphaned, new Date(crashedAt).toISOString()])
      return r.rows[0]?.n ?? 0
    }
    while ((await taken()) < orphaned.length && clock.now() - crashedAt <= 2 * MIN) await advance(5_000, survivors, 5_000)
    t.equal(await taken(), orphaned.length, 'every orphaned check probed again by a survivor')
    t.ok(clock.now() - crashedAt <= 2 * MIN, `within two intervals (${(clock.now() - crashedAt) / 1000} s)`)
    t.equal(b.owned().length + c.owned().length, CHECKS, 'the survivors hold every check')
    await exclusive(t, survivors)
    const own = await owners()
    t.notOk([...own.values()].includes('a'), 'nothing is left with the dead process')
  })

  await t.test('the dead process\'s lease row is purged after ten lease periods', async (t) => {
    const workers = async () => (await db.query<{ id: string }>('SELECT id FROM monitor_workers ORDER BY id')).rows.map((r) => r.id)
    t.same(await workers(), ['a', 'b', 'c'], 'the expired row is kept a while (it explains lease_owner values)')
    // Result pruning (and with it the purge) runs every ten minutes.
    await advance(10 * MIN + 5_000, [b, c], 5_000)
    t.same(await workers(), ['b', 'c'])
    await exclusive(t, [b, c])
  })

  await t.test('a clean stop hands the checks over at the next claim, not after a lease', async (t) => {
    await b.stop()
    await advance(1_000, [c], 1_000)
    t.equal(c.owned().length, CHECKS, 'the last process takes everything within a housekeeping round')
    t.same([...new Set((await owners()).values())], ['c'])
  })
})
