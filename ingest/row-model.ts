// The one description of a stored log row: the `logs` table's columns in table
// order, each with its ClickHouse type, how the JSON payload carries it, its
// place in a JSONCompactEachRow line and whether log search returns it. The
// schema's column DDL, the insert column list, the stored-row reader
// (parseStoredRow), search's select list and its row reader derive from it.
// A column's name is also its key in the JSONEachRow lines still read.

/** How a value travels in the JSON payload, and what a reader makes of it. */
export const ROW_VALUE_KINDS = {
  /** A UUID as a JSON string. */
  uuid: 'uuid',
  /** A JSON string. */
  string: 'string',
  /** Nanoseconds since the epoch: a bare JSON integer, read as its decimal text (exact). */
  ns: 'ns',
  /** A JSON number. */
  uint: 'uint',
  /** A JSON object of string values. */
  map: 'map',
} as const
export type RowValueKind = (typeof ROW_VALUE_KINDS)[keyof typeof ROW_VALUE_KINDS]

export interface RowColumn {
  /** Column name, and the key in a JSONEachRow line. */
  readonly name: string
  /** ClickHouse type with its codec, as the table's DDL states it. */
  readonly type: string
  readonly kind: RowValueKind
  /** Index of the value in a JSONCompactEachRow array (the writer's order). */
  readonly at: number
  /** Whether log search (query/) returns it. */
  readonly searched: boolean
}

const DELTA = 'DateTime64(9) CODEC(Delta, ZSTD(1))'
const ZSTD = 'String CODEC(ZSTD(1))'
const MAP = 'Map(LowCardinality(String), String) CODEC(ZSTD(1))'

/**
 * Table order (the CREATE TABLE of existing data directories: changing a type
 * or the order here needs a migration). `at` is the payload order, which puts
 * the per-chunk constants (workspace, resource, receive time, batch) first.
 */
export const LOG_COLUMNS = [
  { name: 'workspace_id', type: 'UUID', kind: 'uuid', at: 0, searched: false },
  { name: 'resource_id', type: 'UUID', kind: 'uuid', at: 1, searched: true },
  { name: 'timestamp', type: DELTA, kind: 'ns', at: 4, searched: true },
  { name: 'observed_timestamp', type: DELTA, kind: 'ns', at: 5, searched: true },
  { name: 'received_at', type: DELTA, kind: 'ns', at: 2, searched: true },
  { name: 'batch_id', type: ZSTD, kind: 'string', at: 3, searched: false },
  { name: 'event_id', type: ZSTD, kind: 'string', at: 6, searched: true },
  { name: 'severity_number', type: 'UInt8', kind: 'uint', at: 7, searched: true },
  { name: 'severity_text', type: 'LowCardinality(String)', kind: 'string', at: 8, searched: true },
  { name: 'message', type: ZSTD, kind: 'string', at: 9, searched: true },
  { name: 'source', type: 'LowCardinality(String)', kind: 'string', at: 10, searched: true },
  { name: 'attributes', type: MAP, kind: 'map', at: 11, searched: true },
  { name: 'resource_attributes', type: MAP, kind: 'map', at: 12, searched: true },
  { name: 'scope_name', type: 'LowCardinality(String)', kind: 'string', at: 13, searched: true },
  { name: 'scope_version', type: 'LowCardinality(String)', kind: 'string', at: 14, searched: true },
  { name: 'trace_id', type: ZSTD, kind: 'string', at: 15, searched: true },
  { name: 'span_id', type: ZSTD, kind: 'string', at: 16, searched: true },
  { name: 'flags', type: 'UInt32', kind: 'uint', at: 17, searched: true },
] as const satisfies readonly RowColumn[]

export type LogColumn = (typeof LOG_COLUMNS)[number]
/** The columns log search returns. */
export type SearchedColumn = Extract<LogColumn, { searched: true }>
export type LogColumnName = LogColumn['name']

/** The value a reader gives for a kind: nanosecond times as decimal text. */
export type RowValue<K extends RowValueKind> = K extends 'uint' ? number : K extends 'map' ? Record<string, string> : string

/** One stored row, read back from either line format. */
export type StoredRow = { [C in LogColumn as C['name']]: RowValue<C['kind']> }

/** The columns in payload order (JSONCompactEachRow arrays, the insert's column list). */
export const PAYLOAD_COLUMNS: readonly LogColumn[] = [...LOG_COLUMNS].sort((a, b) => a.at - b.at)
PAYLOAD_COLUMNS.forEach((c, i) => {
  if (c.at !== i) throw new Error(`row model: payload positions must be 0..${LOG_COLUMNS.length - 1}, each once`)
})

/** The column names of a JSONCompactEachRow row, in order. */
export const ROW_COLUMNS: readonly LogColumnName[] = PAYLOAD_COLUMNS.map((c) => c.name)

/** The model of one column. */
export function columnOf(name: LogColumnName): LogColumn {
  return LOG_COLUMNS.find((c) => c.name === name) as LogColumn
}

/** The column definitions of the `logs` table's CREATE TABLE, in table order (each on its own indented line). */
export const COLUMN_DDL = LOG_COLUMNS.map((c) => `\n  ${c.name} ${c.type}`).join(',')

/** The columns log search returns, in table order. */
export const SEARCHED_COLUMNS: readonly SearchedColumn[] = LOG_COLUMNS.filter((c): c is SearchedColumn => c.searched)

/** A value of a stored line as its kind reads (missing values read as empty / zero). */
export function readValue(kind: RowValueKind, v: unknown): unknown {
  switch (kind) {
    case 'ns': return String(v ?? '0')
    case 'uint': return Number(v ?? 0)
    case 'map': return v ?? {}
    default: return String(v ?? '')
  }
}
