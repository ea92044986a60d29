// Is the hand-written OTLP protobuf decoder faster than protobufjs followed by
// the same row mapping? See README.md. Run: node_modules/.bin/node bench/decode/decode.bench.ts
import path from 'node:path'
import protobuf from 'protobufjs'
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'
import { RowWriter, newRowFields, resetRowFields, type RowFields } from '../../ingest/internal.ts'
import type { DecodeContext } from '../../ingest/internal.ts'
import { decodeOtlpProtobuf } from '../../ingest/internal.ts'
import { decodeOtlpJson } from '../../ingest/internal.ts'
import { RecordSink, addAttr, childKey, doubleJson, uint64Decimal } from '../../ingest/internal.ts'
// The JSONCompactEachRow writer the Native one replaced (issue 35), kept as the upgrade tests' fixture.
import { PreviousRowWriter } from '../../test/ingest/fixtures/previous-row-writer.ts'

const RECORDS = 1000
const REQUESTS = 8
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5)

// ---- Realistic requests: ~300-byte messages, 8 attributes, 3 resource attributes ----

const WORDS = 'request handled user cart checkout payment upstream latency retry cache miss hit order session token database query timeout connection pool worker'.split(' ')

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
function makeRequest(seed: number): ReadableLogRecord[] {
  let x = seed * 2654435761 >>> 0
  const rand = (n: number): number => {
    x = (x ^ (x << 13)) >>> 0; x = (x ^ (x >>> 17)) >>> 0; x = (x ^ (x << 5)) >>> 0
    return x % n
  }
  const hex = (n: number): string => Array.from({ length: n }, () => '0123456789abcdef'[rand(16)]).join('')
  const resource = resourceFromAttributes({ 'service.name': `svc-${seed}`, 'service.version': '2.14.1', 'host.name': `ip-10-0-${seed}-17.ec2.internal` })
  const scope = { name: '@acme/logger', version: '3.2.0' }
  const logs: ReadableLogRecord[] = []
  for (let i = 0; i < RECORDS; i++) {
    let message = `${WORDS[rand(WORDS.length)]} id=${hex(12)} `
    while (message.length < 290) message += WORDS[rand(WORDS.length)] + (rand(5) === 0 ? `=${rand(100000)} ` : ' ')
    const sev = [5, 9, 9, 9, 13, 17][rand(6)]!
    logs.push({
      hrTime: [1700000000 + i, rand(1e9)],
      hrTimeObserved: [1700000000 + i, rand(1e9)],
      resource,
      instrumentationScope: scope,
      severityNumber: sev,
      severityText: ['DEBUG', 'INFO', 'INFO', 'INFO', 'WARN', 'ERROR'][[5, 9, 9, 9, 13, 17].indexOf(sev)],
      body: message,
      attributes: {
        'http.request.method': ['GET', 'POST', 'PUT'][rand(3)]!,
        'http.route': `/api/v1/orders/{id}/items`,
        'http.response.status_code': [200, 201, 404, 500][rand(4)]!,
        'duration_ms': rand(100000) / 100,
        'user.id': `u-${hex(8)}`,
        'cache.hit': rand(2) === 0,
        'net.peer': { name: `db-${rand(4)}.internal`, port: 5432 },
        'retry.count': rand(3),
      },
      droppedAttributesCount: 0,
      spanContext: { traceId: hex(32), spanId: hex(16), traceFlags: 1 },
    } as ReadableLogRecord)
  }
  return logs
}

const logSets = Array.from({ length: REQUESTS }, (_, i) => makeRequest(i + 1))
const protoRequests = logSets.map(l => ProtobufLogsSerializer.serializeRequest(l)!)
const jsonRequests = logSets.map(l => Buffer.from(JsonLogsSerializer.serializeRequest(l)!).toString())
const protoBytes = protoRequests.reduce((n, b) => n + b.length, 0)
const jsonBytes = jsonRequests.reduce((n, s) => n + Buffer.byteLength(s), 0)

// pinned-date: a pure decoder: the clock bounds are passed in, no clock is read
function context(): DecodeContext {
  return { minTimeNs: 0n, maxTimeNs: 2n ** 63n, receivedNs: '1700000099000000000', maxMessageLength: 65536, fields: newRowFields(), unstamped: 0 }
}
const WS = '11111111-1111-4111-8111-111111111111'
const RID = '22222222-2222-4222-8222-222222222222'
function writer(): RowWriter {
  return new RowWriter(WS, RID, '0123456789abcdef01234567', '1700000099000000000', 1 << 20, 2 << 20)
}
function previousWriter(): RowWriter {
  return new PreviousRowWriter(WS, RID, '0123456789abcdef01234567', '1700000099000000000', 1 << 20, 2 << 20) as unknown as RowWriter
}

// ---- (b) protobufjs decode, then the same mapping over its message objects ----

const root = new protobuf.Root()
root.resolvePath = (_origin, target) => path.join(import.meta.dirname, '../../proto', target)
root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto')
const Request = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest')

