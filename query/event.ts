// A stored log row as the routes return it: every ingested field, times as
// RFC 3339 strings with all nine fraction digits.
import { formatNs, severityNameOf } from '../ingest/index.ts'
import type { Position } from './filters.ts'

export interface LogEvent {
  event_id: string
  resource_id: string
  /** Event time, RFC 3339 UTC with nanoseconds. */
  timestamp: string
  /** When the sender's SDK observed it; null when the sender gave none. */
  observed_timestamp: string | null
  /** When the API received it. */
  received_at: string
  /** The canonical level of severity_number (TRACE..FATAL), '' when unspecified. */
  severity: string
  severity_text: string
  severity_number: number
  message: string
  source: string
  attributes: Record<string, string>
  resource_attributes: Record<string, string>
  scope_name: string
  scope_version: string
  trace_id: string
  span_id: string
  flags: number
}

/** A row of EVENT_COLUMNS (sql.ts). */
export interface EventRow {
  ts_ns: string
  observed_ns: string
  received_ns: string
  event_id: string
  resource_id: string
  severity_number: number
  severity_text: string
  message: string
  source: string
  attributes: Record<string, string>
  resource_attributes: Record<string, string>
  scope_name: string
  scope_version: string
  trace_id: string
  span_id: string
  flags: number
}

export function toEvent(r: EventRow): LogEvent {
  const sev = Number(r.severity_number)
  return {
    event_id: r.event_id,
    resource_id: r.resource_id,
    timestamp: formatNs(BigInt(r.ts_ns)),
    observed_timestamp: r.observed_ns === '0' ? null : formatNs(BigInt(r.observed_ns)),
    received_at: formatNs(BigInt(r.received_ns)),
    severity: severityNameOf(sev),
    severity_text: r.severity_text,
    severity_number: sev,
    message: r.message,
    source: r.source,
    attributes: r.attributes,
    resource_attributes: r.resource_attributes,
    scope_name: r.scope_name,
    scope_version: r.scope_version,
    trace_id: r.trace_id,
    span_id: r.span_id,
    flags: Number(r.flags),
  }
}

export function positionOf(r: EventRow): Position {
  return { tsNs: BigInt(r.ts_ns), eventId: r.event_id, resourceId: r.resource_id }
}
