// Mapping shared by the OTLP decoders (protobuf and JSON): attribute rows,
// number and id encodings, and the per-record accept/reject decision.
import { MalformedPayloadError } from '../errors.ts'
import { type RowFields, type RowWriter, encodeStringMap } from '../rows/rows.ts'
import { severityNameOf, severityNumberFromText } from '../severity.ts'
import type { DecodeContext, OtlpDecodeResult } from './context.ts'

/** Deepest accepted AnyValue nesting (the top-level value is depth 0). */
export const MAX_ANY_DEPTH = 32

export function malformed(reason: string): never {
  throw new MalformedPayloadError(reason)
}

export function tooDeep(): never {
  throw new MalformedPayloadError(`AnyValue nested deeper than ${MAX_ANY_DEPTH} levels`)
}

/** Appends one attribute, reusing the row's arrays. */
export function addAttr(f: RowFields, key: string, value: string): void {
  const i = f.attrCount++
  if (i < f.attrKeys.length) {
    f.attrKeys[i] = key
    f.attrValues[i] = value
  } else {
    f.attrKeys.push(key)
    f.attrValues.push(value)
  }
}

/** Dotted key of a kvlist member; an empty prefix adds no dot (as flattenInto does). */
export function childKey(prefix: string, key: string): string {
  return prefix === '' ? key : prefix + '.' + key
}

/**
 * Decimal text of the uint64 hi·2^32 + lo, exact and without BigInt: long
 * division by 10^9 in 16-bit steps keeps every intermediate below 2^53.
 */
export function uint64Decimal(lo: number, hi: number): string {
  if (hi <= 0x1fffff) return String(hi * 4294967296 + lo)
  const qHi = Math.floor(hi / 1e9)
  const t1 = (hi - qHi * 1e9) * 65536 + (lo >>> 16)
  const q1 = Math.floor(t1 / 1e9)
  const t0 = (t1 - q1 * 1e9) * 65536 + (lo & 0xffff)
  const q0 = Math.floor(t0 / 1e9)
  const q = qHi * 4294967296 + q1 * 65536 + q0 // value = q·10^9 + r, q < 2^35
  const r = t0 - q0 * 1e9
  // r + 10^9 has 10 digits: dropping the leading 1 pads r to 9.
  return String(q) + (r >= 100000000 ? String(r) : String(r + 1e9).slice(1))
}

/** Decimal text of the two's-complement int64 hi·2^32 + lo. */
export function int64Decimal(lo: number, hi: number): string {
  if (hi < 0x80000000) return uint64Decimal(lo, hi)
  const nlo = (~lo + 1) >>> 0
  const nhi = (~hi + (nlo === 0 ? 1 : 0)) >>> 0
  return '-' + uint64Decimal(nlo, nhi)
}

/** JSON text of an int64: a number when safe, else a decimal string (protobuf JSON style). */
export function int64Json(lo: number, hi: number): string {
  const shi = hi | 0
  if (shi >= -0x200000 && shi <= 0x1fffff) {
    const n = shi * 4294967296 + lo
    if (Number.isSafeInteger(n)) return String(n)
  }
  return '"' + int64Decimal(lo, hi) + '"'
}

/** JSON text of a double: NaN and the infinities as strings, as protobuf JSON writes them. */
export function doubleJson(n: number): string {
  return Number.isFinite(n) ? String(n) : '"' + String(n) + '"'
}

/** Compares canonical decimal strings; '' sorts below every number. */
function decLess(a: string, b: string): boolean {
  return a.length !== b.length ? a.length < b.length : a < b
}

const WINDOW = 'timestamp outside the accepted window'
const BAD_IDS = 'trace_id must be 16 bytes and span_id 8 bytes'

/** Per-request state: applies the record rules, writes or counts each record. */
export class RecordSink {
  readonly f: RowFields
  readonly #writer: RowWriter
  readonly #ctx: DecodeContext
  readonly #minNs: string
  readonly #maxNs: string
  accepted = 0
  rejected = 0
  #reason = ''

  constructor(writer: RowWriter, ctx: DecodeContext) {
    this.#writer = writer
    this.#ctx = ctx
    this.f = ctx.fields
    // A negative bound becomes '': below every time (min) or rejecting all (max).
    this.#minNs = ctx.minTimeNs < 0n ? '' : ctx.minTimeNs.toString()
    this.#maxNs = ctx.maxTimeNs < 0n ? '' : ctx.maxTimeNs.toString()
  }

  /** Encodes the attributes collected in `f` as the resource; returns its service.name. */
  setResource(): string {
    const f = this.f
    f.resourceJson = encodeStringMap(f.attrKeys, f.attrValues, f.attrCount)
    let source = ''
    for (let i = 0; i < f.attrCount; i++) if (f.attrKeys[i] === 'service.name') source = f.attrValues[i] ?? ''
    f.attrCount = 0
    return source
  }

  /**
   * Finishes the record held in `f` (message, attributes, ids, flags, source
   * set): times are canonical decimals, '0' when unset.
   */
  emit(timeNs: string, observedNs: string, severityNumber: number, severityText: string, idsOk: boolean): void {
    const f = this.f
    const ctx = this.#ctx
    const observed = observedNs !== '0' ? observedNs : ctx.receivedNs
    const time = timeNs !== '0' ? timeNs : observed
    if (decLess(time, this.#minNs) || decLess(this.#maxNs, time)) return this.reject(WINDOW)
    if (f.message.length > ctx.maxMessageLength) return this.reject(`message longer than ${ctx.maxMessageLength} characters`)
    if (!idsOk) return this.reject(BAD_IDS)
    f.timeNs = time
    f.observedNs = observed
    if (timeNs === '0' && observedNs === '0') ctx.unstamped++
    const n = severityNumber >= 1 && severityNumber <= 24 ? severityNumber : severityNumberFromText(severityText)
    f.severityNumber = n
    f.severityText = severityText !== '' ? severityText : severityNameOf(n)
    this.#writer.write(f)
    this.accepted++
  }

  reject(reason: string): void {
    if (this.rejected++ === 0) this.#reason = reason
  }

  result(): OtlpDecodeResult {
    const n = this.rejected
    const errorMessage = n === 0 ? '' : `${n} log record${n === 1 ? '' : 's'} rejected: ${this.#reason}`
    return { accepted: this.accepted, rejected: n, errorMessage }
  }
}
