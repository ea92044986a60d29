// OTLP logs decoders: requests built by the official OpenTelemetry serializers
// are decoded by our decoders and, independently, by protobufjs plus a plain
// reference mapping; the rows must match field by field.
import t from 'tap'
import path from 'node:path'
import protobuf from 'protobufjs'
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'
import { MalformedPayloadError } from '../../ingest/errors.ts'
import { RowWriter, encodeStringMap, newRowFields, readStoredRows } from '../../ingest/rows/rows.ts'
import { severityNameOf, severityNumberFromText } from '../../ingest/severity.ts'
import type { DecodeContext, OtlpDecodeResult } from '../../ingest/decode/context.ts'
import { decodeOtlpProtobuf } from '../../ingest/decode/otlp-proto.ts'
import { decodeOtlpJson } from '../../ingest/decode/otlp-json.ts'
import { int64Decimal, uint64Decimal } from '../../ingest/decode/otlp-map.ts'
import { encodeExportLogsResponse, exportLogsResponseJson } from '../../ingest/decode/otlp-response.ts'

// protobufjs stops at 100 message levels (protoc's default); 32 kvlist levels need more.
protobuf.util.recursionLimit = 1000
protobuf.Reader.recursionLimit = 1000

const PROTO_DIR = path.join(import.meta.dirname, '../../proto')
const root = new protobuf.Root()
root.resolvePath = (_origin, target) => path.join(PROTO_DIR, target)
root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto')
const Request = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest')
const Response = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse')

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
const RECEIVED = '1700000099000000000'
const BASE_ID = '0123456789abcdef01234567'

function context(over: Partial<DecodeContext> = {}): DecodeContext {
  return { minTimeNs: 0n, maxTimeNs: 2n ** 64n, receivedNs: RECEIVED, maxMessageLength: 65536, fields: newRowFields(), unstamped: 0, ...over }
}

function newWriter(): RowWriter {
  return new RowWriter('11111111-1111-4111-8111-111111111111', '22222222-2222-4222-8222-222222222222', BASE_ID, RECEIVED, 1 << 20)
}

type Row = Record<string, unknown>

/** Parses the writer's stored rows, keeping the nanosecond integers exact (as strings). */
function rowsOf(writer: RowWriter): Row[] {
  const rows: Row[] = []
  const { data, spans } = writer.finish()
  for (const s of spans) rows.push(...readStoredRows(data.subarray(s.offset, s.offset + s.length)) as unknown as Row[])
  return rows
}

interface Decoded { result: OtlpDecodeResult, rows: Row[] }

function viaProto(bytes: Uint8Array, ctx = context()): Decoded {
  const writer = newWriter()
  const result = decodeOtlpProtobuf(bytes, writer, ctx)
  return { result, rows: rowsOf(writer) }
}

function viaJson(text: string, ctx = context()): Decoded {
  const writer = newWriter()
  const result = decodeOtlpJson(text, writer, ctx)
  return { result, rows: rowsOf(writer) }
}

// ---- Reference: protobufjs objects mapped by the rules, written plainly ----

interface PbAny {
  value?: string
  stringValue?: string
  boolValue?: boolean
  intValue?: string
  doubleValue?: number
  bytesValue?: Uint8Array
  arrayValue?: { values?: PbAny[] }
  kvlistValue?: { values?: PbKv[] }
}
interface PbKv { key?: string, value?: PbAny }
interface PbRecord {
  timeUnixNano?: string
  observedTimeUnixNano?: string
  severityNumber?: number
  severityText?: string
  body?: PbAny
  attributes?: PbKv[]
  flags?: number
  traceId?: Uint8Array
  spanId?: Uint8Array
  eventName?: string
}
interface PbRequest {
  resourceLogs?: {
    resource?: { attributes?: PbKv[] }
    scopeLogs?: { scope?: { name?: string, version?: string }, logRecords?: PbRecord[] }[]
  }[]
}

function plain(v: PbAny | undefined): unknown {
  switch (v?.value) {
    case 'stringValue': return v.stringValue
    case 'boolValue': return v.boolValue
    case 'intValue': return Number.isSafeInteger(Number(v.intValue)) ? Number(v.intValue) : v.intValue
    case 'doubleValue': return Number.isFinite(v.doubleValue) ? v.doubleValue : String(v.doubleValue)
    case 'bytesValue': return Buffer.from(v.bytesValue ?? []).toString('base64')
    case 'arrayValue': return (v.arrayValue?.values ?? []).map(plain)
    case 'kvlistValue': return Object.fromEntries((v.kvlistValue?.values ?? []).map(kv => [kv.key ?? '', plain(kv.value)]))
    default: return null
  }
}

function text(v: PbAny | undefined): string {
  switch (v?.value) {
    case 'stringValue': return v.stringValue ?? ''
    case 'boolValue': return String(v.boolValue)
    case 'intValue': return BigInt(v.intValue ?? 0).toString()
    case 'doubleValue': return String(v.doubleValue)
    case 'bytesValue': return Buffer.from(v.bytesValue ?? []).toString('base64')
    case 'arrayValue': case 'kvlistValue': return JSON.stringify(plain(v))
    default: return ''
  }
}

