// The on-call routes' shapes (GET P/monitoring/overview, the incident page route,
// the inbox) and the one change they share: acknowledging an incident.
import { api, resPath } from './api.ts'
import type { Check } from './components/check-form.tsx'
import type { Result } from './components/uptime.tsx'

export interface ResourceRef { id: string; name: string; external_id: string }

export interface OverviewCheck extends Check { attention: 'down' | 'failing' | 'unknown' | 'maintenance'; resource: ResourceRef }

export interface Incident {
  id: string; kind: string; resource: ResourceRef; check_id: string | null; check: { id: string; name: string; kind: string; required: boolean } | null
  source_id: string | null; state: string; opened_at: string; age_seconds: number; open_reason: string; closed_at: string | null; close_reason: string | null
  severity: string | null; acknowledged: boolean; acknowledged_at: string | null; acknowledged_by: string | null
  repeats: number; escalation_level: number; next_repeat_at: string | null; next_escalation_at: string | null
}

export interface Delivery {
  id: string; incident_id: string; resource_id: string; resource?: ResourceRef; event_type: string; reason: string; channel: string; destination_id: string
  destination: string; destination_label: string; escalation_level: number | null; state: string; attempts: number
  last_attempt_at: string | null; last_status: number | null; last_error: string | null; delivered_at: string | null; created_at: string
}

export interface Overview {
  generated_at: string
  summary: { down: number; failing: number; unknown: number; maintenance: number; open_incidents: number; unacknowledged: number }
  checks: OverviewCheck[]
  incidents: Incident[]
  notifications: Delivery[]
  truncated: { checks: boolean; incidents: boolean; notifications: boolean }
}

export type TimelineEntry = { type: string; at: string } & Record<string, unknown>

export interface LogEvidence {
  query: Record<string, string>; comparison: string; threshold: number; window_seconds: number
  count: number | null; window_start: string; window_end: string
  samples: { time: string; severity: string; message: string }[]
  explorer: string
}

export interface IncidentPage {
  incident: Incident
  check: Check | null
  timeline: TimelineEntry[]
  observations: (Result & { details?: Record<string, unknown> | null })[]
  deliveries: Delivery[]
  log: LogEvidence | null
}

export interface InboxItem {
  id: string; kind: string; severity: string; state: 'unread' | 'read'; title: string; body: string
  resource_id: string | null; incident_id: string | null; incident_state: string | null; created_at: string; read_at: string | null
}

export async function acknowledge(ws: string, rid: string, incidentId: string): Promise<void> {
  await api('POST', `${resPath(ws, rid)}/alerts`, { operation: 'acknowledge', values: { operation_id: crypto.randomUUID(), incident_id: incidentId } })
}

/** A delivery's result in words: "delivered", "failed (HTTP 500: …)", "queued, 2 attempts". */
export function deliveryResult(d: Delivery): string {
  const why = d.last_error ?? (d.last_status !== null ? `HTTP ${d.last_status}` : '')
  if (d.state === 'delivered') return 'delivered'
  if (d.state === 'failed') return `failed${why === '' ? '' : ` (${why})`}`
  return `${d.state}${d.attempts > 0 ? `, ${d.attempts} attempt${d.attempts === 1 ? '' : 's'}${why === '' ? '' : `: ${why}`}` : ''}`
}

export const EVENT_WORDS: Readonly<Record<string, string>> = {
  'incident.opened': 'opened', 'incident.closed': 'recovered', 'incident.reminder': 'reminder', 'incident.escalated': 'escalated',
}
