// A queued batch (stored rows in any of their formats, ingest/rows/rows.ts) as the body of the cloud's JSON
// batch route: POST /v1/workspaces/{ws}/resources/{rid}/logs. Built the same
// way every time, so a retried batch is the same body and the cloud's
// content-hash deduplication recognises it.
import { readStoredRows, severityNameOf, type StoredRow } from '../ingest/index.ts'

/** Cloud Event limits (cloud-workspace-api.md): longer values are cut rather than failing the whole batch. */
const MESSAGE_MAX = 65536
const SOURCE_MAX = 256
const HEX32 = /^[0-9a-f]{32}$/
const HEX16 = /^[0-9a-f]{16}$/

export interface CloudEvent {
  message: string
  timestamp: string | null
  severity: string
  source: string
  attributes: Record<string, string>
  trace_id: string
  span_id: string
}

/** Nanoseconds since the epoch (decimal) as an ISO 8601 UTC time with nine fraction digits; null when unknown. */
export function isoFromNs(ns: string): string | null {
  const n = BigInt(ns)
  if (n <= 0n) return null
  const seconds = n / 1_000_000_000n
  const fraction = (n % 1_000_000_000n).toString().padStart(9, '0')
  return new Date(Number(seconds) * 1000).toISOString().replace(/\.\d{3}Z$/, `.${fraction}Z`)
}

export function cloudEventOf(r: StoredRow): CloudEvent {
  const attributes: Record<string, string> = { ...r.attributes }
  // Resource attributes (an OTLP sender's service.name...) travel as attributes prefixed "resource.".
  for (const [k, v] of Object.entries(r.resource_attributes)) {
    const key = `resource.${k}`
    if (!(key in attributes)) attributes[key] = v
  }
  return {
    message: r.message.slice(0, MESSAGE_MAX),
    timestamp: isoFromNs(r.timestamp),
    severity: r.severity_text !== '' ? r.severity_text : (severityNameOf(r.severity_number) || 'INFO'),
    source: r.source.slice(0, SOURCE_MAX),
    attributes,
    trace_id: HEX32.test(r.trace_id) ? r.trace_id : '',
    span_id: HEX16.test(r.span_id) ? r.span_id : '',
  }
}

/** The JSON batch body of queued rows. */
export function cloudBatchBody(rows: Uint8Array): string {
  return JSON.stringify({ events: readStoredRows(rows).map(cloudEventOf) })
}
