// A PostgreSQL (PGlite) with every migration, a workspace and helpers to make
// checks and monitors on a manual clock, for the scheduler tests.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PG_MIGRATIONS } from '../../deploy/index.ts'
import { createWorkspace, registerResource } from '../../workspace/index.ts'
import { migrate, openPglite } from '../../core/index.ts'
import { ManualClock, Monitor, createCheck, findCheck, parseConfig, type CheckRow, type Kind, type MonitorOptions, type NewCheck } from '../../monitor/internal.ts'
import type { Database } from '../../core/index.ts'
import { PGLITE_TEMPLATES } from './lookout.ts'

export interface Harness {
  db: Database
  clock: ManualClock
  workspaceId: string
  resource(): Promise<string>
  check(resourceId: string, kind: Kind, configuration: Record<string, unknown>, extra?: Partial<NewCheck>): Promise<CheckRow>
  row(id: string): Promise<CheckRow>
  monitor(opts?: MonitorOptions): Promise<Monitor>
  /** Advances the clock in steps no longer than `stepMs`, running every monitor's round after each. */
  advance(ms: number, monitors: readonly Monitor[], stepMs?: number): Promise<void>
  /** Removes every check (each test starts from an empty schedule). */
  clear(): Promise<void>
  close(): Promise<void>
}

export async function harness(): Promise<Harness> {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-monitor-'))
  const db = await openPglite(dir, { templateDir: PGLITE_TEMPLATES, migrations: PG_MIGRATIONS })
  await migrate(db, PG_MIGRATIONS)
  const ws = await createWorkspace(db, 'monitor tests')
  const clock = new ManualClock()
  const started: Monitor[] = []
  const h: Harness = {
    db, clock, workspaceId: ws.id,
    async resource() {
      const ext = `res-${Math.random().toString(36).slice(2)}`
      return (await registerResource(db, ws.id, { external_id: ext, name: ext })).resource.id
    },
    async check(resourceId, kind, configuration, extra = {}) {
      const parsed = parseConfig(kind, configuration)
      if (!parsed.ok) throw new Error(JSON.stringify(parsed.issues))
      return createCheck(db, {
        workspaceId: ws.id, resourceId, name: `${kind} check`, kind, location: kind === 'heartbeat' ? 'heartbeat' : 'public',
        config: parsed.config, credential: null, sourceId: null, enabled: true, required: true, maintenanceUntil: null, runNow: false, ...extra,
      }, clock.now())
    },
    async row(id) {
      const r = await findCheck(db, id)
      if (r === null) throw new Error(`no check ${id}`)
      return r
    },
    async monitor(opts = {}) {
      const m = new Monitor(db, { clock, leaseMs: 600_000, syncMs: 1000, flushMs: 5, logger: { warn: () => undefined }, ...opts })
      await m.start()
      started.push(m)
      return m
    },
    async advance(ms, monitors, stepMs = 1000) {
      let left = ms
      while (left > 0) {
        const d = Math.min(stepMs, left)
        clock.advance(d)
        left -= d
        for (const m of monitors) await m.step()
      }
    },
    async clear() {
      for (const m of started.splice(0)) await m.stop()
      await db.exec('DELETE FROM monitor_checks; DELETE FROM monitor_workers;')
    },
    async close() {
      for (const m of started.splice(0)) await m.stop()
      await db.close()
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return h
}
