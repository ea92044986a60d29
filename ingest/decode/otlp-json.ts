// OTLP/HTTP JSON ExportLogsServiceRequest decoder (protobuf JSON mapping, with
// OTLP's hex trace/span ids). Field names are lowerCamelCase; the proto's
// snake_case names are accepted too. null stands for an absent field.
import { resetRowFields, type RowWriter } from '../rows/rows.ts'
import type { DecodeContext, OtlpDecodeResult } from './context.ts'
import { MAX_ANY_DEPTH, RecordSink, addAttr, childKey, doubleJson, malformed, tooDeep } from './otlp-map.ts'

type Obj = Record<string, unknown>

export function decodeOtlpJson(text: string, writer: RowWriter, ctx: DecodeContext): OtlpDecodeResult {
  let request: unknown
  try {
    request = JSON.parse(text)
  } catch (err) {
    malformed('invalid JSON: ' + (err as Error).message)
  }
  const sink = new RecordSink(writer, ctx)
  for (const rl of list(object(request, 'request'), 'resourceLogs', 'resource_logs')) resourceLogs(sink, object(rl, 'resourceLogs[]'))
  return sink.result()
}

function get(o: Obj, camel: string, snake: string): unknown {
  const v = o[camel]
  return v !== undefined && v !== null ? v : (o[snake] ?? undefined)
}

function object(v: unknown, what: string): Obj {
  if (v === null || typeof v !== 'object' || Array.isArray(v)) malformed(`${what} is not an object`)
  return v as Obj
}

function optObject(o: Obj, camel: string, snake: string): Obj | undefined {
  const v = get(o, camel, snake)
  return v === undefined ? undefined : object(v, camel)
}

function list(o: Obj, camel: string, snake: string): unknown[] {
  const v = get(o, camel, snake)
  if (v === undefined) return []
  if (!Array.isArray(v)) malformed(`${camel} is not an array`)
  return v
}

function str(o: Obj, camel: string, snake: string): string {
  const v = get(o, camel, snake)
  if (v === undefined) return ''
  if (typeof v !== 'string') malformed(`${camel} is not a string`)
  return v
}

const UINT64_MAX = '18446744073709551615'

/** A fixed64 time (decimal string or number) as a canonical decimal. */
function uint64(o: Obj, camel: string, snake: string): string {
  const v = get(o, camel, snake)
  if (v === undefined) return '0'
  let s: string
  if (typeof v === 'number') {
    if (!Number.isInteger(v) || v < 0) malformed(`${camel} is not an unsigned integer`)
    s = v <= Number.MAX_SAFE_INTEGER ? String(v) : BigInt(v).toString()
  } else if (typeof v === 'string' && /^\d+$/.test(v)) {
    s = v.replace(/^0+(?=\d)/, '')
  } else return malformed(`${camel} is not an unsigned integer`)
  if (s.length > 20 || (s.length === 20 && s > UINT64_MAX)) malformed(`${camel} is out of range`)
  return s
}

function uint32(v: unknown): number {
  if (v === undefined) return 0
  const n = typeof v === 'string' && /^\d{1,10}$/.test(v) ? Number(v) : v
  if (typeof n !== 'number' || !Number.isInteger(n) || n < 0 || n > 0xffffffff) malformed('flags is not a uint32')
  return n
}

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n

/** An int64 (string or number) as a canonical decimal. */
function int64(v: unknown): string {
  if (typeof v === 'number') {
    if (!Number.isInteger(v)) malformed('intValue is not an integer')
    if (Number.isSafeInteger(v)) return String(v)
    const b = BigInt(v)
    if (b < INT64_MIN || b > INT64_MAX) malformed('intValue is out of range')
    return b.toString()
  }
  if (typeof v !== 'string' || !/^-?\d+$/.test(v)) return malformed('intValue is not an integer')
  if (v.length < 16) return String(Number(v))
  const b = BigInt(v)
  if (b < INT64_MIN || b > INT64_MAX) malformed('intValue is out of range')
  return b.toString()
}

