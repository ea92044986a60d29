// The decoders' writer of stored rows: Native blocks (native-rows.ts), one per
// broker message, every column of the row model in table order. Decoders fill
// one reused RowFields object per record and call write(), which appends each
// value to its column (no per-record object survives the call); finish() lays
// the columns out as one block per chunk. Measured against the JSONCompactEachRow
// writer it replaces in bench/decode (README there).
import { NativeSink, stringEnd, uuidBytes } from './native-bytes.ts'
import { releaseColumns, takeColumns, type Columns, type Ints } from './row-columns.ts'
import { BlockDictionary, writeBlockStart, writeColumnHead, writeLowCardinality, writeLowCardinalityPrefix } from './native-rows.ts'
import type { RowFields } from './row-fields.ts'
import { BASE_DIGITS } from './event-id.ts'

/** Where one chunk (one broker message) sits in a writer's buffer. */
export interface ChunkSpan {
  /** Nats-Msg-Id and the rows' batch_id: the base id plus the chunk number. */
  id: string
  rows: number
  offset: number
  length: number
}

/** A writer's output: every chunk in one buffer, and where each one sits. */
export interface PackedRows {
  /** Backed by an ArrayBuffer of its own (never Node's shared pool), so it can be transferred to another thread whole. */
  data: Uint8Array
  spans: ChunkSpan[]
}

const BASE_ID = new RegExp(`^[0-9a-f]{${BASE_DIGITS}}$`)
// Bytes per row beyond the variable ones: two UUIDs, three times, two 33-byte ids,
// severity, flags, four dictionary indexes, two map offsets.
const FIXED_ROW_BYTES = 16 + 16 + 8 + 8 + 8 + 33 + 33 + 1 + 4 + 4 + 16

/** Attribute positions whose last key a writer remembers. */
const KEY_POSITIONS = 64

/** A resource's attributes as the writer keeps them: dictionary ids of the keys, the values' encoded bytes. */
interface ResourceEntry {
  keyIds: number[]
  values: Uint8Array
}

/** Where a chunk's rows and values start in the writer's columns. */
interface ChunkStart {
  row: number
  attr: number
  message: number
  attrValues: number
  traceIds: number
  spanIds: number
}

/**
 * Writes the rows of one ingest request as Native blocks of bounded size, one
 * block per broker message (chunk). Each value goes to its column's buffer as
 * it comes; the per-chunk constants (workspace, resource, receive time, batch id)
 * and the derived event ids are written when the blocks are laid out, so the
 * base id can still change until then (finish). LowCardinality columns keep one
 * dictionary per request, renumbered per block as the block is laid out.
 */
export class RowWriter {
  baseId: string
  readonly #workspaceId: string
  readonly #resourceId: string
  readonly #receivedNs: string
  readonly #maxChunkBytes: number
  #rows = 0
  #chunkBytes = 0
  readonly #chunks: ChunkStart[] = []
  // Columns of fixed width, one value per row.
  readonly #times: NativeSink
  readonly #observed: NativeSink
  readonly #severity: NativeSink
  readonly #flags: NativeSink
  // String columns, and the caller-given event ids (a derived id is a 0 in #derived).
  readonly #messages: NativeSink
  readonly #traceIds: NativeSink
  readonly #spanIds: NativeSink
  readonly #eventIds: NativeSink
  readonly #attrValues: NativeSink
  readonly #derived: NativeSink
  // LowCardinality columns: the request's dictionaries and each row's index.
  readonly #severityTexts = new BlockDictionary()
  readonly #sources = new BlockDictionary()
  readonly #scopeNames = new BlockDictionary()
  readonly #scopeVersions = new BlockDictionary()
  readonly #attrKeys = new BlockDictionary()
  readonly #resourceKeys = new BlockDictionary()
  readonly #severityTextIds: Ints
  readonly #sourceIds: Ints
  readonly #scopeNameIds: Ints
  readonly #scopeVersionIds: Ints
  readonly #attrCounts: Ints
  readonly #attrKeyIds: Ints
  readonly #resourceOf: Ints
  readonly #resources: ResourceEntry[] = []
  readonly #resourceIndex = new Map<string, number>()
  #resourceJson = ''
  #resource = -1
  /** The columns' storage, handed back for the next writer of this thread at finish. */
  readonly #columns: Columns
  // Records mostly list the same attribute keys in the same order: the key last
  // seen at each position, compared before the dictionary hashes it.
  readonly #lastKeys: string[] = []
  readonly #lastKeyIds = new Int32Array(KEY_POSITIONS)
  /** Set by finish: the columns belong to the next writer then. */
  #finished = false