interface Long { low: number, high: number, toString(): string }
interface PbAny {
  stringValue: string
  boolValue: boolean
  intValue: Long | number
  doubleValue: number
  bytesValue: Uint8Array
  arrayValue: { values: PbAny[] }
  kvlistValue: { values: PbKv[] }
}
interface PbKv { key: string, value: PbAny | null }
interface PbRecord {
  timeUnixNano: Long | number
  observedTimeUnixNano: Long | number
  severityNumber: number
  severityText: string
  body: PbAny | null
  attributes: PbKv[]
  flags: number
  traceId: Uint8Array
  spanId: Uint8Array
  eventName: string
}
interface PbRequest {
  resourceLogs: { resource: { attributes: PbKv[] } | null, scopeLogs: { scope: { name: string, version: string } | null, logRecords: PbRecord[] }[] }[]
}

function longText(v: Long | number): string {
  return typeof v === 'number' ? String(v) : uint64Decimal(v.low >>> 0, v.high >>> 0)
}
function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.length).toString('hex')
}
// The set oneof member, by own-property checks: protobufjs's `value` getter
// (Object.keys per call) would make this side slower than it needs to be.
const KINDS = ['stringValue', 'intValue', 'doubleValue', 'boolValue', 'kvlistValue', 'arrayValue', 'bytesValue'] as const
function kind(v: PbAny | null): string | undefined {
  if (v === null) return undefined
  for (let i = 0; i < KINDS.length; i++) if (Object.hasOwn(v, KINDS[i]!)) return KINDS[i]
  return undefined
}
function pbText(v: PbAny | null): string {
  switch (kind(v)) {
    case 'stringValue': return v!.stringValue
    case 'boolValue': return v!.boolValue ? 'true' : 'false'
    case 'intValue': return typeof v!.intValue === 'number' ? String(v!.intValue) : v!.intValue.toString()
    case 'doubleValue': return String(v!.doubleValue)
    case 'bytesValue': return Buffer.from(v!.bytesValue.buffer, v!.bytesValue.byteOffset, v!.bytesValue.length).toString('base64')
    case 'arrayValue': case 'kvlistValue': return pbJson(v)
    default: return ''
  }
}
function pbJson(v: PbAny | null): string {
  switch (kind(v)) {
    case 'stringValue': return JSON.stringify(v!.stringValue)
    case 'intValue': {
      const s = pbText(v)
      return Number.isSafeInteger(Number(s)) ? s : '"' + s + '"'
    }
    case 'doubleValue': return doubleJson(v!.doubleValue)
    case 'bytesValue': return '"' + pbText(v) + '"'
    case 'arrayValue': return '[' + v!.arrayValue.values.map(pbJson).join(',') + ']'
    case 'kvlistValue': return '{' + v!.kvlistValue.values.map(kv => JSON.stringify(kv.key) + ':' + pbJson(kv.value)).join(',') + '}'
    case 'boolValue': return pbText(v)
    default: return 'null'
  }
}
function pbFlatten(f: RowFields, key: string, v: PbAny | null): void {
  if (kind(v) !== 'kvlistValue') return addAttr(f, key, pbText(v))
  for (const kv of v!.kvlistValue.values) pbFlatten(f, childKey(key, kv.key), kv.value)
}
function decodeWithProtobufjs(bytes: Uint8Array, w: RowWriter, ctx: DecodeContext): void {
  const request = Request.decode(bytes) as unknown as PbRequest
  const sink = new RecordSink(w, ctx)
  const f = sink.f
  for (const rl of request.resourceLogs) {
    f.attrCount = 0
    for (const kv of rl.resource?.attributes ?? []) pbFlatten(f, kv.key, kv.value)
    const source = sink.setResource()
    for (const sl of rl.scopeLogs) {
      f.scopeName = sl.scope?.name ?? ''
      f.scopeVersion = sl.scope?.version ?? ''
      for (const lr of sl.logRecords) {
        resetRowFields(f)
        f.source = source
        f.message = pbText(lr.body)
        for (const kv of lr.attributes) pbFlatten(f, kv.key, kv.value)
        if (lr.eventName !== '') addAttr(f, 'event.name', lr.eventName)
        const t = lr.traceId.length, s = lr.spanId.length
        f.traceId = t === 16 ? hex(lr.traceId) : ''
        f.spanId = s === 8 ? hex(lr.spanId) : ''
        f.flags = lr.flags
        sink.emit(longText(lr.timeUnixNano), longText(lr.observedTimeUnixNano), lr.severityNumber, lr.severityText,
          (t === 0 || t === 16) && (s === 0 || s === 8))
      }
    }
  }
}

// ---- Measurement ----

// Drops rows: isolates decoding + mapping from JSONEachRow encoding (shared by both sides).
const nullWriter = { write() {} } as unknown as RowWriter

