// One stored row in the objects layout, the row format before the compact one
// (ingest/rows/rows.ts): what a backlog written by an older version holds.
export interface ObjectRowFields {
  workspaceId: string
  resourceId: string
  receivedNs: bigint
  timestampNs: bigint
  batchId: string
  eventId: string
  message: string
  attributes?: Record<string, string>
  /** Default 9 (INFO). */
  severityNumber?: number
}

/** The row as one JSON line, newline included, with its keys in the table's column order. */
export function objectRowLine(r: ObjectRowFields): string {
  return `{"workspace_id":"${r.workspaceId}","resource_id":"${r.resourceId}","received_at":${r.receivedNs},"batch_id":"${r.batchId}",` +
    `"timestamp":${r.timestampNs},"observed_timestamp":0,"event_id":"${r.eventId}","severity_number":${r.severityNumber ?? 9},"severity_text":"INFO",` +
    `"message":${JSON.stringify(r.message)},"source":"","attributes":${JSON.stringify(r.attributes ?? {})},"resource_attributes":{},` +
    `"scope_name":"","scope_version":"","trace_id":"","span_id":"","flags":0}\n`
}