function flatten(out: [string, string][], key: string, v: PbAny | undefined): void {
  if (v?.value !== 'kvlistValue') {
    out.push([key, text(v)])
    return
  }
  for (const kv of v.kvlistValue?.values ?? []) flatten(out, key === '' ? kv.key ?? '' : key + '.' + (kv.key ?? ''), kv.value)
}

function reference(bytes: Uint8Array, ctx = context()): Decoded {
  const request = Request.toObject(Request.decode(bytes), { longs: String, oneofs: true }) as PbRequest
  const writer = newWriter()
  const f = newRowFields()
  let accepted = 0
  const reasons: string[] = []
  for (const rl of request.resourceLogs ?? []) {
    const res: [string, string][] = []
    for (const kv of rl.resource?.attributes ?? []) flatten(res, kv.key ?? '', kv.value)
    const source = res.findLast(([k]) => k === 'service.name')?.[1] ?? ''
    for (const sl of rl.scopeLogs ?? []) {
      for (const lr of sl.logRecords ?? []) {
        const time0 = BigInt(lr.timeUnixNano ?? 0)
        const observed0 = BigInt(lr.observedTimeUnixNano ?? 0)
        const observed = observed0 !== 0n ? observed0 : BigInt(ctx.receivedNs)
        const time = time0 !== 0n ? time0 : observed
        const message = text(lr.body)
        const trace = lr.traceId?.length ?? 0
        const span = lr.spanId?.length ?? 0
        if (time < ctx.minTimeNs || time > ctx.maxTimeNs) { reasons.push('timestamp outside the accepted window'); continue }
        if (message.length > ctx.maxMessageLength) { reasons.push(`message longer than ${ctx.maxMessageLength} characters`); continue }
        if ((trace !== 0 && trace !== 16) || (span !== 0 && span !== 8)) { reasons.push('trace_id must be 16 bytes and span_id 8 bytes'); continue }
        const attrs: [string, string][] = []
        for (const kv of lr.attributes ?? []) flatten(attrs, kv.key ?? '', kv.value)
        if (lr.eventName) attrs.push(['event.name', lr.eventName])
        const sevIn = lr.severityNumber ?? 0
        const sev = sevIn >= 1 && sevIn <= 24 ? sevIn : severityNumberFromText(lr.severityText ?? '')
        Object.assign(f, {
          timeNs: time.toString(),
          observedNs: observed.toString(),
          severityNumber: sev,
          severityText: lr.severityText || severityNameOf(sev),
          message,
          source,
          attrKeys: attrs.map(a => a[0]),
          attrValues: attrs.map(a => a[1]),
          attrCount: attrs.length,
          resourceJson: encodeStringMap(res.map(a => a[0]), res.map(a => a[1]), res.length),
          scopeName: sl.scope?.name ?? '',
          scopeVersion: sl.scope?.version ?? '',
          traceId: Buffer.from(lr.traceId ?? []).toString('hex'),
          spanId: Buffer.from(lr.spanId ?? []).toString('hex'),
          flags: lr.flags ?? 0,
          eventId: '',
        })
        writer.write(f)
        accepted++
      }
    }
  }
  const n = reasons.length
  const errorMessage = n === 0 ? '' : `${n} log record${n === 1 ? '' : 's'} rejected: ${reasons[0]}`
  return { result: { accepted, rejected: n, errorMessage }, rows: rowsOf(writer) }
}

// ---- Requests from the official serializers ----

type LogOver = { -readonly [K in keyof ReadableLogRecord]?: unknown }
const resourceA = resourceFromAttributes({ 'service.name': 'checkout', 'host.name': 'web-1', 'deployment.environment': 'prod' })
const resourceB = resourceFromAttributes({ 'cloud': { region: 'eu-west-1', zone: 'b' }, 'k8s.pod.uid': 'abc' } as never)
const scopeA = { name: 'app.logger', version: '1.4.2' }
const scopeB = { name: 'other' }

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
function log(over: LogOver = {}): ReadableLogRecord {
  return {
    hrTime: [1700000000, 123456789],
    hrTimeObserved: [1700000000, 223456789],
    resource: resourceA,
    instrumentationScope: scopeA,
    attributes: {},
    droppedAttributesCount: 0,
    severityNumber: 9,
    severityText: 'INFO',
    body: 'hello',
    ...over,
  } as ReadableLogRecord
}