interface Case { name: string, bytes: number, run: (i: number) => void }
const allCases: Case[] = [
  { name: 'ours → RowWriter', bytes: protoBytes, run: i => { const w = writer(); decodeOtlpProtobuf(protoRequests[i]!, w, context()); w.finish() } },
  { name: 'ours → previous JSON writer', bytes: protoBytes, run: i => { const w = previousWriter(); decodeOtlpProtobuf(protoRequests[i]!, w, context()); w.finish() } },
  { name: 'protobufjs+mapping → RowWriter', bytes: protoBytes, run: i => { const w = writer(); decodeWithProtobufjs(protoRequests[i]!, w, context()); w.finish() } },
  { name: 'ours, rows dropped', bytes: protoBytes, run: i => { decodeOtlpProtobuf(protoRequests[i]!, nullWriter, context()) } },
  { name: 'protobufjs+mapping, rows dropped', bytes: protoBytes, run: i => { decodeWithProtobufjs(protoRequests[i]!, nullWriter, context()) } },
  { name: 'protobufjs decode only', bytes: protoBytes, run: i => { Request.decode(protoRequests[i]!) } },
  { name: 'ours JSON → RowWriter', bytes: jsonBytes, run: i => { const w = writer(); decodeOtlpJson(jsonRequests[i]!, w, context()); w.finish() } },
  { name: 'ours JSON → previous JSON writer', bytes: jsonBytes, run: i => { const w = previousWriter(); decodeOtlpJson(jsonRequests[i]!, w, context()); w.finish() } },
]

// BENCH_CASES=a,b keeps the cases whose name contains one of them (for profiling one path).
const only = (process.env.BENCH_CASES ?? '').split(',').filter((x) => x !== '')
const cases = only.length === 0 ? allCases : allCases.filter((c) => only.some((o) => c.name.includes(o)))

/** Records per second over about SECONDS of whole passes over the requests. */
function measure(c: Case, seconds = SECONDS): number {
  let passes = 0
  const start = process.hrtime.bigint()
  let elapsed = 0
  do {
    for (let i = 0; i < REQUESTS; i++) c.run(i)
    passes++
    elapsed = Number(process.hrtime.bigint() - start) / 1e9
  } while (elapsed < seconds)
  return passes * REQUESTS * RECORDS / elapsed
}

// Both decoders must agree before their speed means anything.
const a = writer(), b = writer()
decodeOtlpProtobuf(protoRequests[0]!, a, context())
decodeWithProtobufjs(protoRequests[0]!, b, context())
if (JSON.stringify(a.finish()) !== JSON.stringify(b.finish())) throw new Error('decoders disagree')

console.log(`node ${process.version}, ${REQUESTS} requests x ${RECORDS} records, protobuf ${(protoBytes / REQUESTS / 1024).toFixed(0)} KiB/request ` +
  `(${(protoBytes / REQUESTS / RECORDS).toFixed(0)} B/record), JSON ${(jsonBytes / REQUESTS / 1024).toFixed(0)} KiB/request; ${ROUNDS} rounds of ${SECONDS}s, median`)
for (const c of cases) measure(c, 0.5) // warm-up: let V8 optimize every path
const results = new Map<string, number[]>()
for (let r = 0; r < ROUNDS; r++) {
  for (const c of r % 2 === 0 ? cases : [...cases].reverse()) {
    const list = results.get(c.name) ?? []
    list.push(measure(c))
    results.set(c.name, list)
  }
}
const median = (xs: number[]): number => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)]!
const rate = new Map<string, number>()
for (const c of cases) {
  const rps = median(results.get(c.name)!)
  rate.set(c.name, rps)
  const mbps = rps / RECORDS * (c.bytes / REQUESTS) / 1e6
  console.log(`${c.name.padEnd(34)} ${(rps / 1e3).toFixed(0).padStart(6)}k records/s ${(1e6 / rps).toFixed(2).padStart(6)} µs/record ${mbps.toFixed(1).padStart(7)} MB/s`)
}
const ratio = (a: string, b: string): string => (rate.get(a)! / rate.get(b)!).toFixed(2) + 'x'
if (cases.length === allCases.length) console.log(`ours / protobufjs+mapping, into RowWriter: ${ratio('ours → RowWriter', 'protobufjs+mapping → RowWriter')}; ` +
  `rows dropped: ${ratio('ours, rows dropped', 'protobufjs+mapping, rows dropped')}`)
const rowBytes = (w: RowWriter): number => {
  decodeOtlpProtobuf(protoRequests[0]!, w, context())
  return w.finish().data.byteLength / RECORDS
}
if (rate.has('ours → RowWriter') && rate.has('ours → previous JSON writer')) {
  console.log(`Native writer / previous JSON writer, records/s: protobuf ${ratio('ours → RowWriter', 'ours → previous JSON writer')}` +
    (rate.has('ours JSON → previous JSON writer') ? `, OTLP/JSON ${ratio('ours JSON → RowWriter', 'ours JSON → previous JSON writer')}` : '') +
    `; bytes per row ${rowBytes(writer()).toFixed(0)} against ${rowBytes(previousWriter()).toFixed(0)}`)
}