  /**
   * @param baseId 24 lowercase hex digits identifying the request content
   * @param maxChunkBytes target chunk size; a chunk closes once it passes this
   * @param sizeHint bytes the rows may take (buffers grow as needed)
   */
  constructor(workspaceId: string, resourceId: string, baseId: string, receivedNs: string, maxChunkBytes: number, sizeHint = 64 * 1024) {
    this.baseId = baseId
    this.#workspaceId = workspaceId
    this.#resourceId = resourceId
    this.#receivedNs = receivedNs
    this.#maxChunkBytes = maxChunkBytes
    const c = takeColumns(sizeHint)
    this.#columns = c
    this.#times = c.times
    this.#observed = c.observed
    this.#severity = c.severity
    this.#flags = c.flags
    this.#messages = c.messages
    this.#traceIds = c.traceIds
    this.#spanIds = c.spanIds
    this.#eventIds = c.eventIds
    this.#attrValues = c.attrValues
    this.#derived = c.derived
    this.#severityTextIds = c.severityTextIds
    this.#sourceIds = c.sourceIds
    this.#scopeNameIds = c.scopeNameIds
    this.#scopeVersionIds = c.scopeVersionIds
    this.#attrCounts = c.attrCounts
    this.#attrKeyIds = c.attrKeyIds
    this.#resourceOf = c.resourceOf
    this.#openChunk()
  }

  get rows(): number {
    return this.#rows
  }