const ATTRS = {
  'str': 'value é ✓',
  'bool.t': true,
  'bool.f': false,
  'int': 42,
  'int.neg': -7,
  'int.big': 2 ** 60,
  'int.bigneg': -(2 ** 62),
  'double': 3.25,
  'double.neg': -1e-7,
  'bytes': new Uint8Array([0, 1, 2, 250, 255]),
  'arr': [1, 'a', true, 2.5, 2 ** 60, [null, 'x'], { k: 'v' }, new Uint8Array([7])],
  'http': { request: { method: 'GET', header: { accept: 'json' } }, status: 200 },
  'empty.map': {},
  'empty.arr': [],
  'fffd': 'replacement \uFFFD char',
}

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
function records(): ReadableLogRecord[] {
  const span = { traceId: '0102030405060708090a0b0c0d0e0f10', spanId: 'a1a2a3a4a5a6a7a8', traceFlags: 1 }
  return [
    log({ attributes: ATTRS, eventName: 'user.login', spanContext: span }),
    log({ body: true, spanContext: { traceId: 'ABCDEF0123456789ABCDEF0123456789', spanId: 'FEDCBA9876543210', traceFlags: 0 } }),
    log({ body: -(2 ** 62) }),
    log({ body: 2 ** 60 }),
    log({ body: -3 }),
    log({ body: 0.1 }),
    log({ body: 1.5e-300 }),
    log({ body: new Uint8Array([104, 105, 0, 255]) }),
    log({ body: ['a', 1, 1.5, false, { x: [1, 2] }] }),
    log({ body: { msg: 'hi', nested: { deep: { er: [1, { z: null }] } }, n: -1 } }),
    log({ body: undefined, severityNumber: undefined, severityText: undefined }),
    log({ body: '', severityNumber: 17, severityText: undefined }),
    log({ severityNumber: undefined, severityText: 'warning' }),
    log({ severityNumber: undefined, severityText: 'Custom' }),
    log({ severityNumber: 24, severityText: 'EMERGENCY' }),
    log({ hrTime: [0, 0], hrTimeObserved: [1700000001, 5] }),
    log({ hrTime: [0, 0], hrTimeObserved: [0, 0] }),
    log({ hrTime: [1700000000, 1], hrTimeObserved: [0, 0] }),
    log({ resource: resourceB, instrumentationScope: scopeB, body: 'resource b' }),
    log({ resource: resourceB, instrumentationScope: scopeA, body: 'resource b, scope a', attributes: { 'service.name': 'not-a-source' } }),
    log({ body: 'x'.repeat(5000) + '\u{1F600}' }),
  ]
}

function protoOf(logs: ReadableLogRecord[]): Uint8Array {
  const bytes = ProtobufLogsSerializer.serializeRequest(logs)
  if (bytes === undefined) throw new Error('serializer returned nothing')
  return bytes
}

function jsonOf(logs: ReadableLogRecord[]): string {
  const bytes = JsonLogsSerializer.serializeRequest(logs)
  if (bytes === undefined) throw new Error('serializer returned nothing')
  return Buffer.from(bytes).toString()
}

/** 'ok', 'malformed', or the unexpected error itself. */
function outcome(fn: () => unknown): unknown {
  try {
    fn()
    return 'ok'
  } catch (err) {
    return err instanceof MalformedPayloadError ? 'malformed' : err
  }
}

function isOkOrMalformed(o: unknown): boolean {
  return o === 'ok' || o === 'malformed'
}

/** Deterministic PRNG (mulberry32) so failures reproduce. */
function rng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

// ---- Tests ----

