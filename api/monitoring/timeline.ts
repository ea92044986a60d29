// An incident's timeline for the incident page, oldest first: opened, the
// observations that confirmed it, each alert sent with its delivery result,
// escalations, the acknowledgement, and the recovery.
import type { IncidentRecord, ObservationView } from '../../monitor/index.ts'
import type { AlertDeliveryView, IncidentAlertState } from '../../alerting/index.ts'

export type TimelineEntry =
  | { type: 'opened'; at: string; reason: string }
  | { type: 'observation'; at: string; status: string; code: string; reason: string; latency_ms: number | null }
  | { type: 'notification'; at: string; delivery_id: string; event_type: string; reason: string; channel: string; destination: string;
      destination_label: string; state: string; attempts: number; delivered_at: string | null; last_status: number | null; last_error: string | null }
  | { type: 'escalated'; at: string; level: number }
  | { type: 'acknowledged'; at: string; by: string | null }
  | { type: 'resolved'; at: string; reason: string | null }

/** Order among entries at the same instant: what caused something comes before it. */
const ORDER: Record<TimelineEntry['type'], number> = { observation: 0, opened: 1, escalated: 2, notification: 3, acknowledged: 4, resolved: 5 }

export function incidentTimeline(i: IncidentRecord, confirming: readonly ObservationView[], deliveries: readonly AlertDeliveryView[], alert: IncidentAlertState): TimelineEntry[] {
  const out: TimelineEntry[] = []
  for (const o of confirming) out.push({ type: 'observation', at: o.observed_at, status: o.status, code: o.code, reason: o.reason, latency_ms: o.latency_ms })
  out.push({ type: 'opened', at: i.opened_at, reason: i.open_reason })
  const levels = new Set<number>()
  for (const d of deliveries) {
    if (d.escalation_level !== null && !levels.has(d.escalation_level)) {
      levels.add(d.escalation_level)
      out.push({ type: 'escalated', at: d.created_at, level: d.escalation_level })
    }
    out.push({
      type: 'notification', at: d.created_at, delivery_id: d.id, event_type: d.event_type, reason: d.reason, channel: d.channel, destination: d.destination,
      destination_label: d.destination_label, state: d.state, attempts: d.attempts, delivered_at: d.delivered_at, last_status: d.last_status, last_error: d.last_error,
    })
  }
  if (alert.acknowledged_at !== null) out.push({ type: 'acknowledged', at: alert.acknowledged_at, by: alert.acknowledged_by })
  if (i.closed_at !== null) out.push({ type: 'resolved', at: i.closed_at, reason: i.close_reason })
  return out.sort((a, b) => (a.at < b.at ? -1 : a.at > b.at ? 1 : ORDER[a.type] - ORDER[b.type]))
}
