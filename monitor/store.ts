// Check records as the API changes them: create, revision-checked edits and
// actions, heartbeats, and the reads behind the monitoring routes. Every edit
// and pause bumps the revision, which fences off results probed before it.
import { randomUUID } from 'node:crypto'
import type { Database, Sql } from '../core/index.ts'
import type { CheckConfig } from './config.ts'
import { staleAfterMs } from './config.ts'
import type { CredentialRef } from './credentials.ts'
import { CheckNotFoundError, CheckPausedError, RevisionConflictError } from './errors.ts'
import { SERVED_LOCATIONS, type Health, type Kind, type Location } from './kinds.ts'
import { CHECK_COLUMNS, iso, ms, type CheckRow } from './rows.ts'

export interface NewCheck {
  id?: string
  workspaceId: string
  resourceId: string
  name: string
  kind: Kind
  location: Location
  config: CheckConfig
  credential: CredentialRef | null
  sourceId: string | null
  enabled: boolean
  required: boolean
  maintenanceUntil: number | null
  /** Probe as soon as a monitor sees it instead of waiting for the check's phase. */
  runNow: boolean
}

export interface CheckPatch {
  name?: string
  kind?: Kind
  location?: Location
  config?: CheckConfig
  /** undefined keeps the reference; null removes it. */
  credential?: CredentialRef | null
  sourceId?: string
  enabled?: boolean
  required?: boolean
  /** null ends maintenance. */
  maintenanceUntil?: number | null
}

export const ACTIONS = ['run', 'pause', 'resume', 'maintenance', 'end_maintenance'] as const
export type CheckAction = (typeof ACTIONS)[number]

const ts = (n: number) => new Date(n).toISOString()

export async function createCheck(db: Sql, c: NewCheck, now: number): Promise<CheckRow> {
  const id = c.id ?? randomUUID()
  const r = await db.query<CheckRow>(
    `INSERT INTO monitor_checks (id, workspace_id, resource_id, name, kind, location, configuration, credential, source_id,
       enabled, required, maintenance_until, interval_ms, timeout_ms, grace_ms, run_requested_at, active_since, health_since,
       created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $17, $17, $17)
     RETURNING ${CHECK_COLUMNS}`,
    [id, c.workspaceId, c.resourceId, c.name, c.kind, c.location, JSON.stringify(c.config.stored),
      c.credential === null ? null : JSON.stringify(c.credential), c.sourceId, c.enabled, c.required,
      c.maintenanceUntil === null ? null : ts(c.maintenanceUntil), c.config.intervalMs, c.config.timeoutMs, c.config.graceMs,
      c.runNow ? ts(now) : null, ts(now)])
  return r.rows[0] as CheckRow
}

/** The check with this id anywhere (any workspace), or null. */
export async function findCheck(db: Sql, id: string): Promise<CheckRow | null> {
  const r = await db.query<CheckRow>(`SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE id = $1`, [id])
  return r.rows[0] ?? null
}

export async function getCheck(db: Sql, workspaceId: string, id: string, resourceId?: string): Promise<CheckRow> {
  const row = await findCheck(db, id)
  if (row === null || row.workspace_id !== workspaceId || (resourceId !== undefined && row.resource_id !== resourceId)) {
    throw new CheckNotFoundError('check')
  }
  return row
}

export async function lockCheck(tx: Sql, workspaceId: string, id: string, resourceId: string | null, expected: number | null): Promise<CheckRow> {
  const r = await tx.query<CheckRow>(`SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE id = $1 AND workspace_id = $2 FOR UPDATE`, [id, workspaceId])
  const row = r.rows[0]
  if (row === undefined || (resourceId !== null && row.resource_id !== resourceId)) throw new CheckNotFoundError('check')
  if (expected !== null && row.revision !== expected) throw new RevisionConflictError(row.revision, expected)
  return row
}

interface Sets {
  cols: string[]
  params: unknown[]
}

function set(s: Sets, col: string, value: unknown): void {
  s.params.push(value)
  s.cols.push(`${col} = $${s.params.length}`)
}

/**
 * Applies a patch under the row lock; the UPDATE is still conditional on the
 * revision it read, so a concurrent writer makes it a 409, never a lost update.
 */