t.test('protobuf: official serializer bytes decode like protobufjs + reference mapping', async t => {
  const bytes = protoOf(records())
  const got = viaProto(bytes)
  const want = reference(bytes)
  t.same(got.result, { accepted: records().length, rejected: 0, errorMessage: '' })
  t.same(got.result, want.result)
  t.equal(got.rows.length, want.rows.length)
  for (let i = 0; i < want.rows.length; i++) t.same(got.rows[i], want.rows[i], `row ${i}`)
  // A view at an offset into a larger buffer (as Node's pooled Buffers are) decodes the same.
  const pooled = new Uint8Array(bytes.length + 13)
  pooled.set(bytes, 7)
  t.same(viaProto(pooled.subarray(7, 7 + bytes.length)), got)
})

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
t.test('protobuf: spot checks of the mapping rules', async t => {
  const { rows } = viaProto(protoOf(records()))
  // The serializer groups records by resource and scope: resource B's come last.
  const [first, bool, , , , , , bytes, arr, kv, empty, noText, noNumber, unknownText, , obsFallback, recvFallback, noObs] = rows
  const resB = rows.find(r => r.message === 'resource b')
  const resBScopeA = rows.find(r => r.message === 'resource b, scope a')
  t.match(first, {
    timestamp: '1700000000123456789', observed_timestamp: '1700000000223456789', received_at: RECEIVED,
    severity_number: 9, severity_text: 'INFO', message: 'hello', source: 'checkout',
    scope_name: 'app.logger', scope_version: '1.4.2',
    trace_id: '0102030405060708090a0b0c0d0e0f10', span_id: 'a1a2a3a4a5a6a7a8', flags: 1,
    resource_attributes: { 'service.name': 'checkout', 'host.name': 'web-1', 'deployment.environment': 'prod' },
  })
  t.same(first?.attributes, {
    'str': 'value é ✓', 'bool.t': 'true', 'bool.f': 'false', 'int': '42', 'int.neg': '-7',
    'int.big': '1152921504606846976', 'int.bigneg': '-4611686018427387904', 'double': '3.25', 'double.neg': '-1e-7',
    'bytes': 'AAEC+v8=', 'arr': '[1,"a",true,2.5,"1152921504606846976",[null,"x"],{"k":"v"},"Bw=="]',
    'http.request.method': 'GET', 'http.request.header.accept': 'json', 'http.status': '200',
    'empty.arr': '[]', 'fffd': 'replacement \uFFFD char', 'event.name': 'user.login',
  })
  t.match(bool, { message: 'true', trace_id: 'abcdef0123456789abcdef0123456789', span_id: 'fedcba9876543210', flags: 0 })
  t.equal(bytes?.message, 'aGkA/w==')
  t.equal(arr?.message, '["a",1,1.5,false,{"x":[1,2]}]')
  t.equal(kv?.message, '{"msg":"hi","nested":{"deep":{"er":[1,{"z":null}]}},"n":-1}')
  t.match(empty, { message: '', severity_number: 0, severity_text: '', trace_id: '', span_id: '', flags: 0 })
  t.match(noText, { message: '', severity_number: 17, severity_text: 'ERROR' })
  t.match(noNumber, { severity_number: 13, severity_text: 'warning' })
  t.match(unknownText, { severity_number: 0, severity_text: 'Custom' })
  t.match(obsFallback, { timestamp: '1700000001000000005', observed_timestamp: '1700000001000000005' })
  t.match(recvFallback, { timestamp: RECEIVED, observed_timestamp: RECEIVED })
  t.match(noObs, { timestamp: '1700000000000000001', observed_timestamp: RECEIVED })
  t.match(resB, { source: '', scope_name: 'other', scope_version: '', resource_attributes: { 'cloud.region': 'eu-west-1', 'cloud.zone': 'b', 'k8s.pod.uid': 'abc' } })
  t.match(resBScopeA, { source: '', scope_name: 'app.logger', attributes: { 'service.name': 'not-a-source' } })
})

t.test('protobuf: int64 and uint64 edge values (protobufjs-built)', async t => {
  const ints = ['9007199254740993', '-9007199254740993', '9223372036854775807', '-9223372036854775808', '0', '-1', '9007199254740991']
  const request = Request.fromObject({
    resourceLogs: [{
      scopeLogs: [{
        logRecords: [
          ...ints.map(i => ({ timeUnixNano: '18446744073709551615', body: { intValue: i }, attributes: [{ key: 'a', value: { arrayValue: { values: [{ intValue: i }] } } }] })),
          { timeUnixNano: '1', observedTimeUnixNano: '9007199254740993', body: { doubleValue: NaN } },
          { timeUnixNano: '2', body: { doubleValue: 1e21 } },
          { timeUnixNano: '4294967296', body: { doubleValue: -Infinity }, attributes: [{ key: 'd', value: { kvlistValue: { values: [{ key: 'inf', value: { doubleValue: Infinity } }, { key: 'none' }] } } }] },
          { body: { kvlistValue: { values: [{ key: 'e', value: {} }, { key: 'f' }] } }, attributes: [{ key: 'novalue' }, { key: 'emptyvalue', value: {} }] },
        ],
      }],
    }],
  })
  const bytes = Request.encode(request).finish()
  const got = viaProto(bytes)
  const want = reference(bytes)
  t.same(got, want)
  t.same(got.rows.map(r => r.message), [...ints, 'NaN', '1e+21', '-Infinity', '{"e":null,"f":null}'])
  t.same(got.rows.map(r => (r.attributes as Record<string, string>).a).slice(0, 7),
    ['["9007199254740993"]', '["-9007199254740993"]', '["9223372036854775807"]', '["-9223372036854775808"]', '[0]', '[-1]', '[9007199254740991]'])
  t.equal(got.rows[0]?.timestamp, '18446744073709551615')
  t.same(got.rows[9]?.attributes, { 'd.inf': 'Infinity', 'd.none': '' })
  t.same(got.rows[10]?.attributes, { novalue: '', emptyvalue: '' })
})

