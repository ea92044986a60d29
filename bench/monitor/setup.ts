// The bench's database and checks: PGlite in this process (the embedded
// default) or a throwaway PostgreSQL server on loopback (Debian's binaries,
// found as the tests find them), migrated, with BENCH_CHECKS checks made in
// one burst with UUIDv7 ids (the case that clusters when a phase is read from
// the id's leading timestamp bits).
import { randomFillSync } from 'node:crypto'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PG_MIGRATIONS } from '../../deploy/index.ts'
import { createWorkspace, registerResource } from '../../workspace/index.ts'
import { migrate, openPglite, openPostgres, type Database } from '../../core/index.ts'
import { parseConfig, type CheckConfig } from '../../monitor/index.ts'
import { startPostgresServer, type TestDatabase } from '../../test/helpers/servers.ts'

export type DbKind = 'pglite' | 'postgres'

export interface BenchDb {
  kind: DbKind
  name: string
  db: Database
  /** The server's pid (its CPU is counted apart), null for PGlite. */
  serverPid: number | null
  close(): Promise<void>
}

export async function openBenchDb(kind: DbKind): Promise<BenchDb> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'lookout-bench-monitor-'))
    const db = await openPglite(dir)
    await migrate(db, PG_MIGRATIONS)
    return { kind, name: 'PGlite (in process)', db, serverPid: null, async close() { await db.close(); rmSync(dir, { recursive: true, force: true }) } }
  }
  const server: TestDatabase = await startPostgresServer()
  let db: Database
  let version: string
  try {
    db = await openPostgres(`postgres://${server.user}:${encodeURIComponent(server.password)}@${server.host}:${server.port}/postgres`)
    await migrate(db, PG_MIGRATIONS)
    version = (await db.query<{ v: string }>('SELECT current_setting(\'server_version\') AS v')).rows[0]?.v ?? ''
  } catch (err) {
    await server.stop()
    throw err
  }
  return {
    kind, name: `PostgreSQL ${version.split(' ')[0]} server (separate process)`, db, serverPid: server.pid,
    async close() { await db.close(); await server.stop() },
  }
}

/** RFC 9562 version 7: 48 bits of Unix milliseconds, then random bits. Ids made in one burst share their leading bits. */
export function uuidv7(now = Date.now()): string {
  const b = randomFillSync(Buffer.alloc(16))
  b.writeUIntBE(now, 0, 6)
  b[6] = 0x70 | ((b[6] as number) & 0x0f)
  b[8] = 0x80 | ((b[8] as number) & 0x3f)
  const h = b.toString('hex')
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`
}

export interface Mix {
  https: number
  tcp: number
  heartbeat: number
}

export interface Targets {
  https: number
  tcp: number
  cert: string
}

export function configs(targets: Targets, intervalS: number): Record<keyof Mix, CheckConfig> {
  const timeout = Math.min(10, intervalS)
  const parsed = {
    https: parseConfig('https', { url: `https://127.0.0.1:${targets.https}/`, ca: targets.cert, interval_seconds: intervalS, timeout_seconds: timeout }),
    tcp: parseConfig('tcp', { host: '127.0.0.1', port: targets.tcp, interval_seconds: intervalS, timeout_seconds: timeout }),
    heartbeat: parseConfig('heartbeat', { interval_seconds: intervalS }),
  }
  const out: Partial<Record<keyof Mix, CheckConfig>> = {}
  for (const [k, p] of Object.entries(parsed)) {
    if (!p.ok) throw new Error(`bad bench configuration for ${k}: ${JSON.stringify(p.issues)}`)
    out[k as keyof Mix] = p.config
  }
  return out as Record<keyof Mix, CheckConfig>
}

/** Which kind the i-th of n checks is: the mix interleaved, so every stretch of the schedule has the same blend. */
export function kindOf(i: number, mix: Mix): keyof Mix {
  const x = (i * 0.6180339887) % 1
  return x < mix.https ? 'https' : x < mix.https + mix.tcp ? 'tcp' : 'heartbeat'
}

/**
 * Creates the checks, 2,000 per statement (the columns createCheck writes; one row at a time took
 * over 3 minutes for 50,000 on PGlite on a busy machine); returns the count per kind.
 */
export async function createChecks(db: Database, count: number, mix: Mix, cfg: Record<keyof Mix, CheckConfig>): Promise<Record<keyof Mix, number>> {
  const made: Record<keyof Mix, number> = { https: 0, tcp: 0, heartbeat: 0 }
  await insertChecks(db, count, (i) => {
    const kind = kindOf(i, mix)
    made[kind]++
    return { kind, config: cfg[kind] }
  })
  // Beats stamped a day ahead: heartbeat checks stay up without a beat sender in the measured process;
  // each heartbeat probe still reads the beat and judges it.
  await db.query(`UPDATE monitor_checks SET last_beat_at = now() + interval '1 day' WHERE kind = 'heartbeat'`)
  return made
}

export interface BenchIds {
  workspaceId: string
  resources: string[]
}

/**
 * A workspace with 100 resources and `count` checks, the i-th of kind and configuration `pick(i)`, on resource i mod 100.
 * With `ids` (a kept log store's, bench/monitor/logs.ts BENCH_LOG_DIR), the workspace and resources get those ids.
 */
export async function insertChecks(db: Database, count: number, pick: (i: number) => { kind: string; config: CheckConfig }, ids?: BenchIds): Promise<BenchIds> {
  const ws = await createWorkspace(db, 'bench')
  // Nothing refers to a row made a moment ago, so its id can still be changed.
  if (ids !== undefined) await db.query('UPDATE workspaces SET id = $1 WHERE id = $2', [ids.workspaceId, ws.id])
  if (ids !== undefined) ws.id = ids.workspaceId
  const resources: string[] = []
  for (let i = 0; i < 100; i++) {
    const made = (await registerResource(db, ws.id, { external_id: `bench-${i}`, name: `bench ${i}` })).resource.id
    const id = ids?.resources[i] ?? made
    if (id !== made) await db.query('UPDATE resources SET id = $1 WHERE id = $2', [id, made])
    resources.push(id)
  }
  const now = new Date().toISOString()
  for (let start = 0; start < count; start += 2000) {
    const rows = []
    for (let i = start; i < Math.min(count, start + 2000); i++) {
      const { kind, config: c } = pick(i)
      rows.push({
        id: uuidv7(), rid: resources[i % resources.length], name: `check ${i}`, kind, location: kind === 'heartbeat' ? 'heartbeat' : 'public',
        configuration: c.stored, interval_ms: c.intervalMs, timeout_ms: c.timeoutMs, grace_ms: c.graceMs,
      })
    }
    await db.query(
      `INSERT INTO monitor_checks (id, workspace_id, resource_id, name, kind, location, configuration, enabled, required,
         interval_ms, timeout_ms, grace_ms, active_since, health_since, created_at, updated_at)
       SELECT v.id, $2, v.rid, v.name, v.kind, v.location, v.configuration, true, true, v.interval_ms, v.timeout_ms, v.grace_ms, $3, $3, $3, $3
       FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, rid uuid, name text, kind text, location text, configuration jsonb,
         interval_ms integer, timeout_ms integer, grace_ms integer)`,
      [JSON.stringify(rows), ws.id, now])
  }
  return { workspaceId: ws.id, resources }
}