async function applyPatch(tx: Sql, row: CheckRow, patch: CheckPatch, now: number, reason: string): Promise<CheckRow> {
  const s: Sets = { cols: [], params: [row.id, row.revision] }
  let health: Health = row.health
  let resetStreak = false
  if (patch.name !== undefined) set(s, 'name', patch.name)
  if (patch.kind !== undefined && patch.kind !== row.kind) {
    set(s, 'kind', patch.kind)
    resetStreak = true
  }
  if (patch.location !== undefined) {
    set(s, 'location', patch.location)
    // A check moved to a collector leaves the monitor process that held it.
    if (!SERVED_LOCATIONS.includes(patch.location)) set(s, 'lease_owner', null)
  }
  if (patch.config !== undefined) {
    set(s, 'configuration', JSON.stringify(patch.config.stored))
    set(s, 'interval_ms', patch.config.intervalMs)
    set(s, 'timeout_ms', patch.config.timeoutMs)
    set(s, 'grace_ms', patch.config.graceMs)
    resetStreak = true
  }
  if (patch.credential !== undefined) {
    set(s, 'credential', patch.credential === null ? null : JSON.stringify(patch.credential))
    resetStreak = true
  }
  if (patch.sourceId !== undefined) set(s, 'source_id', patch.sourceId)
  if (patch.required !== undefined) set(s, 'required', patch.required)
  if (patch.maintenanceUntil !== undefined) set(s, 'maintenance_until', patch.maintenanceUntil === null ? null : ts(patch.maintenanceUntil))
  if (patch.enabled !== undefined && patch.enabled !== row.enabled) {
    set(s, 'enabled', patch.enabled)
    if (patch.enabled) {
      set(s, 'active_since', ts(now))
      // After a long gap the old observations prove nothing: confirmation starts over.
      const last = ms(row.last_observed_at)
      if (last === null || now - last > staleAfterMs(row.interval_ms, row.timeout_ms, row.grace_ms)) {
        resetStreak = true
        health = 'unknown'
      }
    }
  }
  if (resetStreak) {
    set(s, 'candidate', null)
    set(s, 'streak', 0)
  }
  if (health !== row.health) {
    set(s, 'health', health)
    set(s, 'health_since', ts(now))
  }
  set(s, 'updated_at', ts(now))
  const r = await tx.query<CheckRow>(
    `UPDATE monitor_checks SET ${s.cols.join(', ')}, revision = revision + 1, change_seq = nextval('monitor_change_seq')
     WHERE id = $1 AND revision = $2 RETURNING ${CHECK_COLUMNS}`, s.params)
  const updated = r.rows[0]
  if (updated === undefined) throw new RevisionConflictError(row.revision + 1, row.revision)
  if (health !== row.health) await insertTransition(tx, updated, row.health, health, reason, now)
  return updated
}