t.test('uint64Decimal / int64Decimal match BigInt', async t => {
  const rand = rng(7)
  const u32 = (): number => Math.floor(rand() * 4294967296)
  const edges = [0, 1, 0x1fffff, 0x200000, 0x7fffffff, 0x80000000, 0xffffffff]
  let bad = 0
  for (let i = 0; i < 20000; i++) {
    const lo = i < 49 ? edges[i % 7]! : u32()
    const hi = i < 49 ? edges[Math.floor(i / 7)]! : (i % 3 === 0 ? u32() >>> (i % 32) : u32())
    const u = (BigInt(hi) << 32n) | BigInt(lo)
    if (uint64Decimal(lo, hi) !== u.toString()) bad++
    if (int64Decimal(lo, hi) !== BigInt.asIntN(64, u).toString()) bad++
  }
  t.equal(bad, 0)
})

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
t.test('rejected records are counted, the rest kept', async t => {
  const ctx = (): DecodeContext => context({ minTimeNs: 1700000000000000000n, maxTimeNs: 1800000000000000000n, maxMessageLength: 10 })
  const logs = [
    log({ body: 'ok-1' }),
    log({ hrTime: [1600000000, 0], body: 'too old' }),
    log({ hrTime: [1900000000, 0], body: 'future' }),
    log({ body: 'x'.repeat(11) }),
    log({ body: '\u{1F600}'.repeat(5) }),
    log({ body: '\u{1F600}'.repeat(6) }),
    log({ body: { k: 'long enough' } }),
    log({ hrTime: [0, 0], hrTimeObserved: [1600000000, 0] }),
  ]
  const bytes = protoOf(logs)
  const got = viaProto(bytes, ctx())
  t.same(got.result, { accepted: 2, rejected: 6, errorMessage: '6 log records rejected: timestamp outside the accepted window' })
  t.same(got, reference(bytes, ctx()))
  t.same(got.rows.map(r => r.message), ['ok-1', '\u{1F600}'.repeat(5)])
  t.same(viaJson(jsonOf(logs), ctx()), got)

  const lenOnly = viaProto(protoOf([log({ body: 'x'.repeat(11) }), log()]), ctx())
  t.same(lenOnly.result, { accepted: 1, rejected: 1, errorMessage: '1 log record rejected: message longer than 10 characters' })

  // pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
  const ids = Request.encode(Request.fromObject({
    resourceLogs: [{
      scopeLogs: [{
        logRecords: [
          { timeUnixNano: '1700000000000000000', traceId: Buffer.alloc(5), body: { stringValue: 'trace' } },
          { timeUnixNano: '1700000000000000000', spanId: Buffer.alloc(16), body: { stringValue: 'span' } },
          { timeUnixNano: '1700000000000000000', body: { stringValue: 'kept' } },
        ],
      }],
    }],
  })).finish()
  const idGot = viaProto(ids, ctx())
  t.same(idGot, reference(ids, ctx()))
  t.same(idGot.result, { accepted: 1, rejected: 2, errorMessage: '2 log records rejected: trace_id must be 16 bytes and span_id 8 bytes' })
  const jsonIds = (traceId: string, spanId: string): string => JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '1700000000000000000', traceId, spanId }] }] }] })
  t.equal(viaJson(jsonIds('abc', ''), ctx()).result.rejected, 1)
  t.equal(viaJson(jsonIds('0102030405060708090a0b0c0d0e0f1g', ''), ctx()).result.rejected, 1)
  t.equal(viaJson(jsonIds('', '01020304050607'), ctx()).result.rejected, 1)
  t.equal(viaJson(jsonIds('', ''), ctx()).result.accepted, 1)

  const negMax = viaProto(protoOf([log()]), context({ maxTimeNs: -1n }))
  t.same(negMax.result.rejected, 1)
  const negMin = viaProto(protoOf([log()]), context({ minTimeNs: -5n }))
  t.same(negMin.result.accepted, 1)
})

t.test('truncated protobuf at every byte offset', async t => {
  const bytes = protoOf(records())
  let unexpected: unknown = null
  let malformedCount = 0
  for (let i = 0; i < bytes.length; i++) {
    const o = outcome(() => viaProto(bytes.subarray(0, i)))
    if (o === 'malformed') malformedCount++
    else if (o !== 'ok' && unexpected === null) unexpected = o
  }
  t.equal(unexpected, null, 'only MalformedPayloadError or a valid decode')
  t.ok(malformedCount > bytes.length * 0.9, `most prefixes are malformed (${malformedCount}/${bytes.length})`)
  // A truncated length-delimited field inside a copy with trailing bytes is still caught.
  const copy = new Uint8Array(bytes.length + 4)
  copy.set(bytes)
  t.equal(outcome(() => viaProto(copy.subarray(0, bytes.length - 1))), 'malformed')
})

t.test('10k random buffers and 10k mutated requests never crash', async t => {
  const rand = rng(42)
  const base = protoOf(records().slice(0, 3))
  let unexpected: unknown = null
  const seen = { ok: 0, malformed: 0 }
  for (let i = 0; i < 10000; i++) {
    const random = new Uint8Array(Math.floor(rand() * 256))
    for (let k = 0; k < random.length; k++) random[k] = Math.floor(rand() * 256)
    const mutated = Uint8Array.from(base)
    const flips = 1 + Math.floor(rand() * 4)
    for (let k = 0; k < flips; k++) mutated[Math.floor(rand() * mutated.length)] = Math.floor(rand() * 256)
    for (const b of [random, mutated]) {
      const o = outcome(() => viaProto(b))
      if (isOkOrMalformed(o)) seen[o as 'ok' | 'malformed']++
      else if (unexpected === null) unexpected = o
    }
  }
  t.equal(unexpected, null)
  t.ok(seen.ok > 0 && seen.malformed > 0, JSON.stringify(seen))
})

