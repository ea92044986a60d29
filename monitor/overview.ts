// Reads for the on-call views: the checks that need attention across the
// resources a token may read, open incidents across them, and one incident
// with the observations that confirmed it (api/monitoring/overview-routes.ts).
import type { IncidentView } from './store.ts'
import type { Sql } from '../core/index.ts'
import { CHECK_COLUMNS, iso, toCheckView, type CheckRow, type CheckView } from './rows.ts'

/** Why a check is on the overview. */
export type Attention = 'down' | 'failing' | 'unknown' | 'maintenance'

export interface AttentionCheck extends CheckView {
  attention: Attention
}

/** Most checks and incidents one overview lists (the newest / worst first). */
export const OVERVIEW_MAX_ITEMS = 500

/**
 * A check needs attention when it is confirmed down, failing but not yet
 * confirmed (the last observation failed, health not unhealthy yet), unknown
 * (stale included), or in maintenance. Paused checks are not listed.
 */
export function attentionOf(v: CheckView): Attention | null {
  if (!v.enabled) return null
  if (v.state === 'maintenance') return 'maintenance'
  if (v.health === 'unhealthy') return 'down'
  const last = v.last_result?.status
  if (last === 'down' || last === 'missing') return 'failing'
  if (v.health === 'unknown') return 'unknown'
  return null
}

const RANK: Record<Attention, number> = { down: 0, failing: 1, unknown: 2, maintenance: 3 }

/** `grant` null: every resource of the workspace. */
export async function attentionChecks(db: Sql, ws: string, grant: readonly string[] | null, now: number, limit = OVERVIEW_MAX_ITEMS): Promise<{ items: AttentionCheck[]; more: boolean }> {
  // The SQL narrows to candidates (anything not plainly healthy, up and fresh); attentionOf decides.
  const r = await db.query<CheckRow>(
    `SELECT ${CHECK_COLUMNS} FROM monitor_checks
     WHERE workspace_id = $1 AND ($2::uuid[] IS NULL OR resource_id = ANY($2::uuid[])) AND enabled
       AND (health <> 'healthy' OR last_status IS DISTINCT FROM 'up' OR maintenance_until > $3::timestamptz
            OR COALESCE(last_observed_at, active_since) < $3::timestamptz - (2 * interval_ms + timeout_ms + grace_ms + 1000) * interval '1 millisecond')
     ORDER BY health_since DESC, id LIMIT $4`,
    [ws, grant === null ? null : [...grant], new Date(now).toISOString(), limit * 2 + 1])
  const items: AttentionCheck[] = []
  for (const row of r.rows) {
    const v = toCheckView(row, now)
    const a = attentionOf(v)
    if (a !== null) items.push({ ...v, attention: a })
  }
  items.sort((x, y) => RANK[x.attention] - RANK[y.attention])
  return { items: items.slice(0, limit), more: items.length > limit || r.rows.length > limit * 2 }
}

/** An incident as the status view lists it, with whose it is and its check. */
export interface IncidentRecord extends IncidentView {
  workspace_id: string
  resource_id: string
  check: { id: string; name: string; kind: string; required: boolean } | null
  /** A log check's evidence in the observation that opened the incident (`details.log`); null for other kinds and older incidents. */
  open_log: Record<string, unknown> | null
}

interface IncidentSqlRow {
  id: string; workspace_id: string; resource_id: string; check_id: string | null; kind: string; source_id: string | null
  opened_at: Date; open_reason: string; closed_at: Date | null; close_reason: string | null; notified_open: boolean; seq: number
  check_name: string | null; check_kind: string | null; check_required: boolean | null; open_log: Record<string, unknown> | null
}

const INCIDENT_SELECT = `SELECT i.id, i.workspace_id, i.resource_id, i.check_id, i.kind, i.source_id, i.opened_at, i.open_reason, i.closed_at,
    i.close_reason, i.notified_open, i.seq::float8 AS seq, c.name AS check_name, c.kind AS check_kind, c.required AS check_required, i.open_log
  FROM monitor_incidents i LEFT JOIN monitor_checks c ON c.id = i.check_id`

