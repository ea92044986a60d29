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

export { newRowFields, resetRowFields, type RowFields } from './row-fields.ts'

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
