// A stored log row as the routes return it: every ingested field, times as
// RFC 3339 strings with all nine fraction digits.
import { SEARCHED_COLUMNS, severityNameOf, type RowValue, type SearchedColumn, type StoredRow } from '../ingest/index.ts'
import { formatNsText } from '../core/index.ts'
import type { Position } from './filters.ts'
import { shownEventId } from './event-id.ts'

/** Event times that read null when the row holds none (0). */
export const NULLABLE_EVENT_TIMES = ['observed_timestamp'] as const
/** Fields an event has beyond the row model's searched columns, with their TypeScript types. */
export const DERIVED_EVENT_FIELDS = { severity: 'string' } as const

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

/**
 * The key a searched column comes back under (sql.ts's select list):
 * nanosecond times leave as decimal text under `<name>_ns`, since an alias
 * equal to the column's name would stand for the column in WHERE too.
 */
export type SearchKey<C extends SearchedColumn> = C['kind'] extends 'ns' ? `${C['name']}_ns` : C['name']

export function searchKey(c: SearchedColumn): string {
  return c.kind === 'ns' ? `${c.name}_ns` : c.name
}

/** A row of the search's select list (EVENT_COLUMNS, sql.ts): the row model's searched columns, and the batch id (which tells a derived event id, event-id.ts). */
export type EventRow = { [C in SearchedColumn as SearchKey<C>]: RowValue<C['kind']> } & { batch_id: string }

/** The searched columns of a stored row (the tail's messages) as search returns them. */
export function eventRowOf(r: StoredRow): EventRow {
  const out: Record<string, unknown> = {}
  for (const c of SEARCHED_COLUMNS) out[searchKey(c)] = r[c.name]
  out.batch_id = r.batch_id
  return out as EventRow
}

/** The event as the row model describes it (event-type.ts writes the browser's copy from the same rules). */
type ModelEvent = { [C in SearchedColumn as C['name']]: C['kind'] extends 'ns' ? (C['name'] extends (typeof NULLABLE_EVENT_TIMES)[number] ? string | null : string) : RowValue<C['kind']> }
  & { [K in keyof typeof DERIVED_EVENT_FIELDS]: string }
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false
// Fails to compile when LogEvent above and the row model part ways (a column added, a type changed).
const EVENT_FOLLOWS_MODEL: Same<LogEvent, ModelEvent> = true
void EVENT_FOLLOWS_MODEL

export function toEvent(r: EventRow): LogEvent {
  const sev = Number(r.severity_number)
  const ts = BigInt(r.timestamp_ns)
  return {
    event_id: shownEventId(r.event_id, r.batch_id, ts),
    resource_id: r.resource_id,
    timestamp: formatNsText(r.timestamp_ns),
    observed_timestamp: r.observed_timestamp_ns === '0' ? null : formatNsText(r.observed_timestamp_ns),
    received_at: formatNsText(r.received_at_ns),
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

/** The row's place in the order, by its stored id. */
export function positionOf(r: EventRow): Position {
  return { tsNs: BigInt(r.timestamp_ns), eventId: r.event_id, resourceId: r.resource_id }
}
