// OTLP/protobuf ExportLogsServiceRequest decoder: a hand-written reader that
// fills the reused RowFields straight from the bytes, with no message objects.
// Field order is free in protobuf, so where children need a sibling field
// (resource, scope, KeyValue.key, the AnyValue oneof) that level is scanned
// first; skipping a length-delimited field is O(1), so this stays linear.
import { type RowWriter, resetRowFields } from '../rows/rows.ts'
import type { DecodeContext, OtlpDecodeResult } from './context.ts'
import {
  MAX_ANY_DEPTH, RecordSink, addAttr, childKey, doubleJson, int64Decimal, int64Json,
  malformed, tooDeep, uint64Decimal,
} from './otlp-map.ts'
import { CACHED_MAX, cachedUtf8, utf8, type SliceBuffer } from './utf8-slice.ts'

// Reader state for the request being decoded (decoding is synchronous).
const EMPTY = new Uint8Array(0)
let buf: Uint8Array = EMPTY
let bin = Buffer.alloc(0) as SliceBuffer
let view: DataView<ArrayBufferLike> = new DataView(EMPTY.buffer)
let pos = 0
/** High 32 bits of the last varint read. */
let hi = 0
// Cleared after each request so no writer outlives its decode.
let sink = undefined as unknown as RecordSink

const TRUNCATED = 'truncated protobuf message'

export function decodeOtlpProtobuf(input: Uint8Array, writer: RowWriter, ctx: DecodeContext): OtlpDecodeResult {
  buf = input
  bin = Buffer.from(input.buffer, input.byteOffset, input.byteLength) as SliceBuffer
  view = new DataView(input.buffer, input.byteOffset, input.byteLength)
  pos = 0
  sink = new RecordSink(writer, ctx)
  try {
    const end = input.length
    while (pos < end) {
      const tag = readTag()
      if (tag === 0x0a) resourceLogs(lenEnd(end))
      else skip(tag, end)
    }
    return sink.result()
  } finally {
    buf = EMPTY
    bin = Buffer.alloc(0) as SliceBuffer
    view = new DataView(EMPTY.buffer)
    sink = undefined as unknown as RecordSink
  }
}

/** Reads a varint of up to 10 bytes: returns the low 32 bits, leaves the high ones in `hi`. */
function varint(): number {
  const end = buf.length
  let lo = 0
  let b = 0
  hi = 0
  for (let shift = 0; shift < 28; shift += 7) {
    if (pos >= end) malformed(TRUNCATED)
    b = buf[pos++]!
    lo |= (b & 0x7f) << shift
    if (b < 0x80) return lo >>> 0
  }
  if (pos >= end) malformed(TRUNCATED)
  b = buf[pos++]!
  lo |= (b & 0x0f) << 28
  hi = (b & 0x7f) >> 4
  if (b < 0x80) return lo >>> 0
  for (let shift = 3; shift < 32; shift += 7) {
    if (pos >= end) malformed(TRUNCATED)
    b = buf[pos++]!
    hi |= (b & 0x7f) << shift
    if (b < 0x80) {
      hi >>>= 0
      return lo >>> 0
    }
  }
  return malformed('varint longer than 10 bytes')
}

function readTag(): number {
  const tag = varint()
  if (hi !== 0 || tag < 8) malformed('invalid field tag')
  return tag
}

/** Reads a length prefix; returns where the field ends, which must be within `limit`. */
function lenEnd(limit: number): number {
  const n = varint()
  if (hi !== 0 || n > limit - pos) malformed(TRUNCATED)
  return pos + n
}

function skip(tag: number, limit: number): void {
  switch (tag & 7) {
    case 0: varint(); break
    case 1: pos += 8; break
    case 2: pos = lenEnd(limit); break
    case 5: pos += 4; break
    default: malformed(`unsupported wire type ${tag & 7}`)
  }
  if (pos > limit) malformed(TRUNCATED)
}

/** A message's fields must end exactly at its length. */
function atEnd(end: number): void {
  if (pos !== end) malformed(TRUNCATED)
}

function fixed32(limit: number): number {
  if (limit - pos < 4) malformed(TRUNCATED)
  const v = view.getUint32(pos, true)
  pos += 4
  return v
}

