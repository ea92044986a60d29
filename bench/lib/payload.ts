// Request bodies that are unique per send without re-encoding: a template is
// encoded once with a 16-character placeholder, and each send writes a fresh
// 16-hex-digit nonce over every occurrence. Unique bytes matter: the pipeline
// deduplicates a repeated body (content-hash message ids), and the legacy route
// deduplicates event ids forever. The record that carries the nonce (the last)
// also carries sentinel timestamps, overwritten with the send time, so it can
// be searched for in a narrow time window.
//
// With gzip the part before the first placeholder is compressed once, ending
// on a byte boundary (Z_SYNC_FLUSH); each send compresses only the rest and
// stitches a valid gzip member together (raw deflate blocks may follow each
// other; the CRC continues from the prefix's). Placing the placeholder near
// the end (the last record) makes a gzip send cost a few kilobytes of deflate.
import { constants, crc32, deflateRawSync } from 'node:zlib'

export const NONCE_PLACEHOLDER = 'NONCE@@@@@@@@@@@'
const NONCE_LENGTH = NONCE_PLACEHOLDER.length
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])

/** Event and observed time of the marker record in a template: 2100-01-01T00:00:00.123456789Z and 1 ns later. */
export const SENTINEL_TIME: readonly [number, number] = [4_102_444_800, 123_456_789]
export const SENTINEL_OBSERVED: readonly [number, number] = [4_102_444_800, 123_456_790]
const SENTINEL_NS = 4_102_444_800_123_456_789n

/** How a timestamp is written: protobuf fixed64, OTLP/JSON decimal nanoseconds, RFC 3339 with 9 fraction digits. */
type TimeKind = 'u64le' | 'dec19' | 'iso30'

interface TimeSlot {
  offset: number
  kind: TimeKind
  /** Nanoseconds after the send time (the observed time is 1 ns after the event time). */
  deltaNs: bigint
}

function sentinelPatterns(): { bytes: Buffer; kind: TimeKind; deltaNs: bigint }[] {
  const out: { bytes: Buffer; kind: TimeKind; deltaNs: bigint }[] = []
  for (const delta of [0n, 1n]) {
    const le = Buffer.alloc(8)
    le.writeBigUInt64LE(SENTINEL_NS + delta)
    out.push({ bytes: le, kind: 'u64le', deltaNs: delta })
    out.push({ bytes: Buffer.from(String(SENTINEL_NS + delta)), kind: 'dec19', deltaNs: delta })
  }
  out.push({ bytes: Buffer.from('2100-01-01T00:00:00.123456789Z'), kind: 'iso30', deltaNs: 0n })
  return out
}

export interface BodyTemplate {
  /** The uncompressed body with placeholders. */
  plain: Buffer
  /** Byte offsets of every placeholder in `plain`. */
  offsets: number[]
  /** The marker record's timestamps, written with the send time. */
  times: TimeSlot[]
  records: number
  gzip: boolean
  /** gzip: header plus the compressed bytes before the first placeholder. */
  gzHead: Buffer
  /** gzip: CRC-32 of the bytes before the first placeholder. */
  gzPrefixCrc: number
  /** gzip: where the per-send part starts. */
  gzTailStart: number
}

/** Finds the placeholders in an encoded body and precomputes what gzip needs. */
export function makeTemplate(encoded: Uint8Array, records: number, gzip: boolean): BodyTemplate {
  const plain = Buffer.from(encoded)
  const offsets: number[] = []
  for (let at = plain.indexOf(NONCE_PLACEHOLDER); at !== -1; at = plain.indexOf(NONCE_PLACEHOLDER, at + NONCE_LENGTH)) offsets.push(at)
  if (offsets.length === 0) throw new Error('the encoded body holds no nonce placeholder')
  const times: TimeSlot[] = []
  for (const p of sentinelPatterns()) {
    for (let at = plain.indexOf(p.bytes); at !== -1; at = plain.indexOf(p.bytes, at + p.bytes.length)) times.push({ offset: at, kind: p.kind, deltaNs: p.deltaNs })
  }
  const tailStart = gzip ? Math.min(offsets[0] as number, ...times.map((x) => x.offset)) : 0
  const prefix = plain.subarray(0, tailStart)
  const gzHead = !gzip ? Buffer.alloc(0)
    : tailStart === 0 ? GZIP_HEADER
      : Buffer.concat([GZIP_HEADER, deflateRawSync(prefix, { finishFlush: constants.Z_SYNC_FLUSH })])
  return { plain, offsets, times, records, gzip, gzHead, gzPrefixCrc: gzip ? crc32(prefix) : 0, gzTailStart: tailStart }
}

/** 16 lowercase hex digits of a non-negative integer below 2^53. */
export function nonceHex(n: number): string {
  return n.toString(16).padStart(NONCE_LENGTH, '0')
}

/**
 * The body to send with this nonce (16 hex digits) and marker time (ms since
 * the epoch): plain or gzip per the template.
 */
export function renderBody(t: BodyTemplate, nonce: string, timeMs: number = Date.now()): Buffer {
  if (nonce.length !== NONCE_LENGTH) throw new Error(`a nonce is ${NONCE_LENGTH} characters`)
  const start = t.gzTailStart
  // A fresh buffer of its own (never Node's shared pool), patched in place.
  const part = Buffer.allocUnsafeSlow(t.plain.length - start)
  t.plain.copy(part, 0, start)
  for (const at of t.offsets) part.write(nonce, at - start, 'latin1')
  if (t.times.length > 0) {
    const ns = BigInt(Math.floor(timeMs)) * 1_000_000n
    for (const slot of t.times) {
      const v = ns + slot.deltaNs
      if (slot.kind === 'u64le') part.writeBigUInt64LE(v, slot.offset - start)
      else if (slot.kind === 'dec19') part.write(String(v), slot.offset - start, 'latin1')
      else part.write(new Date(Math.floor(timeMs)).toISOString().slice(0, 23) + '000000Z', slot.offset - start, 'latin1')
    }
  }
  if (!t.gzip) return part
  const deflated = deflateRawSync(part)
  const out = Buffer.allocUnsafeSlow(t.gzHead.length + deflated.length + 8)
  t.gzHead.copy(out, 0)
  deflated.copy(out, t.gzHead.length)
  const end = t.gzHead.length + deflated.length
  out.writeUInt32LE(crc32(part, t.gzPrefixCrc), end)
  out.writeUInt32LE(t.plain.length >>> 0, end + 4)
  return out
}
