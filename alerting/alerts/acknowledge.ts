// Acknowledging an open incident: stops its repeats and escalation and
// cancels queued reminders. The first acknowledgement wins; a later one
// answers the first's time and author. Used by the `acknowledge` operation
// and by acknowledge links in alert messages (ack-links.ts).
import type { Sql } from '../../core/index.ts'
import { cancelQueued } from './deliveries.ts'

export interface Acknowledged {
  acknowledged_at: string
  acknowledged_by: string
  cancelled: number
}

/** 'missing': no such incident on the resource; 'closed': it is closed already. */
export async function acknowledgeIncident(tx: Sql, ws: string, rid: string, id: string, actor: string, now: number): Promise<Acknowledged | 'missing' | 'closed'> {
  const inc = await tx.query<{ opened_at: Date; closed_at: Date | null }>(
    'SELECT opened_at, closed_at FROM monitor_incidents WHERE id = $1 AND workspace_id = $2 AND resource_id = $3', [id, ws, rid])
  const incident = inc.rows[0]
  if (incident === undefined) return 'missing'
  if (incident.closed_at !== null) return 'closed'
  const r = await tx.query<{ acknowledged_at: Date; acknowledged_by: string }>(
    `INSERT INTO alert_incidents (incident_id, workspace_id, resource_id, opened_at, acknowledged_at, acknowledged_by)
     VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (incident_id) DO UPDATE SET acknowledged_at = COALESCE(alert_incidents.acknowledged_at, EXCLUDED.acknowledged_at),
       acknowledged_by = COALESCE(alert_incidents.acknowledged_by, EXCLUDED.acknowledged_by), next_repeat_at = NULL, next_escalation_at = NULL
     RETURNING acknowledged_at, acknowledged_by`, [id, ws, rid, incident.opened_at, new Date(now).toISOString(), actor])
  const cancelled = await cancelQueued(tx, { incidentId: id, reasons: ['repeat', 'escalation'] }, 'cancelled: the incident was acknowledged')
  const row = r.rows[0] as { acknowledged_at: Date; acknowledged_by: string }
  return { acknowledged_at: new Date(row.acknowledged_at).toISOString(), acknowledged_by: row.acknowledged_by, cancelled }
}