/** Reads fixed64: returns the low 32 bits, leaves the high ones in `hi`. */
function fixed64(limit: number): number {
  if (limit - pos < 8) malformed(TRUNCATED)
  const lo = view.getUint32(pos, true)
  hi = view.getUint32(pos + 4, true)
  pos += 8
  return lo
}

/** Reads a length-delimited string. */
function string(limit: number): string {
  const end = lenEnd(limit)
  const start = pos
  pos = end
  const n = end - start
  return n === 0 ? '' : n <= CACHED_MAX ? cachedUtf8(buf, bin, start, end, n) : utf8(buf, bin, start, end)
}

function resourceLogs(end: number): void {
  const f = sink.f
  const start = pos
  f.attrCount = 0
  while (pos < end) {
    const tag = readTag()
    if (tag === 0x0a) resource(lenEnd(end))
    else skip(tag, end)
  }
  atEnd(end)
  const source = sink.setResource()
  pos = start
  while (pos < end) {
    const tag = readTag()
    if (tag === 0x12) scopeLogs(lenEnd(end), source)
    else skip(tag, end)
  }
}

function resource(end: number): void {
  while (pos < end) {
    const tag = readTag()
    if (tag === 0x0a) keyValue(lenEnd(end), '', 0)
    else skip(tag, end)
  }
  atEnd(end)
}

function scopeLogs(end: number, source: string): void {
  const f = sink.f
  const start = pos
  f.scopeName = ''
  f.scopeVersion = ''
  while (pos < end) {
    const tag = readTag()
    if (tag === 0x0a) scope(lenEnd(end))
    else skip(tag, end)
  }
  atEnd(end)
  pos = start
  while (pos < end) {
    const tag = readTag()
    if (tag === 0x12) logRecord(lenEnd(end), source)
    else skip(tag, end)
  }
}

function scope(end: number): void {
  const f = sink.f
  while (pos < end) {
    const tag = readTag()
    if (tag === 0x0a) f.scopeName = string(end)
    else if (tag === 0x12) f.scopeVersion = string(end)
    else skip(tag, end)
  }
  atEnd(end)
}

function logRecord(end: number, source: string): void {
  const f = sink.f
  resetRowFields(f)
  f.source = source
  let timeLo = 0, timeHi = 0, obsLo = 0, obsHi = 0
  let severity = 0
  let severityText = ''
  let eventName = ''
  let idsOk = true
  while (pos < end) {
    const tag = readTag()
    switch (tag) {
      case 0x09: timeLo = fixed64(end); timeHi = hi; break
      case 0x10: severity = varint() | 0; break
      case 0x1a: severityText = string(end); break
      case 0x2a: f.message = anyText(lenEnd(end)); break
      case 0x32: keyValue(lenEnd(end), '', 0); break
      case 0x45: f.flags = fixed32(end); break
      case 0x4a: {
        const e = lenEnd(end)
        const n = e - pos
        idsOk &&= n === 16 || n === 0
        f.traceId = n === 16 ? bin.hexSlice(pos, e) : ''
        pos = e
        break
      }
      case 0x52: {
        const e = lenEnd(end)
        const n = e - pos
        idsOk &&= n === 8 || n === 0
        f.spanId = n === 8 ? bin.hexSlice(pos, e) : ''
        pos = e
        break
      }
      case 0x59: obsLo = fixed64(end); obsHi = hi; break
      case 0x62: eventName = string(end); break
      default: skip(tag, end)
    }
  }
  atEnd(end)
  if (eventName !== '') addAttr(f, 'event.name', eventName)
  const time = timeLo === 0 && timeHi === 0 ? '0' : uint64Decimal(timeLo, timeHi)
  const observed = obsLo === 0 && obsHi === 0 ? '0' : uint64Decimal(obsLo, obsHi)
  sink.emit(time, observed, severity, severityText, idsOk)
}

// A KeyValue's scan (its key, where its value lies), shared by the attribute and
// the JSON paths; module state like `pos`, read into locals before any recursion.
let kvKey = ''
let kvValueStart = -1
let kvValueEnd = 0

function scanKeyValue(end: number): void {
  kvKey = ''
  kvValueStart = -1
  kvValueEnd = 0
  while (pos < end) {
    const tag = readTag()
    if (tag === 0x0a) kvKey = string(end)
    else if (tag === 0x12) {
      kvValueEnd = lenEnd(end)
      kvValueStart = pos
      pos = kvValueEnd
    } else skip(tag, end)
  }
  atEnd(end)
}

