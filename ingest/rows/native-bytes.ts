// The byte level of ClickHouse's Native format (a sequence of blocks; in each,
// every column's name, type and values in a row), as the format is read by
// `INSERT ... FORMAT Native` and file(..., Native): little-endian integers,
// LEB128 lengths, strings as length + UTF-8. NativeSink writes into one growing
// buffer (allocUnsafeSlow: an ArrayBuffer of its own, so a worker can transfer
// it whole); NativeCursor reads. Nothing here knows the row model (native-rows.ts does).

const HEX_DIGITS = new Uint8Array([48, 49, 50, 51, 52, 53, 54, 55, 56, 57, 97, 98, 99, 100, 101, 102])
const TWO_32 = 4294967296
/** Longest string written with the JavaScript loop; longer ones go through Buffer's own UTF-8 writer. */
const SHORT_STRING = 48

/** Bytes of the LEB128 form of `n`. */
export function varUIntSize(n: number): number {
  let size = 1
  while (n >= 0x80) {
    n = Math.floor(n / 128)
    size++
  }
  return size
}

export class NativeSink {
  buf: Buffer
  end = 0

  constructor(size = 4096) {
    this.buf = Buffer.allocUnsafeSlow(Math.max(64, size))
  }

  /** Room for `n` more bytes. */
  ensure(n: number): void {
    if (this.end + n > this.buf.byteLength) this.#grow(this.end + n)
  }

  #grow(need: number): void {
    const next = Buffer.allocUnsafeSlow(Math.max(need, this.buf.byteLength * 2))
    this.buf.copy(next, 0, 0, this.end)
    this.buf = next
  }

  /** Forgets what was written, keeping the buffer. */
  reset(): void {
    this.end = 0
  }

  u8(v: number): void {
    this.ensure(1)
    this.buf[this.end++] = v
  }

  u32(v: number): void {
    this.ensure(4)
    this.buf.writeUInt32LE(v >>> 0, this.end)
    this.end += 4
  }

  /** A UInt64 of at most 2^53. */
  u64(v: number): void {
    this.ensure(8)
    this.buf.writeUInt32LE(v % TWO_32, this.end)
    this.buf.writeUInt32LE(Math.floor(v / TWO_32), this.end + 4)
    this.end += 8
  }

  varUInt(v: number): void {
    this.ensure(10)
    const buf = this.buf
    let p = this.end
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80
      v = Math.floor(v / 128)
    }
    buf[p++] = v
    this.end = p
  }

  /** A String value: its UTF-8 length, then its bytes (a lone surrogate as U+FFFD, as Buffer writes it). */
  string(s: string): void {
    const n = s.length
    this.ensure(3 * n + 10)
    const buf = this.buf
    // Room for the length as if every unit were one byte; moved on if the bytes need a longer one.
    const reserved = n < 0x80 ? 1 : varUIntSize(n)
    const start = this.end + reserved
    const bytes = n <= SHORT_STRING ? writeUtf8(buf, start, s) - start : buf.write(s, start, 'utf8')
    const size = bytes < 0x80 ? 1 : varUIntSize(bytes)
    if (size !== reserved) buf.copyWithin(start + size - reserved, start, start + bytes)
    let p = this.end
    let v = bytes
    while (v >= 0x80) {
      buf[p++] = (v & 0x7f) | 0x80
      v = Math.floor(v / 128)
    }
    buf[p] = v
    this.end += size + bytes
  }

  /** A String value known to be ASCII (hex ids, decimal numbers). */
  ascii(s: string): void {
    const n = s.length
    this.varUInt(n)
    this.ensure(n)
    const buf = this.buf
    let p = this.end
    for (let i = 0; i < n; i++) buf[p++] = s.charCodeAt(i)
    this.end = p
  }

  /** A String value: `s` followed by `i` as 8 lowercase hex digits (the writer's derived ids). */
  asciiHex8(s: string, i: number): void {
    this.varUInt(s.length + 8)
    this.ensure(s.length + 8)
    const buf = this.buf
    let p = this.end
    for (let k = 0; k < s.length; k++) buf[p++] = s.charCodeAt(k)
    for (let shift = 28; shift >= 0; shift -= 4) buf[p++] = HEX_DIGITS[(i >>> shift) & 15] as number
    this.end = p
  }

  /**
   * An Int64 from its decimal text (nanoseconds since the epoch; no sign), exact
   * without a BigInt: the seconds and the nine last digits are each exact doubles,
   * and so is every partial product below.
   */
  decimalInt64(s: string): void {
    const n = s.length
    const cut = n > 9 ? n - 9 : 0
    let sec = 0
    for (let i = 0; i < cut; i++) sec = sec * 10 + (s.charCodeAt(i) - 48)
    let frac = 0
    for (let i = cut; i < n; i++) frac = frac * 10 + (s.charCodeAt(i) - 48)
    const high = Math.floor(sec / 65536) * 1e9 // times 2^16
    const low = (sec % 65536) * 1e9 + frac
    const mid = (high % 65536) * 65536 + low
    this.ensure(8)
    this.buf.writeUInt32LE(mid % TWO_32, this.end)
    this.buf.writeUInt32LE((Math.floor(high / 65536) + Math.floor(mid / TWO_32)) >>> 0, this.end + 4)
    this.end += 8
  }

  bytes(b: Uint8Array): void {
    this.ensure(b.byteLength)
    this.buf.set(b, this.end)
    this.end += b.byteLength
  }

  /** The bytes written, over the same memory. */
  view(): Buffer {
    return this.buf.subarray(0, this.end)
  }
}