function toRecord(i: IncidentSqlRow): IncidentRecord {
  return {
    id: i.id, workspace_id: i.workspace_id, resource_id: i.resource_id, check_id: i.check_id, kind: i.kind, source_id: i.source_id,
    state: i.closed_at === null ? 'open' : 'closed', opened_at: iso(i.opened_at) as string, open_reason: i.open_reason,
    closed_at: iso(i.closed_at), close_reason: i.close_reason, notified: i.notified_open, seq: i.seq,
    check: i.check_id === null || i.check_name === null ? null
      : { id: i.check_id, name: i.check_name, kind: i.check_kind as string, required: i.check_required === true },
    open_log: i.open_log,
  }
}

/** Open incidents of the granted resources, oldest first (the longest outage leads). */
export async function openIncidentsOf(db: Sql, ws: string, grant: readonly string[] | null, limit = OVERVIEW_MAX_ITEMS): Promise<{ items: IncidentRecord[]; more: boolean }> {
  const r = await db.query<IncidentSqlRow>(
    `${INCIDENT_SELECT} WHERE i.workspace_id = $1 AND ($2::uuid[] IS NULL OR i.resource_id = ANY($2::uuid[])) AND i.closed_at IS NULL
     ORDER BY i.opened_at, i.seq LIMIT $3`, [ws, grant === null ? null : [...grant], limit + 1])
  return { items: r.rows.slice(0, limit).map(toRecord), more: r.rows.length > limit }
}

export async function findIncident(db: Sql, ws: string, rid: string, id: string): Promise<IncidentRecord | null> {
  const r = await db.query<IncidentSqlRow>(`${INCIDENT_SELECT} WHERE i.workspace_id = $1 AND i.resource_id = $2 AND i.id = $3`, [ws, rid, id])
  const row = r.rows[0]
  return row === undefined ? null : toRecord(row)
}

export interface ObservationView {
  observed_at: string
  status: string
  code: string
  reason: string
  latency_ms: number | null
  details: Record<string, unknown> | null
}

type ResultSqlRow = { observed_at: Date; status: string; code: string; reason: string; latency_ms: number | null; details: Record<string, unknown> | null }
const toObservation = (x: ResultSqlRow): ObservationView => ({
  observed_at: iso(x.observed_at) as string, status: x.status, code: x.code, reason: x.reason, latency_ms: x.latency_ms, details: x.details,
})

/** Most observations an incident's "recent observations" list holds. */
export const INCIDENT_OBSERVATIONS = 50

/**
 * The failing streak that opened an incident: the consecutive failed
 * observations up to its opening, oldest first (two for a confirmation, more
 * when the incident opened after maintenance). Older than the results'
 * retention: none.
 */
export async function confirmingObservations(db: Sql, checkId: string, openedAt: string): Promise<ObservationView[]> {
  const r = await db.query<ResultSqlRow>(
    `SELECT observed_at, status, code, reason, latency_ms, details FROM monitor_results
     WHERE check_id = $1 AND observed_at <= $2::timestamptz ORDER BY observed_at DESC LIMIT 10`, [checkId, openedAt])
  const out: ObservationView[] = []
  for (const x of r.rows) {
    if (x.status !== 'down' && x.status !== 'missing') break
    out.push(toObservation(x))
  }
  return out.reverse()
}

/** A check's latest observations with their details, newest first. */
export async function recentObservations(db: Sql, checkId: string, limit = INCIDENT_OBSERVATIONS): Promise<ObservationView[]> {
  const r = await db.query<ResultSqlRow>(
    `SELECT observed_at, status, code, reason, latency_ms, details FROM monitor_results WHERE check_id = $1 ORDER BY observed_at DESC LIMIT $2`,
    [checkId, limit])
  return r.rows.map(toObservation)
}
