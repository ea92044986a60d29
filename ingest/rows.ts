// The stored row format of the ClickHouse `logs` table: Native blocks, one per
// broker message, every column of the row model (row-model.ts) in table order
// (native-rows.ts): what decoders write (row-writer.ts), JetStream carries and
// the loader inserts as they are. Chosen by measurement: the engine loads Native
// blocks for less CPU per row than the JSONCompactEachRow lines written before,
// and they take fewer bytes (issue 35; bench/insert-format). Messages of the
// earlier line formats are still read and loaded (rows-read.ts), so a backlog
// written before an upgrade survives it.
// Decoders fill one reused RowFields object per record and hand it to RowWriter.write.
export { ROW_FORMATS, countStoredRows, parseStoredRow, readStoredRows, rowFormatOf, storedRowHead, type RowFormat, type RowHead } from './rows-read.ts'
export { RowWriter, type ChunkSpan, type PackedRows } from './row-writer.ts'

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

/** Encodes parallel key/value arrays as a JSON object. */
export function encodeStringMap(keys: readonly string[], values: readonly string[], count: number): string {
  if (count === 0) return '{}'
  let s = '{'
  for (let i = 0; i < count; i++) {
    if (i > 0) s += ','
    s += JSON.stringify(keys[i]) + ':' + JSON.stringify(values[i])
  }
  return s + '}'
}