t.test('protobuf wire-level malformations', async t => {
  const malformed = (bytes: number[], why: string): void => {
    t.equal(outcome(() => viaProto(Uint8Array.from(bytes))), 'malformed', why)
  }
  t.equal(outcome(() => viaProto(new Uint8Array(0))), 'ok', 'empty request')
  malformed([0x0a, 0x05, 0x00], 'length past the end')
  malformed([0x0b, 0x0c], 'group start (wire type 3)')
  malformed([0x0c], 'group end (wire type 4)')
  malformed([0x0e], 'wire type 6')
  malformed([0x00], 'field number 0')
  malformed([0x08, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01], 'varint over 10 bytes')
  malformed([0x0a, 0xff, 0xff, 0xff, 0xff, 0x0f], 'huge length')
  malformed([0x09, 1, 2, 3], 'truncated fixed64')
  // Unknown fields of every wire type are skipped.
  const unknown = [0xf8, 0x01, 0x05, 0xf9, 0x01, 1, 2, 3, 4, 5, 6, 7, 8, 0xfa, 0x01, 0x02, 0x41, 0x42, 0xfd, 0x01, 1, 2, 3, 4]
  t.equal(outcome(() => viaProto(Uint8Array.from(unknown))), 'ok', 'unknown fields skipped')
  // A nested message whose content overruns its declared length.
  const bytes = Request.encode(Request.fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'abc' } }] }] }] })).finish()
  const cut = Uint8Array.from(bytes)
  cut[1] = cut[1]! - 1
  t.equal(outcome(() => viaProto(cut)), 'malformed', 'child longer than its parent')
})

t.test('fields in any order (resource after scope_logs, key after value)', async t => {
  // ResourceLogs{scope_logs(2), resource(1)} and KeyValue{value(2), key(1)}, hand-assembled.
  const str = (field: number, s: string): number[] => [field << 3 | 2, Buffer.byteLength(s), ...Buffer.from(s)]
  const msg = (field: number, body: number[]): number[] => [field << 3 | 2, body.length, ...body]
  const anyStr = (s: string): number[] => str(1, s)
  const kv = msg(1, [...msg(2, anyStr('svc')), ...str(1, 'service.name')])
  const record = msg(2, [...msg(5, anyStr('body')), 0x09, 0, 0, 0xa1, 0xed, 0xcc, 0xce, 0x1b, 0x18, ...msg(6, [...msg(2, anyStr('v')), ...str(1, 'k')])])
  const scopeLogs = msg(2, [...record, ...msg(1, [...str(2, '9.9'), ...str(1, 'sc')])])
  const bytes = Uint8Array.from(msg(1, [...scopeLogs, ...msg(1, kv)]))
  const got = viaProto(bytes)
  t.same(got, reference(bytes))
  t.match(got.rows[0], { message: 'body', source: 'svc', scope_name: 'sc', scope_version: '9.9', attributes: { k: 'v' }, resource_attributes: { 'service.name': 'svc' } })
})

t.test('invalid UTF-8 makes the whole request malformed', async t => {
  const targets: Record<string, LogOver> = {
    body: { body: 'ZZZZ' },
    'attribute key': { attributes: { ZZZZ: 'v' } },
    'attribute value': { attributes: { k: 'ZZZZ' } },
    'nested kvlist key': { body: { a: { ZZZZ: 1 } } },
    'array string': { body: ['ok', 'ZZZZ'] },
    'severity text': { severityText: 'ZZZZ' },
    'event name': { eventName: 'ZZZZ' },
    'resource attribute': { resource: resourceFromAttributes({ 'service.name': 'ZZZZ' }) },
    'scope name': { instrumentationScope: { name: 'ZZZZ' } },
  }
  const invalid = { 'lone continuation': [0x41, 0x80, 0x41, 0x41], 'truncated sequence': [0xc3, 0x28, 0x41, 0x41], 'overlong': [0xc0, 0xaf, 0x41, 0x41], 'surrogate': [0xed, 0xa0, 0x80, 0x41], 'byte 0xff': [0xff, 0x41, 0x41, 0x41] }
  for (const [where, over] of Object.entries(targets)) {
    const bytes = protoOf([log(), log(over)])
    const at = Buffer.from(bytes).indexOf('ZZZZ')
    t.ok(at >= 0, `marker in ${where}`)
    t.equal(outcome(() => viaProto(bytes)), 'ok', `${where}: valid before corruption`)
    for (const [kind, seq] of Object.entries(invalid)) {
      const bad = Uint8Array.from(bytes)
      bad.set(seq, at)
      let error: unknown = null
      try { viaProto(bad) } catch (err) { error = err }
      t.ok(error instanceof MalformedPayloadError && /invalid UTF-8/.test((error as Error).message), `${where}: ${kind}`)
    }
  }
  // Valid multi-byte text, including a literal U+FFFD, decodes.
  const good = viaProto(protoOf([log({ body: 'é ✓ \uFFFD \u{1F600}' })]))
  t.equal(good.rows[0]?.message, 'é ✓ \uFFFD \u{1F600}')
})