/** A UUID's text as ClickHouse stores it: each 8-byte half as a little-endian integer. */
export function uuidBytes(text: string): Uint8Array {
  const hex = text.replaceAll('-', '')
  if (!/^[0-9a-fA-F]{32}$/.test(hex)) throw new Error(`not a UUID: ${JSON.stringify(text)}`)
  const raw = Buffer.from(hex, 'hex')
  return Buffer.concat([raw.subarray(0, 8).reverse(), raw.subarray(8, 16).reverse()])
}

/** Where the String value at `at` ends (its length's bytes and its own). */
export function stringEnd(buf: Uint8Array, at: number): number {
  let n = 0
  let scale = 1
  for (;;) {
    const b = buf[at++] as number
    n += (b & 0x7f) * scale
    if (b < 0x80) return at + n
    scale *= 128
  }
}

/** UTF-8 of `s` from `p` (lone surrogates as U+FFFD); returns the position after it. */
function writeUtf8(buf: Uint8Array, p: number, s: string): number {
  const n = s.length
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i)
    if (c < 0x80) buf[p++] = c
    else if (c < 0x800) {
      buf[p++] = 0xc0 | (c >> 6)
      buf[p++] = 0x80 | (c & 0x3f)
    } else {
      let cp = c
      if ((c & 0xf800) === 0xd800) {
        const d = i + 1 < n ? s.charCodeAt(i + 1) : 0
        if (c < 0xdc00 && (d & 0xfc00) === 0xdc00) {
          cp = 0x10000 + ((c - 0xd800) << 10) + (d - 0xdc00)
          i++
          buf[p++] = 0xf0 | (cp >> 18)
          buf[p++] = 0x80 | ((cp >> 12) & 0x3f)
          buf[p++] = 0x80 | ((cp >> 6) & 0x3f)
          buf[p++] = 0x80 | (cp & 0x3f)
          continue
        }
        cp = 0xfffd
      }
      buf[p++] = 0xe0 | (cp >> 12)
      buf[p++] = 0x80 | ((cp >> 6) & 0x3f)
      buf[p++] = 0x80 | (cp & 0x3f)
    }
  }
  return p
}

/** Reads Native bytes front to back; a read past the end throws (a truncated block). */
export class NativeCursor {
  readonly buf: Buffer
  pos: number
  readonly limit: number

  constructor(data: Uint8Array, start = 0, limit = data.byteLength) {
    this.buf = Buffer.from(data.buffer, data.byteOffset, data.byteLength)
    this.pos = start
    this.limit = limit
  }

  get done(): boolean {
    return this.pos >= this.limit
  }

  take(n: number): number {
    const at = this.pos
    if (at + n > this.limit) throw new Error('Native rows: a block ends early')
    this.pos = at + n
    return at
  }

  u8(): number {
    return this.buf[this.take(1)] as number
  }

  u32(): number {
    return this.buf.readUInt32LE(this.take(4))
  }

  u64(): number {
    const at = this.take(8)
    return this.buf.readUInt32LE(at) + this.buf.readUInt32LE(at + 4) * TWO_32
  }

  /** A DateTime64's 8 bytes as unsigned decimal text: the writer's times have no sign (a fixed64 up to 2^64 - 1 reads back as written). */
  int64Text(): string {
    return this.buf.readBigUInt64LE(this.take(8)).toString()
  }

  varUInt(): number {
    let v = 0
    let scale = 1
    for (let i = 0; i < 10; i++) {
      const b = this.u8()
      v += (b & 0x7f) * scale
      if (b < 0x80) return v
      scale *= 128
    }
    throw new Error('Native rows: a length runs past 10 bytes')
  }

  string(): string {
    const n = this.varUInt()
    const at = this.take(n)
    return this.buf.toString('utf8', at, at + n)
  }

  /** Skips one String value. */
  skipString(): void {
    this.take(this.varUInt())
  }

  uuid(): string {
    const at = this.take(16)
    const b = this.buf
    let hex = ''
    for (let i = 7; i >= 0; i--) hex += hex2(b[at + i] as number)
    for (let i = 15; i >= 8; i--) hex += hex2(b[at + i] as number)
    return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
  }
}

function hex2(b: number): string {
  return String.fromCharCode(HEX_DIGITS[b >> 4] as number, HEX_DIGITS[b & 15] as number)
}