function double(v: unknown): number {
  if (typeof v === 'number') return v
  if (typeof v === 'string') {
    if (v === 'NaN') return NaN
    const n = v.trim() === '' ? NaN : Number(v)
    if (!Number.isNaN(n)) return n
  }
  return malformed('doubleValue is not a number')
}

const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/

function base64(v: unknown): string {
  if (typeof v !== 'string' || !BASE64.test(v)) malformed('bytesValue is not base64')
  return Buffer.from(v, 'base64').toString('base64')
}

/** Lowercase hex id of `digits` hex digits, '' when absent, null when invalid. */
function hexId(v: unknown, digits: number): string | null {
  if (v === undefined || v === '') return ''
  if (typeof v !== 'string' || v.length !== digits || !/^[0-9a-fA-F]*$/.test(v)) return null
  return v.toLowerCase()
}

const SEVERITY_PREFIX = 'SEVERITY_NUMBER_'
const SEVERITY_BY_NAME: Record<string, number> = { UNSPECIFIED: 0 }
for (const [i, name] of ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'].entries()) {
  SEVERITY_BY_NAME[name] = i * 4 + 1
  for (let k = 2; k <= 4; k++) SEVERITY_BY_NAME[name + k] = i * 4 + k
}

/** severityNumber as a number or an enum name; unknown names are unspecified (0). */
function severity(v: unknown): number {
  if (v === undefined) return 0
  if (typeof v === 'number') return Number.isInteger(v) ? v : malformed('severityNumber is not an integer')
  if (typeof v !== 'string') return malformed('severityNumber is not a number or name')
  if (/^-?\d+$/.test(v)) return Number(v)
  return v.startsWith(SEVERITY_PREFIX) ? (SEVERITY_BY_NAME[v.slice(SEVERITY_PREFIX.length)] ?? 0) : 0
}

function resourceLogs(sink: RecordSink, rl: Obj): void {
  const f = sink.f
  f.attrCount = 0
  const res = optObject(rl, 'resource', 'resource')
  if (res !== undefined) attributes(sink, list(res, 'attributes', 'attributes'))
  const source = sink.setResource()
  for (const sl of list(rl, 'scopeLogs', 'scope_logs')) {
    const scopeLogs = object(sl, 'scopeLogs[]')
    const scope = optObject(scopeLogs, 'scope', 'scope')
    f.scopeName = scope === undefined ? '' : str(scope, 'name', 'name')
    f.scopeVersion = scope === undefined ? '' : str(scope, 'version', 'version')
    for (const lr of list(scopeLogs, 'logRecords', 'log_records')) logRecord(sink, object(lr, 'logRecords[]'), source)
  }
}

function logRecord(sink: RecordSink, lr: Obj, source: string): void {
  const f = sink.f
  resetRowFields(f)
  f.source = source
  const body = get(lr, 'body', 'body')
  f.message = body === undefined ? '' : anyText(object(body, 'body'), 0)
  attributes(sink, list(lr, 'attributes', 'attributes'))
  const eventName = str(lr, 'eventName', 'event_name')
  if (eventName !== '') addAttr(f, 'event.name', eventName)
  f.flags = uint32(get(lr, 'flags', 'flags'))
  const traceId = hexId(get(lr, 'traceId', 'trace_id'), 32)
  const spanId = hexId(get(lr, 'spanId', 'span_id'), 16)
  f.traceId = traceId ?? ''
  f.spanId = spanId ?? ''
  sink.emit(
    uint64(lr, 'timeUnixNano', 'time_unix_nano'),
    uint64(lr, 'observedTimeUnixNano', 'observed_time_unix_nano'),
    severity(get(lr, 'severityNumber', 'severity_number')),
    str(lr, 'severityText', 'severity_text'),
    traceId !== null && spanId !== null,
  )
}

function attributes(sink: RecordSink, kvs: unknown[]): void {
  for (const kv of kvs) keyValue(sink, object(kv, 'attribute'), '', 0)
}

