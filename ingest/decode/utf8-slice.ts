// Strings out of a protobuf body: UTF-8 validated only when decoding met a bad
// sequence, and short repeated strings served from a small cache.
import { isUtf8 } from 'node:buffer'
import { malformed } from './otlp-map.ts'

// Node's unexported Buffer slicers skip toString's argument handling (protobufjs uses them too).
export interface SliceBuffer extends Buffer {
  utf8Slice(start: number, end: number): string
  base64Slice(start: number, end: number): string
  hexSlice(start: number, end: number): string
}

/** Decodes UTF-8; invalid input decodes to U+FFFD, so only then is it validated. */
export function utf8(buf: Uint8Array, bin: SliceBuffer, start: number, end: number): string {
  const s = bin.utf8Slice(start, end)
  if (s.indexOf('\uFFFD') !== -1 && !isUtf8(buf.subarray(start, end))) malformed('invalid UTF-8 in a string field')
  return s
}

// Short strings (attribute keys, methods, routes, levels) repeat from record to
// record: a small direct-mapped cache by content returns the same string
// without a native call or a new allocation.
export const CACHED_MAX = 32
const CACHE_SLOTS = 1024
const cacheBytes = new Uint8Array(CACHE_SLOTS * CACHED_MAX)
const cacheLengths = new Int32Array(CACHE_SLOTS)
const cacheStrings: string[] = new Array<string>(CACHE_SLOTS).fill('')

export function cachedUtf8(buf: Uint8Array, bin: SliceBuffer, start: number, end: number, n: number): string {
  let h = n
  for (let i = start; i < end; i++) h = Math.imul(h ^ buf[i]!, 0x01000193)
  const slot = (h >>> 0) & (CACHE_SLOTS - 1)
  const at = slot * CACHED_MAX
  if (cacheLengths[slot] === n) {
    let i = 0
    while (i < n && cacheBytes[at + i] === buf[start + i]) i++
    if (i === n) return cacheStrings[slot]!
  }
  const s = utf8(buf, bin, start, end)
  for (let i = 0; i < n; i++) cacheBytes[at + i] = buf[start + i]!
  cacheLengths[slot] = n
  cacheStrings[slot] = s
  return s
}
