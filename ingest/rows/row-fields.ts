// What a decoder fills per record (one reused object) and hands to RowWriter.write:
// its own module, so the writer and the row format's surface (rows.ts) do not import each other.
export interface RowFields {
  /** Event time, nanoseconds since the epoch, as a decimal string. */
  timeNs: string
  /** Observed time, nanoseconds since the epoch, as a decimal string ("0" when unknown). */
  observedNs: string
  severityNumber: number
  severityText: string
  message: string
  source: string
  /** Log attributes as parallel arrays (flattened dotted keys, string values). */
  attrKeys: string[]
  attrValues: string[]
  attrCount: number
  /** Resource attributes as a JSON object, encoded once per resource (the writer reads each one once). */
  resourceJson: string
  scopeName: string
  scopeVersion: string
  /** Lowercase hex, empty when absent. */
  traceId: string
  spanId: string
  flags: number
  /** Caller-provided event id (legacy route); empty means "derive from the batch id". */
  eventId: string
}

export function newRowFields(): RowFields {
  return {
    timeNs: '0',
    observedNs: '0',
    severityNumber: 0,
    severityText: '',
    message: '',
    source: '',
    attrKeys: [],
    attrValues: [],
    attrCount: 0,
    resourceJson: '{}',
    scopeName: '',
    scopeVersion: '',
    traceId: '',
    spanId: '',
    flags: 0,
    eventId: '',
  }
}

/** Resets a RowFields for the next record without reallocating its arrays. */
export function resetRowFields(f: RowFields): void {
  f.timeNs = '0'
  f.observedNs = '0'
  f.severityNumber = 0
  f.severityText = ''
  f.message = ''
  f.source = ''
  f.attrCount = 0
  f.traceId = ''
  f.spanId = ''
  f.flags = 0
  f.eventId = ''
}