  write(f: RowFields): void {
    if (this.#finished) throw new Error('the writer is finished')
    this.#rows++
    if (f.resourceJson !== this.#resourceJson) this.#setResource(f.resourceJson)
    const before = this.#variableBytes()
    // Table order (row-model.ts; test/ingest/native-rows.test.ts holds this and encodeRows together).
    this.#times.decimalInt64(f.timeNs)
    this.#observed.decimalInt64(f.observedNs)
    if (f.eventId === '') this.#derived.u8(0)
    else {
      this.#derived.u8(1)
      this.#eventIds.string(f.eventId)
    }
    this.#severity.u8(f.severityNumber)
    this.#severityTextIds.push(this.#severityTexts.id(f.severityText))
    this.#messages.string(f.message)
    this.#sourceIds.push(this.#sources.id(f.source))
    const count = f.attrCount
    const keys = f.attrKeys
    const values = f.attrValues
    this.#attrCounts.push(count)
    const lastKeys = this.#lastKeys
    for (let i = 0; i < count; i++) {
      const key = keys[i] as string
      let id: number
      if (i < KEY_POSITIONS && lastKeys[i] === key) id = this.#lastKeyIds[i] as number
      else {
        id = this.#attrKeys.id(key)
        if (i < KEY_POSITIONS) {
          lastKeys[i] = key
          this.#lastKeyIds[i] = id
        }
      }
      this.#attrKeyIds.push(id)
      this.#attrValues.string(values[i] as string)
    }
    this.#resourceOf.push(this.#resource)
    this.#scopeNameIds.push(this.#scopeNames.id(f.scopeName))
    this.#scopeVersionIds.push(this.#scopeVersions.id(f.scopeVersion))
    this.#traceIds.ascii(f.traceId)
    this.#spanIds.ascii(f.spanId)
    this.#flags.u32(f.flags)
    const resource = this.#resources[this.#resource] as ResourceEntry
    this.#chunkBytes += FIXED_ROW_BYTES + count + resource.values.byteLength + resource.keyIds.length + this.#variableBytes() - before
    if (this.#chunkBytes >= this.#maxChunkBytes) this.#openChunk()
  }

  #variableBytes(): number {
    return this.#messages.end + this.#attrValues.end + this.#eventIds.end + this.#traceIds.end + this.#spanIds.end
  }

  // A request's records share one or a few resources: each is read and encoded once.
  #setResource(json: string): void {
    this.#resourceJson = json
    const known = this.#resourceIndex.get(json)
    if (known !== undefined) {
      this.#resource = known
      return
    }
    const sink = new NativeSink(json.length * 3 + 16)
    const keyIds: number[] = []
    for (const [k, v] of Object.entries(JSON.parse(json) as Record<string, string>)) {
      keyIds.push(this.#resourceKeys.id(k))
      sink.string(String(v))
    }
    this.#resource = this.#resources.length
    this.#resources.push({ keyIds, values: Buffer.from(sink.view()) })
    this.#resourceIndex.set(json, this.#resource)
  }

  #openChunk(): void {
    const last = this.#chunks.at(-1)
    if (last !== undefined && last.row === this.#rows) return
    this.#chunks.push(this.#position())
    this.#chunkBytes = 0
  }

  /**
   * Lays the rows out as blocks and returns them (no span when no row was
   * written). `baseId`, when given, replaces the one the writer started with:
   * the request's identity is known only after decoding (rows without a sender
   * time make it depend on the receive time).
   */
  finish(baseId = this.baseId): PackedRows {
    if (this.#finished) throw new Error('the writer is finished')
    if (baseId !== this.baseId && !BASE_ID.test(baseId)) throw new Error(`a base id is ${BASE_DIGITS} lowercase hex digits`)
    this.baseId = baseId
    const ends = this.#chunks.slice(1)
    ends.push(this.#position())
    const out = new NativeSink(this.#variableBytes() + this.#rows * (FIXED_ROW_BYTES + 64) + this.#attrKeyIds.n * 4 + 4096)
    const spans: ChunkSpan[] = []
    const constants = { workspace: uuidBytes(this.#workspaceId), resource: uuidBytes(this.#resourceId), received: int64Bytes(this.#receivedNs) }
    let eventAt = 0
    for (let n = 0; n < ends.length; n++) {
      const from = this.#chunks[n] as ChunkStart
      const to = ends[n] as ChunkStart
      if (to.row === from.row) continue
      const offset = out.end
      eventAt = this.#block(out, n, from, to, eventAt, constants)
      spans.push({ id: this.chunkId(n), rows: to.row - from.row, offset, length: out.end - offset })
    }
    this.#finished = true
    releaseColumns(this.#columns)
    return { data: out.view(), spans }
  }

  #position(): ChunkStart {
    return {
      row: this.#rows, attr: this.#attrKeyIds.n, message: this.#messages.end, attrValues: this.#attrValues.end,
      traceIds: this.#traceIds.end, spanIds: this.#spanIds.end,
    }
  }

  /** Chunk `n` as one block, columns in table order; returns where its caller-given event ids end. */
  #block(out: NativeSink, n: number, from: ChunkStart, to: ChunkStart, eventAt: number, constants: BlockConstants): number {
    const rows = to.row - from.row
    writeBlockStart(out, rows)
    writeColumnHead(out, 0)
    repeat(out, constants.workspace, rows)
    writeColumnHead(out, 1)
    repeat(out, constants.resource, rows)
    writeColumnHead(out, 2)
    out.bytes(this.#times.buf.subarray(from.row * 8, to.row * 8))
    writeColumnHead(out, 3)
    out.bytes(this.#observed.buf.subarray(from.row * 8, to.row * 8))
    writeColumnHead(out, 4)
    repeat(out, constants.received, rows)
    writeColumnHead(out, 5)
    const batchId = this.chunkId(n)
    for (let i = 0; i < rows; i++) out.ascii(batchId)
    writeColumnHead(out, 6)
    const ids = this.#eventIds.buf
    for (let i = from.row; i < to.row; i++) {
      if (this.#derived.buf[i] === 0) out.asciiHex8(this.baseId, i)
      else {
        const end = stringEnd(ids, eventAt)
        out.bytes(ids.subarray(eventAt, end))
        eventAt = end
      }
    }
    writeColumnHead(out, 7)
    out.bytes(this.#severity.buf.subarray(from.row, to.row))
    writeColumnHead(out, 8)
    this.#lowCardinality(out, this.#severityTexts, this.#severityTextIds.a, from.row, to.row)
    writeColumnHead(out, 9)
    out.bytes(this.#messages.buf.subarray(from.message, to.message))
    writeColumnHead(out, 10)
    this.#lowCardinality(out, this.#sources, this.#sourceIds.a, from.row, to.row)
    writeColumnHead(out, 11)
    writeLowCardinalityPrefix(out)
    let offset = 0
    for (let i = from.row; i < to.row; i++) out.u64((offset += this.#attrCounts.a[i] as number))
    this.#renumber(this.#attrKeys, this.#attrKeyIds.a, from.attr, to.attr)
    writeLowCardinality(out, this.#blockKeys, this.#blockIds, 0, to.attr - from.attr)
    out.bytes(this.#attrValues.buf.subarray(from.attrValues, to.attrValues))
    writeColumnHead(out, 12)
    this.#resourceAttributes(out, from.row, to.row)
    writeColumnHead(out, 13)
    this.#lowCardinality(out, this.#scopeNames, this.#scopeNameIds.a, from.row, to.row)
    writeColumnHead(out, 14)
    this.#lowCardinality(out, this.#scopeVersions, this.#scopeVersionIds.a, from.row, to.row)
    writeColumnHead(out, 15)
    out.bytes(this.#traceIds.buf.subarray(from.traceIds, to.traceIds))
    writeColumnHead(out, 16)
    out.bytes(this.#spanIds.buf.subarray(from.spanIds, to.spanIds))
    writeColumnHead(out, 17)
    out.bytes(this.#flags.buf.subarray(from.row * 4, to.row * 4))
    return eventAt
  }

  #lowCardinality(out: NativeSink, dictionary: BlockDictionary, ids: Int32Array, from: number, to: number): void {
    writeLowCardinalityPrefix(out)
    this.#renumber(dictionary, ids, from, to)
    writeLowCardinality(out, this.#blockKeys, this.#blockIds, 0, to - from)
  }

  /** Each row's resource attributes: offsets, keys (renumbered for the block), values. */
  #resourceAttributes(out: NativeSink, from: number, to: number): void {
    writeLowCardinalityPrefix(out)
    const resourceOf = this.#resourceOf.a
    let offset = 0
    for (let i = from; i < to; i++) out.u64((offset += (this.#resources[resourceOf[i] as number] as ResourceEntry).keyIds.length))
    const keyIds = new Int32Array(offset)
    let k = 0
    for (let i = from; i < to; i++) for (const id of (this.#resources[resourceOf[i] as number] as ResourceEntry).keyIds) keyIds[k++] = id
    this.#renumber(this.#resourceKeys, keyIds, 0, offset)
    writeLowCardinality(out, this.#blockKeys, this.#blockIds, 0, offset)
    for (let i = from; i < to; i++) out.bytes((this.#resources[resourceOf[i] as number] as ResourceEntry).values)
  }

  // The block's own dictionary of a LowCardinality column: the request's ids
  // [from, to) renumbered in first-seen order after the empty string (id 0 in both).
  #blockKeys: string[] = []
  #blockIds = new Int32Array(0)
  #renumbered = new Int32Array(0)

  #renumber(dictionary: BlockDictionary, ids: Int32Array, from: number, to: number): void {
    const size = dictionary.keys.length
    if (this.#renumbered.length < size) this.#renumbered = new Int32Array(Math.max(size, 2 * this.#renumbered.length))
    if (this.#blockIds.length < to - from) this.#blockIds = new Int32Array(Math.max(to - from, 2 * this.#blockIds.length))
    const renumbered = this.#renumbered
    renumbered.fill(-1, 0, size)
    renumbered[0] = 0
    const keys: string[] = ['']
    for (let i = from; i < to; i++) {
      const id = ids[i] as number
      let b = renumbered[id] as number
      if (b < 0) {
        b = keys.length
        keys.push(dictionary.keys[id] as string)
        renumbered[id] = b
      }
      this.#blockIds[i - from] = b
    }
    this.#blockKeys = keys
  }

  chunkId(n: number): string {
    return this.baseId + hex8(n)
  }
}

interface BlockConstants {
  workspace: Uint8Array
  resource: Uint8Array
  received: Uint8Array
}

function repeat(out: NativeSink, value: Uint8Array, times: number): void {
  for (let i = 0; i < times; i++) out.bytes(value)
}

function int64Bytes(decimal: string): Uint8Array {
  const s = new NativeSink(8)
  s.decimalInt64(decimal)
  return Buffer.from(s.view())
}

const HEX = '0123456789abcdef'

function hex8(i: number): string {
  // 8 hex digits: no request holds more than 2^32 records or chunks.
  let s = ''
  for (let shift = 28; shift >= 0; shift -= 4) s += HEX[(i >>> shift) & 15]
  return s
}
