// Reading stored rows in each format a row message can hold: Native blocks
// (what decoders write, native-rows.ts), and the two line formats of earlier
// versions still read and loaded, so a backlog or a queue written before an
// upgrade survives it: JSONCompactEachRow (one JSON array per line, in the
// payload order of the row model) and JSONEachRow (one object per line).
import { PAYLOAD_COLUMNS, columnOf, readValue, type LogColumnName, type StoredRow } from '../row-model.ts'
import { countNativeRows, nativeRowHead, readNativeRows } from './native-rows.ts'

/** The stored row formats: the one written, and the two still read. */
export const ROW_FORMATS = { native: 'Native', compact: 'JSONCompactEachRow', objects: 'JSONEachRow' } as const
export type RowFormat = (typeof ROW_FORMATS)[keyof typeof ROW_FORMATS]

/**
 * The format of a body of stored rows, told by its first byte: a line starts
 * with `{` or `[`; a Native block with its column count (18, or another count
 * below 0x5b, never one of those).
 */
export function rowFormatOf(body: Uint8Array): RowFormat {
  const b = body[0]
  return b === 0x7b /* { */ ? ROW_FORMATS.objects : b === 0x5b /* [ */ ? ROW_FORMATS.compact : ROW_FORMATS.native
}

// Nanosecond integers do not fit a double: keep the source text of any unsafe integer.
function exactIntegers(this: unknown, _key: string, value: unknown, ctx?: { source?: string }): unknown {
  return typeof value === 'number' && !Number.isSafeInteger(value) && ctx?.source !== undefined ? ctx.source : value
}

/** Parses one line of the earlier formats (JSONCompactEachRow or JSONEachRow): every column of the row model. */
export function parseStoredRow(line: string): StoredRow {
  const v = JSON.parse(line, exactIntegers as never) as unknown
  const compact = Array.isArray(v)
  const o: Record<string, unknown> = {}
  for (const c of PAYLOAD_COLUMNS) o[c.name] = readValue(c.kind, compact ? v[c.at] : (v as Partial<Record<string, unknown>>)[c.name])
  return o as StoredRow
}

const utf8 = new TextDecoder()

/** Every row of a body of stored rows, in order, whichever its format. */
export function readStoredRows(body: Uint8Array): StoredRow[] {
  if (body.byteLength === 0) return []
  if (rowFormatOf(body) === ROW_FORMATS.native) return readNativeRows(body)
  const out: StoredRow[] = []
  for (const line of utf8.decode(body).split('\n')) if (line !== '') out.push(parseStoredRow(line))
  return out
}

/** The rows of a body of stored rows, whichever its format. */
export function countStoredRows(body: Uint8Array): number {
  if (body.byteLength === 0) return 0
  if (rowFormatOf(body) === ROW_FORMATS.native) return countNativeRows(body)
  let n = 0
  for (let i = body.indexOf(10); i !== -1; i = body.indexOf(10, i + 1)) n++
  return n
}

// The columns every line starts with, either line format (the earlier writer's
// per-chunk prefix): storedRowHead reads them without parsing the row.
const HEAD = ['workspace_id', 'resource_id', 'received_at'] as const
HEAD.forEach((name, i) => {
  if (columnOf(name).at !== i) throw new Error(`row model: ${name} must be payload column ${i}`)
})
const headValue = (name: LogColumnName): string => (columnOf(name).kind === 'ns' ? '(\\d+)' : '"([0-9a-f-]{36})"')
const COMPACT_HEAD_RE = new RegExp('^\\[' + HEAD.map((n) => headValue(n) + ',').join(''))
const OBJECT_HEAD_RE = new RegExp('^\\{' + HEAD.map((n) => `"${n}":` + headValue(n) + ',').join(''))

export interface RowHead {
  workspaceId: string
  resourceId: string
  receivedNs: string
}

/** Workspace, resource and receive time (ns) of a body's first row, without reading the rest; null when not recognised. */
export function storedRowHead(body: Uint8Array): RowHead | null {
  if (body.byteLength === 0) return null
  if (rowFormatOf(body) === ROW_FORMATS.native) return nativeRowHead(body)
  const text = utf8.decode(body.subarray(0, 160))
  const m = COMPACT_HEAD_RE.exec(text) ?? OBJECT_HEAD_RE.exec(text)
  if (m !== null) return { workspaceId: m[1] as string, resourceId: m[2] as string, receivedNs: m[3] as string }
  // A line in another key order: read it whole.
  const nl = body.indexOf(10)
  try {
    const r = parseStoredRow(utf8.decode(nl === -1 ? body : body.subarray(0, nl)))
    return { workspaceId: r.workspace_id, resourceId: r.resource_id, receivedNs: r.received_at }
  } catch {
    return null
  }
}