function keyValue(sink: RecordSink, kv: Obj, prefix: string, depth: number): void {
  const key = childKey(prefix, str(kv, 'key', 'key'))
  const value = get(kv, 'value', 'value')
  if (value === undefined) return addAttr(sink.f, key, '')
  const any = object(value, 'value')
  if (depth > MAX_ANY_DEPTH) tooDeep()
  if (kindOf(any) !== 'kvlist') return addAttr(sink.f, key, anyText(any, depth))
  for (const member of list(object(get(any, 'kvlistValue', 'kvlist_value'), 'kvlistValue'), 'values', 'values')) keyValue(sink, object(member, 'kvlistValue.values[]'), key, depth + 1)
}

type Kind = 'string' | 'bool' | 'int' | 'double' | 'array' | 'kvlist' | 'bytes' | ''

/** The AnyValue's set oneof member (the first found if a sender sets several). */
function kindOf(any: Obj): Kind {
  if (get(any, 'stringValue', 'string_value') !== undefined) return 'string'
  if (get(any, 'boolValue', 'bool_value') !== undefined) return 'bool'
  if (get(any, 'intValue', 'int_value') !== undefined) return 'int'
  if (get(any, 'doubleValue', 'double_value') !== undefined) return 'double'
  if (get(any, 'arrayValue', 'array_value') !== undefined) return 'array'
  if (get(any, 'kvlistValue', 'kvlist_value') !== undefined) return 'kvlist'
  if (get(any, 'bytesValue', 'bytes_value') !== undefined) return 'bytes'
  return ''
}

function bool(v: unknown): string {
  if (typeof v !== 'boolean') malformed('boolValue is not a boolean')
  return v ? 'true' : 'false'
}

/** An AnyValue as message or attribute text. */
function anyText(any: Obj, depth: number): string {
  switch (kindOf(any)) {
    case 'string': return str(any, 'stringValue', 'string_value')
    case 'bool': return bool(get(any, 'boolValue', 'bool_value'))
    case 'int': return int64(get(any, 'intValue', 'int_value'))
    case 'double': return String(double(get(any, 'doubleValue', 'double_value')))
    case 'bytes': return base64(get(any, 'bytesValue', 'bytes_value'))
    case 'array': case 'kvlist': return anyJson(any, depth)
    default: return ''
  }
}

/** An AnyValue as JSON text (kvlist → object, array → array). */
function anyJson(any: Obj, depth: number): string {
  if (depth > MAX_ANY_DEPTH) tooDeep()
  switch (kindOf(any)) {
    case 'string': return JSON.stringify(str(any, 'stringValue', 'string_value'))
    case 'bool': return bool(get(any, 'boolValue', 'bool_value'))
    case 'int': {
      const s = int64(get(any, 'intValue', 'int_value'))
      return Number.isSafeInteger(Number(s)) ? s : '"' + s + '"'
    }
    case 'double': return doubleJson(double(get(any, 'doubleValue', 'double_value')))
    case 'bytes': return '"' + base64(get(any, 'bytesValue', 'bytes_value')) + '"'
    case 'array': {
      const values = list(object(get(any, 'arrayValue', 'array_value'), 'arrayValue'), 'values', 'values')
      let s = '['
      for (let i = 0; i < values.length; i++) s += (i === 0 ? '' : ',') + anyJson(object(values[i], 'arrayValue.values[]'), depth + 1)
      return s + ']'
    }
    case 'kvlist': {
      const values = list(object(get(any, 'kvlistValue', 'kvlist_value'), 'kvlistValue'), 'values', 'values')
      let s = '{'
      for (let i = 0; i < values.length; i++) {
        const kv = object(values[i], 'kvlistValue.values[]')
        const value = get(kv, 'value', 'value')
        s += (i === 0 ? '' : ',') + JSON.stringify(str(kv, 'key', 'key')) + ':' +
          (value === undefined ? 'null' : anyJson(object(value, 'value'), depth + 1))
      }
      return s + '}'
    }
    default: return 'null'
  }
}
