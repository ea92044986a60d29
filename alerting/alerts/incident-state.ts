// The alert state of incidents (acknowledgement, repeats, escalation), read
// for the on-call views: the workspace overview and the incident page.
import type { Sql } from '../../core/index.ts'

export interface IncidentAlertState {
  severity: string | null
  acknowledged: boolean
  acknowledged_at: string | null
  acknowledged_by: string | null
  repeats: number
  escalation_level: number
  next_repeat_at: string | null
  next_escalation_at: string | null
}

/** An incident alert routing has not seen yet (its outbox row not dispatched). */
export const NO_ALERT_STATE: IncidentAlertState = {
  severity: null, acknowledged: false, acknowledged_at: null, acknowledged_by: null, repeats: 0, escalation_level: 0, next_repeat_at: null, next_escalation_at: null,
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString())

export async function incidentAlertStates(db: Sql, ws: string, incidentIds: readonly string[]): Promise<Map<string, IncidentAlertState>> {
  const out = new Map<string, IncidentAlertState>()
  if (incidentIds.length === 0) return out
  const r = await db.query<{ incident_id: string; severity: string; acknowledged_at: Date | null; acknowledged_by: string | null; repeats: number; escalation_level: number; next_repeat_at: Date | null; next_escalation_at: Date | null }>(
    `SELECT incident_id, severity, acknowledged_at, acknowledged_by, repeats, escalation_level, next_repeat_at, next_escalation_at
     FROM alert_incidents WHERE workspace_id = $1 AND incident_id = ANY($2::uuid[])`, [ws, [...incidentIds]])
  for (const x of r.rows) {
    out.set(x.incident_id, {
      severity: x.severity, acknowledged: x.acknowledged_at !== null, acknowledged_at: iso(x.acknowledged_at), acknowledged_by: x.acknowledged_by,
      repeats: x.repeats, escalation_level: x.escalation_level, next_repeat_at: iso(x.next_repeat_at), next_escalation_at: iso(x.next_escalation_at),
    })
  }
  return out
}