function nestMap(depth: number): unknown {
  let v: unknown = 'leaf'
  for (let i = 0; i < depth; i++) v = { a: v }
  return v
}
function nestArray(depth: number): unknown {
  let v: unknown = 'leaf'
  for (let i = 0; i < depth; i++) v = [v]
  return v
}

t.test('AnyValue nesting depth is limited to 32', async t => {
  for (const [name, nest] of [['kvlist', nestMap], ['array', nestArray]] as const) {
    for (const where of ['body', 'attributes'] as const) {
      const at = (depth: number): LogOver => where === 'body' ? { body: nest(depth) } : { attributes: { x: nest(depth) } }
      const ok = protoOf([log(at(32))])
      t.same(viaProto(ok), reference(ok), `${name} in ${where}: depth 32 decodes`)
      t.same(viaJson(jsonOf([log(at(32))])), viaProto(ok), `${name} in ${where}: depth 32 JSON`)
      for (const depth of [33, 1000]) {
        t.equal(outcome(() => viaProto(protoOf([log(at(depth))]))), 'malformed', `${name} in ${where}: depth ${depth}`)
        t.equal(outcome(() => viaJson(jsonOf([log(at(depth))]))), 'malformed', `${name} in ${where}: depth ${depth} JSON`)
      }
    }
  }
  t.equal(viaProto(protoOf([log({ attributes: { x: nestMap(32) } })])).rows[0]?.attributes &&
    Object.keys(viaProto(protoOf([log({ attributes: { x: nestMap(32) } })])).rows[0]?.attributes as object)[0], 'x' + '.a'.repeat(32))
})

t.test('JSON: official serializer output decodes like the protobuf request', async t => {
  const logs = records()
  const fromJson = viaJson(jsonOf(logs))
  const fromProto = viaProto(protoOf(logs))
  t.same(fromJson.result, fromProto.result)
  t.equal(fromJson.rows.length, fromProto.rows.length)
  for (let i = 0; i < fromProto.rows.length; i++) t.same(fromJson.rows[i], fromProto.rows[i], `row ${i}`)
})

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
t.test('JSON: numbers vs strings, snake_case, enum names, nulls', async t => {
  const request = {
    resource_logs: [{
      resource: { attributes: [{ key: 'service.name', value: { string_value: 'svc' } }], dropped_attributes_count: 0 },
      scope_logs: [{
        scope: { name: 's', version: null },
        log_records: [
          {
            time_unix_nano: 1700000000000000000,
            observed_time_unix_nano: '01700000000000000001',
            severity_number: 'SEVERITY_NUMBER_ERROR3',
            body: { string_value: 'snake' },
            attributes: [
              { key: 'i.str', value: { int_value: '9007199254740993' } },
              { key: 'i.num', value: { intValue: -5 } },
              { key: 'i.zero', value: { intValue: '-0' } },
              { key: 'd.str', value: { double_value: '1.5' } },
              { key: 'd.nan', value: { doubleValue: 'NaN' } },
              { key: 'd.inf', value: { doubleValue: '-Infinity' } },
              { key: 'b', value: { bytes_value: 'AQID' } },
              { key: 'b.url', value: { bytesValue: '-_8' } },
              { key: 'kv', value: { kvlist_value: { values: [{ key: 'x', value: { bool_value: true } }, { key: 'y', value: null }] } } },
              { key: 'arr', value: { array_value: { values: [{ int_value: '9007199254740993' }, { int_value: 1 }, {}, { double_value: 'Infinity' }] } } },
              { key: 'none', value: null },
            ],
            trace_id: '0102030405060708090A0B0C0D0E0F10',
            span_id: 'A1A2A3A4A5A6A7A8',
            flags: '257',
            event_name: 'e.v',
          },
          { timeUnixNano: '1700000000000000002', severityNumber: 13, body: null, severityText: null },
          { timeUnixNano: '1700000000000000003', severityNumber: 'SEVERITY_NUMBER_BOGUS', severityText: 'debug' },
          { timeUnixNano: '1700000000000000004', severityNumber: '21', body: { kvlistValue: { values: [] } } },
        ],
      }],
    }],
  }
  const { result, rows } = viaJson(JSON.stringify(request))
  t.same(result, { accepted: 4, rejected: 0, errorMessage: '' })
  t.match(rows[0], {
    timestamp: '1700000000000000000', observed_timestamp: '1700000000000000001', severity_number: 19, severity_text: 'ERROR',
    message: 'snake', source: 'svc', scope_name: 's', scope_version: '', trace_id: '0102030405060708090a0b0c0d0e0f10',
    span_id: 'a1a2a3a4a5a6a7a8', flags: 257,
  })
  t.same(rows[0]?.attributes, {
    'i.str': '9007199254740993', 'i.num': '-5', 'i.zero': '0', 'd.str': '1.5', 'd.nan': 'NaN', 'd.inf': '-Infinity',
    'b': 'AQID', 'b.url': '+/8=', 'kv.x': 'true', 'kv.y': '', 'arr': '["9007199254740993",1,null,"Infinity"]', 'none': '', 'event.name': 'e.v',
  })
  t.match(rows[1], { severity_number: 13, severity_text: 'WARN', message: '' })
  t.match(rows[2], { severity_number: 5, severity_text: 'debug' })
  t.match(rows[3], { severity_number: 21, severity_text: 'FATAL', message: '{}' })
  const padded = viaJson(JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ timeUnixNano: '0000000000000000000001700000000000000005', body: { intValue: '-0000000000000000000042' } }] }] }] }))
  t.match(padded.rows[0], { timestamp: '1700000000000000005', message: '-42' })
  t.same(viaJson('{}').result, { accepted: 0, rejected: 0, errorMessage: '' })
  t.same(viaJson('{"resourceLogs":null}').result.accepted, 0)
})

