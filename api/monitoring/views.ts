// Response bodies of the monitoring routes. No credential reference, token
// hash or secret ever appears in them.
import { aggregateHealth, listChecks, listIncidents, listTransitions, openResourceIncidents, toCheckView, uptimeOf, type CheckView, type Health, type IncidentView, type TransitionView, type Uptime } from '../../monitor/index.ts'
import type { Sql } from '../../core/index.ts'

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
  // Open incidents first (however old), then the most recent closed ones.
  const open = await openResourceIncidents(db, ws, rid, 500)
  const recent = await listIncidents(db, ws, rid, DESKTOP_INCIDENTS, null)
  const seen = new Set(open.map((i) => i.id))
  const incidents = [...open, ...recent.items.filter((i) => !seen.has(i.id))]
  const transitions = (await listTransitions(db, ws, rid, DESKTOP_TRANSITIONS, null)).items
  return { ...status, incidents, transitions }
}
