// Generated from the row model (ingest/row-model.ts) by query/event-type.ts: do not edit.
// A log event as the search, context and tail routes return it (query/event.ts).
export interface LogEvent {
  resource_id: string
  timestamp: string
  observed_timestamp: string | null
  received_at: string
  event_id: string
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
  severity: string
}
