// Request bodies that are unique per send without re-encoding: a template is
// encoded once with a 16-character placeholder, and each send writes a fresh
// 16-hex-digit nonce over every occurrence. Unique bytes matter: the pipeline
// deduplicates a repeated body (content-hash message ids), and the legacy route
// deduplicates event ids forever.
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

export interface BodyTemplate {
  /** The uncompressed body with placeholders. */
  plain: Buffer
  /** Byte offsets of every placeholder in `plain`. */
  offsets: number[]
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
  const tailStart = gzip ? (offsets[0] as number) : 0
  const prefix = plain.subarray(0, tailStart)
  const gzHead = !gzip ? Buffer.alloc(0)
    : tailStart === 0 ? GZIP_HEADER
      : Buffer.concat([GZIP_HEADER, deflateRawSync(prefix, { finishFlush: constants.Z_SYNC_FLUSH })])
  return { plain, offsets, records, gzip, gzHead, gzPrefixCrc: gzip ? crc32(prefix) : 0, gzTailStart: tailStart }
}

/** 16 lowercase hex digits of a non-negative integer below 2^53. */
export function nonceHex(n: number): string {
  return n.toString(16).padStart(NONCE_LENGTH, '0')
}

/** The body to send with this nonce (16 hex digits): plain or gzip per the template. */
export function renderBody(t: BodyTemplate, nonce: string): Buffer {
  if (nonce.length !== NONCE_LENGTH) throw new Error(`a nonce is ${NONCE_LENGTH} characters`)
  const start = t.gzTailStart
  // A fresh buffer of its own (never Node's shared pool), patched in place.
  const part = Buffer.allocUnsafeSlow(t.plain.length - start)
  t.plain.copy(part, 0, start)
  for (const at of t.offsets) part.write(nonce, at - start, 'latin1')
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
