// Stored rows as ClickHouse Native blocks, generated from the row model
// (row-model.ts): each block names every column of the `logs` table in table
// order with its type (the DDL's, without the codec), and the engine reads the
// values as it stores them (bench/insert-format: Native costs the engine less
// per row than either JSON format). The decoders' writer (rows.ts RowWriter)
// spells the same layout out for speed; encodeRows here writes it from row
// objects (a redelivered message's rows left to load, the desktop's forwarding
// pieces), and readNativeRows reads any block of these types (the live tail, the
// forwarder, the loader's checks). test/ingest/native-rows.test.ts holds the
// two writers and the engine's own Native output together.
import { NativeCursor, NativeSink, uuidBytes } from './native-bytes.ts'
import { LOG_COLUMNS, PAYLOAD_COLUMNS, readValue, type LogColumnName, type RowValueKind, type StoredRow } from '../row-model.ts'

/** The wire types of the row model's columns. */
export const NATIVE_TYPES = {
  uuid: 'UUID',
  ns: 'DateTime64(9)',
  string: 'String',
  lowCardinality: 'LowCardinality(String)',
  uint8: 'UInt8',
  uint32: 'UInt32',
  map: 'Map(LowCardinality(String), String)',
} as const
type NativeType = (typeof NATIVE_TYPES)[keyof typeof NATIVE_TYPES]
const KNOWN_TYPES = new Set<string>(Object.values(NATIVE_TYPES))

/** A column's type in a Native block: the DDL's type without its codec. */
export function nativeTypeOf(ddlType: string): NativeType {
  const t = ddlType.replace(/\s+CODEC\(.*\)$/, '')
  if (!KNOWN_TYPES.has(t)) throw new Error(`row model: no Native encoding for ${ddlType}`)
  return t as NativeType
}

/** Per column of the table, in order: name, kind and wire type. */
export const NATIVE_COLUMNS = LOG_COLUMNS.map((c) => ({ name: c.name as LogColumnName, kind: c.kind as RowValueKind, type: nativeTypeOf(c.type) }))

// Each column's name and type as a block states them, encoded once.
const COLUMN_HEADS: Uint8Array[] = NATIVE_COLUMNS.map((c) => {
  const s = new NativeSink(64)
  s.ascii(c.name)
  s.ascii(c.type)
  return Buffer.from(s.view())
})

/** Starts a block of `rows` rows: the column and row counts. */
export function writeBlockStart(sink: NativeSink, rows: number): void {
  sink.varUInt(NATIVE_COLUMNS.length)
  sink.varUInt(rows)
}

/** Starts column `i` (table order) of a block: its name and type. */
export function writeColumnHead(sink: NativeSink, i: number): void {
  sink.bytes(COLUMN_HEADS[i] as Uint8Array)
}

/** The state prefix of a LowCardinality column: keys version 1, shared dictionaries with additional keys. */
export function writeLowCardinalityPrefix(sink: NativeSink): void {
  sink.u64(1)
}

const NEED_GLOBAL_DICTIONARY = 1 << 8
const HAS_ADDITIONAL_KEYS = 1 << 9
const NEED_UPDATE_DICTIONARY = 1 << 10

/**
 * The values of a LowCardinality(String) column (or a Map's keys), as the
 * engine writes them: the index width, the block's dictionary (the empty string
 * first), the row count and one index per row. `dictionary` holds the keys,
 * `indexes[from..to)` point into it. Nothing for no rows.
 */
export function writeLowCardinality(sink: NativeSink, dictionary: readonly string[], indexes: ArrayLike<number>, from: number, to: number): void {
  const rows = to - from
  if (rows === 0) return
  const n = dictionary.length
  const width = n <= 0x100 ? 0 : n <= 0x10000 ? 1 : 2
  sink.u64(width | HAS_ADDITIONAL_KEYS | NEED_UPDATE_DICTIONARY)
  sink.u64(n)
  for (let i = 0; i < n; i++) sink.string(dictionary[i] as string)
  sink.u64(rows)
  const bytes = 1 << width
  sink.ensure(rows * bytes)
  const buf = sink.buf
  let p = sink.end
  for (let i = from; i < to; i++) {
    const v = indexes[i] as number
    if (width === 0) buf[p] = v
    else if (width === 1) buf.writeUInt16LE(v, p)
    else buf.writeUInt32LE(v, p)
    p += bytes
  }
  sink.end = p
}