export async function insertTransition(tx: Sql, row: Pick<CheckRow, 'id' | 'workspace_id' | 'resource_id'>, from: Health, to: Health, reason: string, at: number): Promise<void> {
  await tx.query(
    `INSERT INTO monitor_transitions (workspace_id, resource_id, check_id, from_health, to_health, reason, at) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
    [row.workspace_id, row.resource_id, row.id, from, to, reason, ts(at)])
}

/** An edit; `expected` null skips the revision check (the cloud MonitorChange carries none). */
export async function editCheck(
  db: Database, workspaceId: string, resourceId: string | null, id: string, patch: CheckPatch, expected: number | null, now: number,
): Promise<CheckRow> {
  return db.transaction(async (tx) => {
    const row = await lockCheck(tx, workspaceId, id, resourceId, expected)
    return applyPatch(tx, row, patch, now, patch.enabled === true && !row.enabled ? 'resumed after a long gap' : 'edited')
  })
}

/** An owner action, checked against the observed revision. */
export async function checkAction(
  db: Database, workspaceId: string, id: string, revision: number, action: CheckAction, minutes: number | null, now: number,
): Promise<CheckRow> {
  return db.transaction(async (tx) => {
    const row = await lockCheck(tx, workspaceId, id, null, revision)
    switch (action) {
      case 'run': {
        if (!row.enabled) throw new CheckPausedError()
        // Not an edit: no revision bump, so a probe already running still counts.
        const r = await tx.query<CheckRow>(
          `UPDATE monitor_checks SET run_requested_at = $3, change_seq = nextval('monitor_change_seq')
           WHERE id = $1 AND revision = $2 RETURNING ${CHECK_COLUMNS}`, [id, revision, ts(now)])
        if (r.rows[0] === undefined) throw new RevisionConflictError(row.revision + 1, revision)
        return r.rows[0]
      }
      case 'pause':
        return row.enabled ? applyPatch(tx, row, { enabled: false }, now, 'paused') : row
      case 'resume':
        return row.enabled ? row : applyPatch(tx, row, { enabled: true }, now, 'resumed after a long gap')
      case 'maintenance':
        return applyPatch(tx, row, { maintenanceUntil: now + (minutes ?? 0) * 60_000 }, now, 'maintenance')
      case 'end_maintenance': {
        const until = ms(row.maintenance_until)
        return until === null ? row : applyPatch(tx, row, { maintenanceUntil: null }, now, 'maintenance ended')
      }
    }
  })
}

/** Records a beat for a heartbeat check of this resource; null when there is none. */
export async function recordBeat(db: Sql, workspaceId: string, resourceId: string, checkId: string, now: number): Promise<{ check_id: string; received_at: string } | null> {
  const r = await db.query<{ id: string }>(
    `UPDATE monitor_checks SET last_beat_at = GREATEST(COALESCE(last_beat_at, $4::timestamptz), $4::timestamptz)
     WHERE id = $1 AND workspace_id = $2 AND resource_id = $3 AND kind = 'heartbeat' RETURNING id`,
    [checkId, workspaceId, resourceId, ts(now)])
  return r.rows[0] === undefined ? null : { check_id: checkId, received_at: ts(now) }
}

export const MAX_CHECKS_LISTED = 500

export async function listChecks(db: Sql, workspaceId: string, resourceId: string): Promise<CheckRow[]> {
  const r = await db.query<CheckRow>(
    `SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE workspace_id = $1 AND resource_id = $2 ORDER BY created_at, id LIMIT ${MAX_CHECKS_LISTED}`,
    [workspaceId, resourceId])
  return r.rows
}

export interface TransitionView {
  id: number
  check_id: string
  from: Health
  to: Health
  reason: string
  at: string
}

/** Newest first; `before` is the id of the last item of the previous page. */
export async function listTransitions(db: Sql, workspaceId: string, resourceId: string, limit: number, before: number | null): Promise<{ items: TransitionView[]; more: boolean }> {
  const r = await db.query<{ id: number; check_id: string; from_health: Health; to_health: Health; reason: string; at: Date }>(
    `SELECT id::float8 AS id, check_id, from_health, to_health, reason, at FROM monitor_transitions
     WHERE workspace_id = $1 AND resource_id = $2 AND ($3::float8 IS NULL OR id < $3::float8)
     ORDER BY id DESC LIMIT $4`, [workspaceId, resourceId, before, limit + 1])
  return {
    items: r.rows.slice(0, limit).map((t) => ({ id: t.id, check_id: t.check_id, from: t.from_health, to: t.to_health, reason: t.reason, at: iso(t.at) as string })),
    more: r.rows.length > limit,
  }
}

export interface IncidentView {
  id: string
  /** null for a source's incident (kind collector_offline). */
  check_id: string | null
  /** check: a check confirmed unhealthy; collector_offline: a collector stopped reporting. */
  kind: string
  source_id: string | null
  state: 'open' | 'closed'
  opened_at: string
  open_reason: string
  closed_at: string | null
  close_reason: string | null
  notified: boolean
  seq: number
}

export async function listIncidents(db: Sql, workspaceId: string, resourceId: string, limit: number, before: number | null): Promise<{ items: IncidentView[]; more: boolean }> {
  const r = await db.query<{ id: string; check_id: string | null; kind: string; source_id: string | null; opened_at: Date; open_reason: string; closed_at: Date | null; close_reason: string | null; notified_open: boolean; seq: number }>(
    `SELECT id, check_id, kind, source_id, opened_at, open_reason, closed_at, close_reason, notified_open, seq::float8 AS seq FROM monitor_incidents
     WHERE workspace_id = $1 AND resource_id = $2 AND ($3::float8 IS NULL OR seq < $3::float8)
     ORDER BY seq DESC LIMIT $4`, [workspaceId, resourceId, before, limit + 1])
  return {
    items: r.rows.slice(0, limit).map((i) => ({
      id: i.id, check_id: i.check_id, kind: i.kind, source_id: i.source_id, state: i.closed_at === null ? 'open' : 'closed', opened_at: iso(i.opened_at) as string,
      open_reason: i.open_reason, closed_at: iso(i.closed_at), close_reason: i.close_reason, notified: i.notified_open, seq: i.seq,
    })),
    more: r.rows.length > limit,
  }
}

/** Open incidents of a resource (however old), newest first: by `seq` (the order they opened in) or by `opened_at`. */
export async function openResourceIncidents(db: Sql, workspaceId: string, resourceId: string, limit: number, order: 'seq' | 'opened_at' = 'seq'): Promise<IncidentView[]> {
  const r = await db.query<{ id: string; check_id: string | null; kind: string; source_id: string | null; opened_at: Date; open_reason: string; notified_open: boolean; seq: number }>(
    `SELECT id, check_id, kind, source_id, opened_at, open_reason, notified_open, seq::float8 AS seq FROM monitor_incidents
     WHERE workspace_id = $1 AND resource_id = $2 AND closed_at IS NULL ORDER BY ${order === 'seq' ? 'seq' : 'opened_at'} DESC LIMIT $3`, [workspaceId, resourceId, limit])
  return r.rows.map((i) => ({
    id: i.id, check_id: i.check_id, kind: i.kind, source_id: i.source_id, state: 'open', opened_at: iso(i.opened_at) as string, open_reason: i.open_reason,
    closed_at: null, close_reason: null, notified: i.notified_open, seq: i.seq,
  }))
}

/** Which of these incidents are open (the others are closed or unknown). */
export async function openIncidentIds(db: Sql, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set()
  const r = await db.query<{ id: string }>('SELECT id FROM monitor_incidents WHERE id = ANY($1::uuid[]) AND closed_at IS NULL', [[...ids]])
  return new Set(r.rows.map((x) => x.id))
}
