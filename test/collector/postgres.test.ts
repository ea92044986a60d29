// Several processes at once on a real PostgreSQL (one connection pool each, as
// separate processes have). The silence watch: a silent collector is declared
// offline once, with one incident, its checks unknown and never unhealthy;
// contact closes the incident. Pushes: the same batch sent through two api
// processes at once is applied once; observations alternating between them are
// confirmed as if one process had them all.
import t from 'tap'
import { PG_MIGRATIONS } from '../../deploy/index.ts'
import { createToken, createWorkspace, registerResource } from '../../workspace/index.ts'
import { migrate, openPostgres, type Database } from '../../core/index.ts'
import {
  CollectorWatch, acceptObservations, createCheck, insertSource, parseConfig, recordContact, type CollectorObservation,
} from '../../monitor/index.ts'
import { postgresAvailable, startTestPostgres } from '../helpers/postgres.ts'
import { collectorSourceWithCheck } from '../helpers/collector-source.ts'

t.test('several watches raise one offline incident per source', { skip: postgresAvailable() ? false : 'initdb not found (Debian package postgresql)' }, async (t) => {
  const server = await startTestPostgres()
  t.teardown(() => server.stop())
  const db = await openPostgres(server.url, 4)
  t.teardown(() => db.close())
  await migrate(db, PG_MIGRATIONS)
  const ws = (await createWorkspace(db, 'watch')).id
  const rid = (await registerResource(db, ws, { external_id: 'dc', name: 'dc' })).resource.id
  const sources: string[] = []
  const checks: string[] = []
  const cfg = parseConfig('tcp', { host: '10.0.0.1', port: 5432, interval_seconds: 2 })
  if (!cfg.ok) throw new Error('bad configuration')
  for (let i = 0; i < 5; i++) {
    const tokenId = (await createToken(db, { workspaceId: ws, scopes: ['monitor:heartbeat'], resources: [rid], kind: 'collector' })).id
    const s = await insertSource(db, { id: crypto.randomUUID(), workspaceId: ws, resourceId: rid, name: `c${i}`, kind: 'collector', tokenId })
    sources.push(s.id)
    const c = await createCheck(db, {
      workspaceId: ws, resourceId: rid, name: `check ${i}`, kind: 'tcp', location: 'collector', config: cfg.config, credential: null,
      sourceId: s.id, enabled: true, required: true, maintenanceUntil: null, runNow: false,
    }, Date.now())
    checks.push(c.id)
    // Contact 10 s ago, health confirmed healthy then.
    await recordContact(db, s.id, '1.0', '127.0.0.1', Date.now() - 10_000)
    await db.query(`UPDATE monitor_checks SET health = 'healthy', candidate = 'up', streak = 2, last_observed_at = $2 WHERE id = $1`, [c.id, new Date(Date.now() - 10_000)])
  }
  const pools: Database[] = []
  for (let i = 0; i < 3; i++) pools.push(await openPostgres(server.url, 2))
  t.teardown(() => Promise.all(pools.map((p) => p.close())))
  // Silence max(5 s, 3 x 2 s) = 6 s < 10 s: every source is silent.
  const watches = pools.map((p) => new CollectorWatch(p, { silenceMinMs: 5_000 }))
  const declared = (await Promise.all([...watches, ...watches].map((w) => w.step()))).flat()
  t.same([...declared].sort(), [...sources].sort(), 'each source declared offline by exactly one of the racing rounds')
  t.same((await Promise.all(watches.map((w) => w.step()))).flat(), [], 'and never again')
  const incidents = await db.query<{ source_id: string; n: number }>(
    `SELECT source_id, count(*)::int AS n FROM monitor_incidents WHERE kind = 'collector_offline' GROUP BY source_id`)
  t.equal(incidents.rows.length, 5)
  t.ok(incidents.rows.every((r) => r.n === 1), 'one incident per source')
  const health = await db.query<{ health: string }>('SELECT health FROM monitor_checks WHERE id = ANY($1::uuid[])', [checks])
  t.ok(health.rows.every((r) => r.health === 'unknown'), 'silent: unknown, never unhealthy')
  const tr = await db.query<{ to_health: string; reason: string }>('SELECT to_health, reason FROM monitor_transitions WHERE check_id = ANY($1::uuid[])', [checks])
  t.equal(tr.rows.length, 5)
  t.match(tr.rows[0]?.reason, /has not reported for over 6 s/)
  await recordContact(pools[0] as Database, sources[0] as string, '1.0', '127.0.0.1', Date.now())
  const open = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM monitor_incidents WHERE source_id = $1 AND closed_at IS NULL`, [sources[0]])
  t.equal(open.rows[0]?.n, 0, 'contact closes the incident')
  const back = await db.query<{ offline_since: Date | null }>('SELECT offline_since FROM monitor_sources WHERE id = $1', [sources[0]])
  t.equal(back.rows[0]?.offline_since, null)
})

t.test('pushes through several api processes: applied once, confirmed across them', { skip: postgresAvailable() ? false : 'initdb not found (Debian package postgresql)' }, async (t) => {
  const server = await startTestPostgres()
  t.teardown(() => server.stop())
  const db = await openPostgres(server.url, 4)
  t.teardown(() => db.close())
  await migrate(db, PG_MIGRATIONS)
  const ws = (await createWorkspace(db, 'push')).id
  const rid = (await registerResource(db, ws, { external_id: 'dc', name: 'dc' })).resource.id
  const { source, check } = await collectorSourceWithCheck(db, ws, rid)
  const api = [await openPostgres(server.url, 2), await openPostgres(server.url, 2)] as const
  t.teardown(() => Promise.all(api.map((p) => p.close())))
  let n = 0
  const obs = (status: 'up' | 'down'): CollectorObservation => ({
    id: crypto.randomUUID(), check_id: check.id, revision: check.revision, observed_at: new Date(Date.now() - 30_000 + n++ * 100).toISOString(),
    status, code: status === 'up' ? 'LOOKOUT_PROBE_OK' : 'LOOKOUT_PROBE_REFUSED', reason: status, latency_ms: 1, details: null,
  })
  // A retry racing its original on another process: one applies, the other sees duplicates.
  const batch = Array.from({ length: 50 }, () => obs('up'))
  const both = await Promise.all(api.map((p) => acceptObservations(p, source, batch, Date.now())))
  t.same(both.map((r) => r.applied).sort(), [0, 50])
  t.same(both.map((r) => r.duplicates).sort(), [0, 50])
  const rows = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_results WHERE check_id = $1', [check.id])
  t.equal(rows.rows[0]?.n, 50, 'each observation stored once')
  // Two failures, one through each process: confirmed unhealthy, one incident.
  await acceptObservations(api[0], source, [obs('down')], Date.now())
  t.equal((await db.query<{ health: string }>('SELECT health FROM monitor_checks WHERE id = $1', [check.id])).rows[0]?.health, 'healthy')
  await acceptObservations(api[1], source, [obs('down')], Date.now())
  t.equal((await db.query<{ health: string }>('SELECT health FROM monitor_checks WHERE id = $1', [check.id])).rows[0]?.health, 'unhealthy')
  const inc = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_incidents WHERE check_id = $1', [check.id])
  t.equal(inc.rows[0]?.n, 1)
  const outbox = await db.query<{ type: string }>('SELECT type FROM monitor_outbox WHERE check_id = $1', [check.id])
  t.same(outbox.rows.map((r) => r.type), ['incident.opened'], 'the same outbox row a monitor process would write')
  // Observation ids are remembered 48 h, then pruned by the watch.
  const [oldId, recentId] = [crypto.randomUUID(), crypto.randomUUID()]
  await db.query(
    `INSERT INTO monitor_collector_observations (id, source_id, check_id, outcome, received_at) VALUES
       ($1, $3, $4, 'applied', now() - interval '49 hours'), ($2, $3, $4, 'applied', now() - interval '47 hours')`, [oldId, recentId, source.id, check.id])
  await new CollectorWatch(db).step()
  const kept = await db.query<{ id: string }>('SELECT id FROM monitor_collector_observations WHERE id = ANY($1::uuid[])', [[oldId, recentId]])
  t.same(kept.rows.map((r) => r.id), [recentId])
})
