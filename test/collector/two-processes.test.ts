// README "Collectors", scale-out: pushes through two real api processes
// (`lookout serve --role api`, each its own pool, on one PostgreSQL server):
// the same batch racing through both is applied once; two failures, one
// through each, confirm one incident, as if one process had them all.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ManagedNats } from '../../deploy/index.ts'
import { openPostgres } from '../../core/index.ts'
import { createWorkspace, registerResource } from '../../workspace/index.ts'
import { postgresAvailable, startTestPostgres } from '../helpers/postgres.ts'
import { startApiProcess, type ApiProcess } from '../faults/lib/api-process.ts'
import { collectorSourceWithCheck } from '../helpers/collector-source.ts'

t.test('two api processes: one batch racing through both applies once; failures through each confirm together', { skip: postgresAvailable() ? false : 'initdb not found (Debian package postgresql)' }, async (t) => {
  const pg = await startTestPostgres()
  t.teardown(() => pg.stop())
  const natsDir = mkdtempSync(join(tmpdir(), 'lookout-nats-'))
  const nats = new ManagedNats({ dir: natsDir })
  const env = { NATS_URL: await nats.start(), DATABASE_URL: pg.url }
  t.teardown(async () => {
    await nats.stop()
    rmSync(natsDir, { recursive: true, force: true })
  })
  // Started one after the other: the first migrates the database.
  const apis: ApiProcess[] = [await startApiProcess(env)]
  apis.push(await startApiProcess(env))
  t.teardown(() => Promise.all(apis.map((a) => a.stop())))
  const db = await openPostgres(pg.url, 2)
  t.teardown(() => db.close())
  const ws = (await createWorkspace(db, 'two-processes')).id
  const rid = (await registerResource(db, ws, { external_id: 'dc', name: 'dc' })).resource.id
  const { token, check } = await collectorSourceWithCheck(db, ws, rid)
  let n = 0
  const obs = (status: 'up' | 'down') => ({
    id: crypto.randomUUID(), check_id: check.id, revision: check.revision, observed_at: new Date(Date.now() - 30_000 + n++ * 100).toISOString(),
    status, code: status === 'up' ? 'LOOKOUT_PROBE_OK' : 'LOOKOUT_PROBE_REFUSED', reason: status, latency_ms: 1, details: null,
  })
  const push = async (api: ApiProcess, observations: unknown[]) => {
    const res = await fetch(`${api.url}/v1/collector/observations`, { method: 'POST', headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, body: JSON.stringify({ observations }) })
    t.equal(res.status, 200, `pushed through ${api.url}`)
    return await res.json() as { applied: number; duplicates: number }
  }
  const health = async () => (await db.query<{ health: string }>('SELECT health FROM monitor_checks WHERE id = $1', [check.id])).rows[0]?.health
  const batch = Array.from({ length: 50 }, () => obs('up'))
  const both = await Promise.all(apis.map((a) => push(a, batch)))
  t.same(both.map((r) => r.applied).sort((a, b) => a - b), [0, 50], 'applied by one process')
  t.same(both.map((r) => r.duplicates).sort((a, b) => a - b), [0, 50], 'duplicates in the other')
  const stored = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_results WHERE check_id = $1', [check.id])
  t.equal(stored.rows[0]?.n, 50, 'each observation stored once')
  await push(apis[0] as ApiProcess, [obs('down')])
  t.equal(await health(), 'healthy', 'one failure confirms nothing')
  await push(apis[1] as ApiProcess, [obs('down')])
  t.equal(await health(), 'unhealthy', 'the second, through the other process, confirms')
  const inc = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_incidents WHERE check_id = $1', [check.id])
  t.equal(inc.rows[0]?.n, 1, 'one incident')
})
