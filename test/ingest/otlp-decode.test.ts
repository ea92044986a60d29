// OTLP logs decoders: requests built by the official OpenTelemetry serializers
// are decoded by our decoders and, independently, by protobufjs plus a plain
// reference mapping; the rows must match field by field.

import t from 'tap'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { DecodeContext } from '../../ingest/decode/context.ts'
import { int64Decimal, uint64Decimal } from '../../ingest/decode/otlp-map.ts'
import { MalformedPayloadError } from '../../ingest/errors.ts'
import { RECEIVED, Request, context, isOkOrMalformed, log, outcome, protoOf, jsonOf, records, reference, rng, viaJson, viaProto } from './fixtures/otlp-requests.ts'
import type { LogOver } from './fixtures/otlp-requests.ts'

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
