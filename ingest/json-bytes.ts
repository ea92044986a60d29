// JSON text written as UTF-8 straight into a byte buffer, for the row writer's
// hot path: no JSON.stringify result, no concatenated line to flatten and
// re-encode. writeJsonString's bytes equal Buffer.from(JSON.stringify(s)),
// lone surrogates included (test/ingest/json-bytes.test.ts holds them together).
// Callers reserve room first (JSON_BYTES_PER_UNIT); nothing here bounds-checks.

/** Worst-case output bytes per UTF-16 code unit of a JSON string (\u00XX, or a lone surrogate's \uXXXX). */
export const JSON_BYTES_PER_UNIT = 6

const HEX_DIGITS = new Uint8Array([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102])
const QUOTE = 0x22
const BACKSLASH = 0x5c

/** Writes `s` as a quoted JSON string; returns the position after it. */
export function writeJsonString(buf: Uint8Array, p: number, s: string): number {
  buf[p++] = QUOTE
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) {
      if (c >= 0x20 && c !== QUOTE && c !== BACKSLASH) buf[p++] = c
      else p = writeEscape(buf, p, c)
    } else if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6)
      buf[p++] = 0x80 | (c & 0x3f)
    } else if ((c & 0xf800) !== 0xd800) {
      buf[p++] = 0xe0 | (c >> 12)
      buf[p++] = 0x80 | ((c >> 6) & 0x3f)
      buf[p++] = 0x80 | (c & 0x3f)
    } else {
      const d = i + 1 < n ? s.charCodeAt(i + 1) : 0
      if (c < 0xdc00 && (d & 0xfc00) === 0xdc00) {
        const cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
        buf[p++] = 0xf0 | (cp >> 18)
        buf[p++] = 0x80 | ((cp >> 12) & 0x3f)
        buf[p++] = 0x80 | ((cp >> 6) & 0x3f)
        buf[p++] = 0x80 | (cp & 0x3f)
        i++
      } else {
        p = writeUnicodeEscape(buf, p, c) // a lone surrogate, as well-formed JSON.stringify writes it
      }
    }
  }
  buf[p++] = QUOTE
  return p
}

function writeEscape(buf: Uint8Array, p: number, c: number): number {
  let e = 0
  switch (c) {
    case QUOTE: e = QUOTE; break
    case BACKSLASH: e = BACKSLASH; break
    case 0x08: e = 0x62; break // b
    case 0x09: e = 0x74; break // t
    case 0x0a: e = 0x6e; break // n
    case 0x0c: e = 0x66; break // f
    case 0x0d: e = 0x72; break // r
    default: return writeUnicodeEscape(buf, p, c)
  }
  buf[p++] = BACKSLASH
  buf[p++] = e
  return p
}

function writeUnicodeEscape(buf: Uint8Array, p: number, c: number): number {
  buf[p++] = BACKSLASH
  buf[p++] = 0x75 // u
  buf[p++] = HEX_DIGITS[(c >> 12) & 15] as number
  buf[p++] = HEX_DIGITS[(c >> 8) & 15] as number
  buf[p++] = HEX_DIGITS[(c >> 4) & 15] as number
  buf[p++] = HEX_DIGITS[c & 15] as number
  return p
}

/** Writes text known to be ASCII (decimal numbers, hex ids) as it is; returns the position after it. */
export function writeAscii(buf: Uint8Array, p: number, s: string): number {
  const n = s.length
  for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i)
  return p
}

/** Writes `i` as 8 lowercase hex digits (no request holds 2^32 records or chunks). */
export function writeHex8(buf: Uint8Array, p: number, i: number): number {
  for (let shift = 28; shift >= 0; shift -= 4) buf[p++] = HEX_DIGITS[(i >>> shift) & 15] as number
  return p
}
