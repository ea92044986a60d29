// JSONEachRow encoding of log rows for the ClickHouse `logs` table.
// Decoders fill one reused RowFields object per record and call RowWriter.write:
// no per-record objects survive the call, and the strings are appended to one
// growing string list that becomes a single Buffer per message.

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
  /** Resource attributes, already encoded as a JSON object once per resource. */
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

const HEX = '0123456789abcdef'

/** One broker message's worth of encoded rows. */
export interface RowChunk {
  /** Nats-Msg-Id and the rows' batch_id: the base id plus the chunk number. */
  id: string
  rows: number
  text: string
}

/** Where one chunk sits in a packed buffer. */
export interface ChunkSpan {
  id: string
  rows: number
  offset: number
  length: number
}

/**
 * Encodes every chunk into one freshly allocated buffer (never Node's shared
 * pool), so the buffer can be transferred to another thread whole.
 */
export function packChunks(chunks: readonly RowChunk[]): { data: Uint8Array; spans: ChunkSpan[] } {
  let total = 0
  for (const c of chunks) total += Buffer.byteLength(c.text)
  const data = Buffer.allocUnsafeSlow(total)
  const spans: ChunkSpan[] = []
  let offset = 0
  for (const c of chunks) {
    const length = data.write(c.text, offset)
    spans.push({ id: c.id, rows: c.rows, offset, length })
    offset += length
  }
  return { data, spans }
}

/**
 * Writes the rows of one ingest request as JSONEachRow chunks of bounded size,
 * one chunk per broker message. The static per-chunk prefix (workspace,
 * resource, batch id, receive time) is serialized once per chunk.
 */
export class RowWriter {
  readonly baseId: string
  #head: string
  #prefix = ''
  #parts: string[] = []
  #chunkBytes = 0
  #chunkRows = 0
  #rows = 0
  #chunks: RowChunk[] = []
  readonly #maxChunkBytes: number

  /**
   * @param baseId 24 lowercase hex digits identifying the request content
   * @param maxChunkBytes target chunk size; a chunk closes once it passes this
   */
  constructor(workspaceId: string, resourceId: string, baseId: string, receivedNs: string, maxChunkBytes: number) {
    this.baseId = baseId
    this.#maxChunkBytes = maxChunkBytes
    this.#head = '{"workspace_id":"' + workspaceId + '","resource_id":"' + resourceId + '","received_at":' + receivedNs + ',"batch_id":"'
    this.#openChunk()
  }

  get rows(): number {
    return this.#rows
  }

  write(f: RowFields): void {
    const index = this.#rows++
    const eventId = f.eventId !== '' ? f.eventId : this.baseId + hex8(index)
    const line =
      this.#prefix +
      '"timestamp":' + f.timeNs +
      ',"observed_timestamp":' + f.observedNs +
      ',"event_id":' + JSON.stringify(eventId) +
      ',"severity_number":' + f.severityNumber +
      ',"severity_text":' + JSON.stringify(f.severityText) +
      ',"message":' + JSON.stringify(f.message) +
      ',"source":' + JSON.stringify(f.source) +
      ',"attributes":' + encodeStringMap(f.attrKeys, f.attrValues, f.attrCount) +
      ',"resource_attributes":' + f.resourceJson +
      ',"scope_name":' + JSON.stringify(f.scopeName) +
      ',"scope_version":' + JSON.stringify(f.scopeVersion) +
      ',"trace_id":"' + f.traceId + '","span_id":"' + f.spanId +
      '","flags":' + f.flags + '}\n'
    this.#parts.push(line)
    this.#chunkRows++
    this.#chunkBytes += line.length
    if (this.#chunkBytes >= this.#maxChunkBytes) {
      this.#closeChunk()
      this.#openChunk()
    }
  }

  /** Closes the writer and returns its chunks (none when no row was written). */
  finish(): RowChunk[] {
    this.#closeChunk()
    return this.#chunks
  }

  #openChunk(): void {
    this.#prefix = this.#head + this.chunkId(this.#chunks.length) + '",'
  }

  #closeChunk(): void {
    if (this.#chunkRows === 0) return
    this.#chunks.push({
      id: this.chunkId(this.#chunks.length),
      rows: this.#chunkRows,
      text: this.#parts.join(''),
    })
    this.#parts = []
    this.#chunkRows = 0
    this.#chunkBytes = 0
  }

  chunkId(n: number): string {
    return this.baseId + hex8(n)
  }
}

function hex8(i: number): string {
  // 8 hex digits: no request holds more than 2^32 records or chunks.
  let s = ''
  for (let shift = 28; shift >= 0; shift -= 4) s += HEX[(i >>> shift) & 15]
  return s
}
