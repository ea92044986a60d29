// Response bodies of the monitoring routes. No credential reference, token
// hash or secret ever appears in them.
import { aggregateHealth, listChecks, listIncidents, listTransitions, toCheckView, uptimeOf, type CheckView, type Health, type IncidentView, type TransitionView, type Uptime } from '../../monitor/index.ts'
import type { Sql } from '../../core/index.ts'

/** Open incidents first (however old), then the most recent closed ones. */
export async function openIncidents(db: Sql, ws: string, rid: string): Promise<IncidentView[]> {
  const r = await db.query<{ id: string; check_id: string | null; kind: string; source_id: string | null; opened_at: Date; open_reason: string; notified_open: boolean; seq: number }>(
    `SELECT id, check_id, kind, source_id, opened_at, open_reason, notified_open, seq::float8 AS seq FROM monitor_incidents
     WHERE workspace_id = $1 AND resource_id = $2 AND closed_at IS NULL ORDER BY seq DESC LIMIT 500`, [ws, rid])
  return r.rows.map((i) => ({
    id: i.id, check_id: i.check_id, kind: i.kind, source_id: i.source_id, state: 'open', opened_at: new Date(i.opened_at).toISOString(), open_reason: i.open_reason,
    closed_at: null, close_reason: null, notified: i.notified_open, seq: i.seq,
  }))
}

export interface StatusBody {
  resource_id: string
  health: Health
  checks: (CheckView & { uptime: Uptime })[]
}

export async function statusOf(db: Sql, ws: string, rid: string, now: number): Promise<StatusBody> {
  const views = (await listChecks(db, ws, rid)).map((row) => toCheckView(row, now))
  // Uptime % over 24 h / 7 d / 30 d from the hourly counts (monitor/uptime.ts).
  const uptime = await uptimeOf(db, views.map((v) => v.id), now)
  const checks = views.map((v) => ({ ...v, uptime: uptime.get(v.id) ?? { h24: null, d7: null, d30: null } }))
  return { resource_id: rid, health: aggregateHealth(checks), checks }
}

export const DESKTOP_INCIDENTS = 50
export const DESKTOP_TRANSITIONS = 100

/** GET /v1/monitoring: everything about one resource at once, lists capped at their newest entries. */
export async function desktopOverview(db: Sql, ws: string, rid: string, now: number): Promise<StatusBody & { incidents: IncidentView[]; transitions: TransitionView[] }> {
  const status = await statusOf(db, ws, rid, now)
  const open = await openIncidents(db, ws, rid)
  const recent = await listIncidents(db, ws, rid, DESKTOP_INCIDENTS, null)
  const seen = new Set(open.map((i) => i.id))
  const incidents = [...open, ...recent.items.filter((i) => !seen.has(i.id))]
  const transitions = (await listTransitions(db, ws, rid, DESKTOP_TRANSITIONS, null)).items
  return { ...status, incidents, transitions }
}