/** Parses a KeyValue and adds it (flattened) under prefix.key. */
function keyValue(end: number, prefix: string, depth: number): void {
  scanKeyValue(end)
  const full = childKey(prefix, kvKey)
  if (kvValueStart < 0) addAttr(sink.f, full, '')
  else {
    const valueEnd = kvValueEnd
    pos = kvValueStart
    flatten(valueEnd, full, depth)
    pos = end
  }
}

/** Adds an AnyValue as attributes: kvlist members under dotted keys, anything else as text. */
function flatten(end: number, key: string, depth: number): void {
  if (depth > MAX_ANY_DEPTH) tooDeep()
  const tag = oneof(end)
  if (tag !== 0x32) {
    addAttr(sink.f, key, textOf(tag, end, depth))
    return
  }
  const e = lenEnd(end)
  while (pos < e) {
    const t = readTag()
    if (t === 0x0a) keyValue(lenEnd(e), key, depth + 1)
    else skip(t, e)
  }
  atEnd(e)
  pos = end
}

/**
 * Scans an AnyValue for its oneof field (the last one wins, as in protobuf);
 * returns its tag (0 when none) and leaves pos at that field's value.
 */
function oneof(end: number): number {
  let found = 0
  let at = pos
  while (pos < end) {
    const tag = readTag()
    const p = pos
    skip(tag, end)
    switch (tag) {
      case 0x0a: case 0x10: case 0x18: case 0x21: case 0x2a: case 0x32: case 0x3a: case 0x40:
        found = tag
        at = p
    }
  }
  atEnd(end)
  pos = at
  return found
}

/** An AnyValue as message or attribute text; leaves pos at end. */
function anyText(end: number): string {
  return textOf(oneof(end), end, 0)
}

function textOf(tag: number, end: number, depth: number): string {
  let s = ''
  switch (tag) {
    case 0x0a: s = string(end); break
    case 0x10: s = varint() !== 0 || hi !== 0 ? 'true' : 'false'; break
    case 0x18: { const lo = varint(); s = int64Decimal(lo, hi); break }
    case 0x21: s = String(view.getFloat64(pos, true)); break
    case 0x2a: case 0x32: return jsonOf(tag, end, depth)
    case 0x3a: { const e = lenEnd(end); s = bin.base64Slice(pos, e); break }
  }
  pos = end
  return s
}

/** An AnyValue as JSON text (kvlist → object, array → array); leaves pos at end. */
function anyJson(end: number, depth: number): string {
  if (depth > MAX_ANY_DEPTH) tooDeep()
  return jsonOf(oneof(end), end, depth)
}

function jsonOf(tag: number, end: number, depth: number): string {
  let s = 'null'
  switch (tag) {
    case 0x0a: s = JSON.stringify(string(end)); break
    case 0x10: s = varint() !== 0 || hi !== 0 ? 'true' : 'false'; break
    case 0x18: { const lo = varint(); s = int64Json(lo, hi); break }
    case 0x21: s = doubleJson(view.getFloat64(pos, true)); break
    case 0x2a: {
      const e = lenEnd(end)
      s = '['
      while (pos < e) {
        const t = readTag()
        if (t === 0x0a) s += (s.length === 1 ? '' : ',') + anyJson(lenEnd(e), depth + 1)
        else skip(t, e)
      }
      atEnd(e)
      s += ']'
      break
    }
    case 0x32: {
      const e = lenEnd(end)
      s = '{'
      while (pos < e) {
        const t = readTag()
        if (t === 0x0a) s += (s.length === 1 ? '' : ',') + memberJson(lenEnd(e), depth + 1)
        else skip(t, e)
      }
      atEnd(e)
      s += '}'
      break
    }
    case 0x3a: { const e = lenEnd(end); s = '"' + bin.base64Slice(pos, e) + '"'; break }
  }
  pos = end
  return s
}

/** A kvlist KeyValue as `"key":value`. */
function memberJson(end: number, depth: number): string {
  scanKeyValue(end)
  const key = kvKey
  let value = 'null'
  if (kvValueStart >= 0) {
    const valueEnd = kvValueEnd
    pos = kvValueStart
    value = anyJson(valueEnd, depth)
    pos = end
  }
  return JSON.stringify(key) + ':' + value
}
