// The OTLP route over HTTP: partial success, malformed bodies, content types,
// size limits and backpressure; the server keeps serving through all of it.
import t from 'tap'
import protobuf from 'protobufjs'
import { gzipSync } from 'node:zlib'
import { startTestLookout } from '../helpers/lookout.ts'

const root = new protobuf.Root()
root.resolvePath = (_origin, target) => `proto/${target}`
root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto')
const Request = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest')
const Response = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceResponse')

const lk = await startTestLookout({ env: { LOOKOUT_MAX_BODY_BYTES: String(2 * 1024 * 1024), LOOKOUT_MAX_DECOMPRESSED_BYTES: String(4 * 1024 * 1024) } })
t.teardown(() => lk.stop())
const rid = await lk.resource('otlp-http')
const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/otlp/v1/logs`
const pb = { 'content-type': 'application/x-protobuf' }

function request(records: { body: string; timeUnixNano?: string }[]): Uint8Array {
  return Request.encode(Request.fromObject({
    resourceLogs: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
      scopeLogs: [{ scope: { name: 's' }, logRecords: records.map((r) => ({ body: { stringValue: r.body }, timeUnixNano: r.timeUnixNano ?? String(BigInt(Date.now()) * 1_000_000n), severityNumber: 9 })) }],
    }],
  })).finish()
}

t.test('protobuf success returns an empty ExportLogsServiceResponse', async (t) => {
  const res = await fetch(lk.url + path, { method: 'POST', headers: { ...pb, authorization: `Bearer ${lk.token}` }, body: request([{ body: 'a' }, { body: 'b' }]) })
  t.equal(res.status, 200)
  t.equal(res.headers.get('content-type'), 'application/x-protobuf')
  const decoded = Response.toObject(Response.decode(new Uint8Array(await res.arrayBuffer())))
  t.same(decoded, {}, 'no partial success')
})

t.test('records that cannot be accepted are reported in partial_success, the rest kept', async (t) => {
  const rid2 = await lk.resource('otlp-partial')
  const p2 = `/v1/workspaces/${lk.workspaceId}/resources/${rid2}/otlp/v1/logs`
  const old = '946684800000000000' // 2000-01-01, older than retention
  const body = request([{ body: 'kept 1' }, { body: 'too old', timeUnixNano: old }, { body: 'kept 2' }])
  const res = await fetch(lk.url + p2, { method: 'POST', headers: { ...pb, authorization: `Bearer ${lk.token}` }, body })
  t.equal(res.status, 200)
  const decoded = Response.toObject(Response.decode(new Uint8Array(await res.arrayBuffer())), { longs: String }) as { partialSuccess?: { rejectedLogRecords?: string; errorMessage?: string } }
  t.equal(decoded.partialSuccess?.rejectedLogRecords, '1')
  t.match(decoded.partialSuccess?.errorMessage ?? '', /timestamp/)
  const json = await lk.req('POST', p2, { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'j' }, timeUnixNano: old }] }] }] })
  t.equal(json.status, 200)
  t.same(json.body, { partialSuccess: { rejectedLogRecords: '1', errorMessage: json.body.partialSuccess.errorMessage } })
  const rows = await lk.waitRows(rid2, 2)
  t.same(rows.map((r) => r.message).sort(), ['kept 1', 'kept 2'])
})

t.test('JSON success returns {}', async (t) => {
  const res = await lk.req('POST', path, { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'json' } }] }] }] })
  t.equal(res.status, 200)
  t.same(res.body, {})
})

t.test('malformed bodies are 400, the server keeps serving', async (t) => {
  const good = request([{ body: 'fine' }])
  for (const cut of [1, 5, good.length - 1]) {
    const r = await lk.req('POST', path, good.subarray(0, cut), pb)
    t.equal(r.status, 400, `truncated at ${cut}`)
  }
  let random = 0
  for (let i = 0; i < 20; i++) {
    const junk = new Uint8Array(64 + i * 13).map(() => Math.floor(Math.random() * 256))
    const r = await lk.req('POST', path, junk, pb)
    if (r.status === 400 || r.status === 200) random++
  }
  t.equal(random, 20, 'random bytes: 400 (or, rarely, a valid empty request)')
  t.equal((await lk.req('POST', path, '{"resourceLogs": [', { 'content-type': 'application/json' })).status, 400, 'broken JSON')
  t.equal((await lk.req('POST', path, '{"resourceLogs": 5}', { 'content-type': 'application/json' })).status, 400, 'wrong JSON shape')
  t.equal((await lk.req('POST', path, good, { 'content-type': 'text/plain' })).status, 415, 'wrong content type')
  t.equal((await lk.req('POST', path, new Uint8Array(gzipSync(good)).subarray(0, 10), { ...pb, 'content-encoding': 'gzip' })).status, 400, 'broken gzip')
  t.equal((await lk.req('POST', path, good, pb)).status, 200, 'still serving')
})

t.test('size limits: compressed and decompressed, separately', async (t) => {
  const big = new Uint8Array(3 * 1024 * 1024)
  t.equal((await lk.req('POST', path, big, pb)).status, 413, 'over the body limit')
  const bomb = new Uint8Array(gzipSync(Buffer.alloc(32 * 1024 * 1024)))
  t.ok(bomb.length < 2 * 1024 * 1024, 'the bomb is small when compressed')
  t.equal((await lk.req('POST', path, bomb, { ...pb, 'content-encoding': 'gzip' })).status, 413, 'inflates past the limit')
  const fine = new Uint8Array(gzipSync(request([{ body: 'z'.repeat(1000) }])))
  t.equal((await lk.req('POST', path, fine, { ...pb, 'content-encoding': 'gzip' })).status, 200)
})