/** A block's dictionary of one LowCardinality column, in first-seen order after the empty string. */
export class BlockDictionary {
  readonly keys: string[] = ['']
  readonly #ids = new Map<string, number>([['', 0]])
  // Consecutive rows mostly repeat a value (a request's severity, scope, source): compared before hashed.
  #last = ''
  #lastId = 0

  id(key: string): number {
    if (key === this.#last) return this.#lastId
    let id = this.#ids.get(key)
    if (id === undefined) {
      id = this.keys.length
      this.keys.push(key)
      this.#ids.set(key, id)
    }
    this.#last = key
    this.#lastId = id
    return id
  }
}

/** Stored rows (every column of the row model) as one Native block; empty for no rows. */
export function encodeRows(rows: readonly StoredRow[]): Buffer {
  const sink = new NativeSink(256 * rows.length + 1024)
  if (rows.length === 0) return sink.view()
  writeBlockStart(sink, rows.length)
  NATIVE_COLUMNS.forEach((c, i) => {
    writeColumnHead(sink, i)
    const values = rows.map((r) => r[c.name])
    writeValues(sink, c.type, values)
  })
  return Buffer.from(sink.view())
}

function writeValues(sink: NativeSink, type: NativeType, values: unknown[]): void {
  switch (type) {
    case 'UUID': for (const v of values) sink.bytes(uuidBytes(String(v))); return
    case 'DateTime64(9)': for (const v of values) sink.decimalInt64(String(v)); return
    case 'String': for (const v of values) sink.string(String(v)); return
    case 'UInt8': for (const v of values) sink.u8(Number(v)); return
    case 'UInt32': for (const v of values) sink.u32(Number(v)); return
    case 'LowCardinality(String)': {
      const d = new BlockDictionary()
      const ids = values.map((v) => d.id(String(v)))
      writeLowCardinalityPrefix(sink)
      writeLowCardinality(sink, d.keys, ids, 0, ids.length)
      return
    }
    case 'Map(LowCardinality(String), String)': {
      const maps = values.map((v) => Object.entries(v as Record<string, string>))
      writeLowCardinalityPrefix(sink)
      let offset = 0
      for (const m of maps) sink.u64((offset += m.length))
      const d = new BlockDictionary()
      const ids = maps.flatMap((m) => m.map(([k]) => d.id(k)))
      writeLowCardinality(sink, d.keys, ids, 0, ids.length)
      for (const m of maps) for (const [, v] of m) sink.string(v)
    }
  }
}

/** Reads every block of `data` into rows (columns the blocks lack read as empty / zero). */
export function readNativeRows(data: Uint8Array): StoredRow[] {
  const out: StoredRow[] = []
  const c = new NativeCursor(data)
  while (!c.done) {
    const columns = c.varUInt()
    const rows = c.varUInt()
    const block: Record<string, unknown>[] = Array.from({ length: rows }, () => ({}))
    for (let k = 0; k < columns; k++) {
      const name = c.string()
      const values = readValues(c, c.string(), rows)
      for (let i = 0; i < rows; i++) (block[i] as Record<string, unknown>)[name] = values[i]
    }
    for (const o of block) {
      // Keys in payload order, as the line readers give them.
      const row: Record<string, unknown> = {}
      for (const col of PAYLOAD_COLUMNS) row[col.name] = readValue(col.kind, o[col.name])
      out.push(row as StoredRow)
    }
  }
  return out
}

/** The rows in the blocks of `data`, read from the block heads and skipping the values. */
export function countNativeRows(data: Uint8Array): number {
  let n = 0
  const c = new NativeCursor(data)
  while (!c.done) {
    const columns = c.varUInt()
    const rows = c.varUInt()
    for (let k = 0; k < columns; k++) {
      c.skipString()
      readValues(c, c.string(), rows)
    }
    n += rows
  }
  return n
}

const FIXED_WIDTH: Partial<Record<string, number>> = { UUID: 16, 'DateTime64(9)': 8, UInt8: 1, UInt32: 4 }

/**
 * Workspace, resource and receive time of the first row, read from the first
 * block's leading columns (table order puts them among the fixed-width ones,
 * skipped without reading); null when the block does not start that way.
 */
export function nativeRowHead(data: Uint8Array): { workspaceId: string; resourceId: string; receivedNs: string } | null {
  try {
    const c = new NativeCursor(data)
    const columns = c.varUInt()
    const rows = c.varUInt()
    if (rows === 0) return null
    const found: Partial<Record<string, string>> = {}
    for (let k = 0; k < columns; k++) {
      const name = c.string()
      const type = c.string()
      const width = FIXED_WIDTH[type]
      if (width === undefined) break
      const at = c.take(width * rows)
      c.pos = at
      if (type === 'UUID') found[name] = c.uuid()
      else if (type === 'DateTime64(9)') found[name] = c.int64Text()
      c.pos = at + width * rows
    }
    const { workspace_id: ws, resource_id: rid, received_at: rcv } = found
    return ws === undefined || rid === undefined || rcv === undefined ? null : { workspaceId: ws, resourceId: rid, receivedNs: rcv }
  } catch {
    return null
  }
}

function readValues(c: NativeCursor, type: string, rows: number): unknown[] {
  const out = new Array<unknown>(rows)
  switch (type) {
    case 'UUID': for (let i = 0; i < rows; i++) out[i] = c.uuid(); return out
    case 'DateTime64(9)': for (let i = 0; i < rows; i++) out[i] = c.int64Text(); return out
    case 'String': for (let i = 0; i < rows; i++) out[i] = c.string(); return out
    case 'UInt8': for (let i = 0; i < rows; i++) out[i] = c.u8(); return out
    case 'UInt32': for (let i = 0; i < rows; i++) out[i] = c.u32(); return out
    case 'LowCardinality(String)':
      readLowCardinalityPrefix(c)
      return readLowCardinality(c, rows)
    case 'Map(LowCardinality(String), String)': {
      readLowCardinalityPrefix(c)
      const ends: number[] = []
      for (let i = 0; i < rows; i++) ends.push(c.u64())
      const total = ends.at(-1) ?? 0
      const keys = readLowCardinality(c, total)
      let start = 0
      for (let i = 0; i < rows; i++) {
        const m: Record<string, string> = {}
        for (let k = start; k < (ends[i] as number); k++) m[keys[k] as string] = c.string()
        out[i] = m
        start = ends[i] as number
      }
      return out
    }
    default:
      throw new Error(`Native rows: no reader for type ${type}`)
  }
}

function readLowCardinalityPrefix(c: NativeCursor): void {
  const version = c.u64()
  if (version !== 1) throw new Error(`Native rows: LowCardinality keys version ${version} is not supported`)
}

/** `rows` values of a LowCardinality(String) column, in as many dictionary groups as the writer cut. */
function readLowCardinality(c: NativeCursor, rows: number): string[] {
  const out: string[] = []
  let keys: string[]
  while (out.length < rows) {
    const kind = c.u64()
    // A global dictionary (written for parts, not for this format) is not read here.
    if ((kind & HAS_ADDITIONAL_KEYS) === 0 || (kind & NEED_GLOBAL_DICTIONARY) !== 0) {
      throw new Error('Native rows: a LowCardinality column without its own keys is not supported')
    }
    const size = c.u64()
    keys = []
    for (let i = 0; i < size; i++) keys.push(c.string())
    const n = c.u64()
    const width = kind & 0xff
    for (let i = 0; i < n; i++) {
      const id = width === 0 ? c.u8() : width === 1 ? c.buf.readUInt16LE(c.take(2)) : width === 2 ? c.u32() : c.u64()
      const key = keys[id]
      if (key === undefined) throw new Error('Native rows: a LowCardinality index past its dictionary')
      out.push(key)
    }
  }
  return out
}