t.test('JSON: malformed input', async t => {
  const rec = (lr: unknown): string => JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [lr] }] }] })
  const bad = {
    'not JSON': '{"resourceLogs": [',
    'empty body': '',
    'top-level array': '[]',
    'top-level null': 'null',
    'resourceLogs not an array': '{"resourceLogs":{}}',
    'resourceLogs item not an object': '{"resourceLogs":[1]}',
    'scopeLogs not an array': '{"resourceLogs":[{"scopeLogs":"x"}]}',
    'logRecords not an array': '{"resourceLogs":[{"scopeLogs":[{"logRecords":{}}]}]}',
    'time not a number': rec({ timeUnixNano: 'abc' }),
    'time negative': rec({ timeUnixNano: -1 }),
    'time fraction': rec({ timeUnixNano: 1.5 }),
    'time over uint64': rec({ timeUnixNano: '18446744073709551616' }),
    'time number over uint64': rec({ timeUnixNano: 1e25 }),
    'body not an object': rec({ body: 'text' }),
    'attributes not an array': rec({ attributes: {} }),
    'attribute key not a string': rec({ attributes: [{ key: 1, value: { stringValue: 'x' } }] }),
    'intValue fraction': rec({ body: { intValue: '1.5' } }),
    'intValue over int64': rec({ body: { intValue: '9223372036854775808' } }),
    'boolValue a string': rec({ body: { boolValue: 'true' } }),
    'doubleValue garbage': rec({ body: { doubleValue: 'x' } }),
    'bytesValue not base64': rec({ body: { bytesValue: '***' } }),
    'stringValue a number': rec({ body: { stringValue: 5 } }),
    'arrayValue values not an array': rec({ body: { arrayValue: { values: 1 } } }),
    'severityNumber an object': rec({ severityNumber: {} }),
    'flags negative': rec({ flags: -1 }),
  }
  for (const [why, text] of Object.entries(bad)) t.equal(outcome(() => viaJson(text)), 'malformed', why)
})

t.test('JSON: 5k mutated requests never crash', async t => {
  const rand = rng(9)
  const base = jsonOf(records().slice(0, 4))
  const alphabet = '{}[]":,0123456789-.eE truefalsnul\\'
  let unexpected: unknown = null
  const seen = { ok: 0, malformed: 0 }
  for (let i = 0; i < 5000; i++) {
    const chars = base.split('')
    const edits = 1 + Math.floor(rand() * 3)
    for (let k = 0; k < edits; k++) chars[Math.floor(rand() * chars.length)] = alphabet[Math.floor(rand() * alphabet.length)]!
    const o = outcome(() => viaJson(chars.join('')))
    if (isOkOrMalformed(o)) seen[o as 'ok' | 'malformed']++
    else if (unexpected === null) unexpected = o
  }
  t.equal(unexpected, null)
  t.ok(seen.ok > 0 && seen.malformed > 0, JSON.stringify(seen))
})

t.test('encodeExportLogsResponse matches protobufjs', async t => {
  t.equal(encodeExportLogsResponse(0, '').length, 0)
  t.same(Response.toObject(Response.decode(encodeExportLogsResponse(0, '')), { longs: String }), {})
  const cases: [number, string][] = [[1, 'x'], [3, '3 log records rejected: timestamp outside the accepted window'], [2 ** 40 + 3, ''], [0, 'warning only'], [200, 'é'.repeat(100)]]
  for (const [n, message] of cases) {
    const decoded = Response.toObject(Response.decode(encodeExportLogsResponse(n, message)), { longs: String, defaults: true }) as { partialSuccess: unknown }
    t.same(decoded.partialSuccess, { rejectedLogRecords: String(n), errorMessage: message }, `${n} ${message.slice(0, 10)}`)
  }
  t.same(exportLogsResponseJson(0, ''), {})
  t.same(exportLogsResponseJson(3, 'why'), { partialSuccess: { rejectedLogRecords: '3', errorMessage: 'why' } })
})
