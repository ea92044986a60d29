// The storage of the decoders' writer (row-writer.ts): one growing buffer per
// column. A request's worth of buffers is allocated once per thread and reused
// by the next writer: allocating them per request cost the decode worker about
// a tenth of its time in the garbage collector (bench/decode).
import { NativeSink } from './native-bytes.ts'

/** A growing column of integers (dictionary indexes, counts). */
export class Ints {
  a: Int32Array
  n = 0

  constructor(size: number) {
    this.a = new Int32Array(size)
  }

  push(v: number): void {
    if (this.n === this.a.length) {
      const next = new Int32Array(this.a.length * 2)
      next.set(this.a)
      this.a = next
    }
    this.a[this.n++] = v
  }
}

/** The storage of a writer's columns: reused by the next writer of the thread (a request's worth of buffers, allocated once). */
export class Columns {
  readonly times: NativeSink
  readonly observed: NativeSink
  readonly severity: NativeSink
  readonly flags: NativeSink
  readonly messages: NativeSink
  readonly traceIds: NativeSink
  readonly spanIds: NativeSink
  readonly eventIds = new NativeSink(256)
  readonly attrValues: NativeSink
  readonly derived: NativeSink
  readonly severityTextIds: Ints
  readonly sourceIds: Ints
  readonly scopeNameIds: Ints
  readonly scopeVersionIds: Ints
  readonly attrCounts: Ints
  readonly attrKeyIds: Ints
  readonly resourceOf: Ints

  constructor(sizeHint: number) {
    // About 600 bytes a row (bench/decode): the row columns start there and grow.
    const rows = Math.max(16, Math.min(1 << 16, Math.ceil(sizeHint / 600)))
    this.times = new NativeSink(rows * 8)
    this.observed = new NativeSink(rows * 8)
    this.severity = new NativeSink(rows)
    this.flags = new NativeSink(rows * 4)
    this.messages = new NativeSink(rows * 128)
    this.traceIds = new NativeSink(rows * 33)
    this.spanIds = new NativeSink(rows * 17)
    this.attrValues = new NativeSink(rows * 64)
    this.derived = new NativeSink(rows)
    this.severityTextIds = new Ints(rows)
    this.sourceIds = new Ints(rows)
    this.scopeNameIds = new Ints(rows)
    this.scopeVersionIds = new Ints(rows)
    this.attrCounts = new Ints(rows)
    this.attrKeyIds = new Ints(rows * 4)
    this.resourceOf = new Ints(rows)
  }

  reset(): void {
    for (const s of [this.times, this.observed, this.severity, this.flags, this.messages, this.traceIds, this.spanIds, this.eventIds, this.attrValues, this.derived]) s.reset()
    for (const i of [this.severityTextIds, this.sourceIds, this.scopeNameIds, this.scopeVersionIds, this.attrCounts, this.attrKeyIds, this.resourceOf]) i.n = 0
  }
}

// One spare set of columns per thread: a decoder worker writes one request at a time.
let spare: Columns | null = null

export function takeColumns(sizeHint: number): Columns {
  const c = spare ?? new Columns(sizeHint)
  spare = null
  return c
}

/** Hands a finished writer's columns to the next writer (their bytes are copied into the blocks by then). */
export function releaseColumns(c: Columns): void {
  c.reset()
  spare = c
}
