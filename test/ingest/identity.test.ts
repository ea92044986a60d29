// A retry is not a repeat (issue: distinct events silently merged). Equal
// bytes are the same events only when the sender stamped them (a sender time
// on every record) or named the request (Idempotency-Key); a line without a
// time sent again later is a new event. The same on the JSON batch route and
// on OTLP, protobuf and JSON, through every dedup layer (JetStream msg id,
// loader, insert token): the counts are read back from ClickHouse.
import t from 'tap'
import protobuf from 'protobufjs'
import { randomUUID } from 'node:crypto'
import { startTestLookout } from '../helpers/lookout.ts'

const root = new protobuf.Root()
root.resolvePath = (_origin, target) => `proto/${target}`
root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto')
const Request = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest')

const lk = await startTestLookout()
t.teardown(() => lk.stop())

type Sender = (rid: string, stamped: boolean, text: string, headers?: Record<string, string>) => Promise<{ status: number; body: any }>

const STAMP = () => String((BigInt(Date.now()) - 60_000n) * 1_000_000n)
// One fixed sender time per test, so "the same bytes" really are the same.
let fixedNs = STAMP()

const json: Sender = (rid, stamped, text, headers = {}) => lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`,
  { events: [{ message: text, severity: 'INFO', ...(stamped ? { timestamp: new Date(Number(BigInt(fixedNs) / 1_000_000n)).toISOString() } : {}) }] }, headers)

function otlpRecords(stamped: boolean, text: string): object {
  return {
    resourceLogs: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'cron' } }] },
      scopeLogs: [{ logRecords: [{ body: { stringValue: text }, severityNumber: 9, ...(stamped ? { timeUnixNano: fixedNs } : {}) }] }],
    }],
  }
}

const otlpJson: Sender = (rid, stamped, text, headers = {}) =>
  lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/otlp/v1/logs`, otlpRecords(stamped, text), headers)

const otlpProto: Sender = (rid, stamped, text, headers = {}) =>
  lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/otlp/v1/logs`,
    Request.encode(Request.fromObject(otlpRecords(stamped, text))).finish(), { 'content-type': 'application/x-protobuf', ...headers })

/** Waits for `n` rows, then for a later sentinel request: whatever the earlier requests stored is stored by then. */
async function settled(send: Sender, rid: string, n: number): Promise<Record<string, unknown>[]> {
  await lk.waitRows(rid, n, 30_000)
  t.equal((await send(rid, false, 'sentinel')).status, 200)
  const rows = await lk.waitRows(rid, n + 1, 30_000)
  return rows.filter((r) => r.message !== 'sentinel')
}

for (const [name, send] of [['JSON batch', json], ['OTLP JSON', otlpJson], ['OTLP protobuf', otlpProto]] as const) {
  t.test(name, async (t) => {
    t.beforeEach(() => {
      fixedNs = STAMP()
    })

    t.test('the same line without a time, sent three times, is three events', async (t) => {
      const rid = await lk.resource()
      for (let i = 0; i < 3; i++) t.equal((await send(rid, false, 'backup done')).status, 200, `send ${i + 1} accepted`)
      const rows = await settled(send, rid, 3)
      t.equal(rows.length, 3, 'three stored')
      t.equal(new Set(rows.map((r) => r.event_id)).size, 3, 'with three event ids')
      t.equal(new Set(rows.map((r) => r.batch_id)).size, 3, 'in three batches (message ids)')
    })

    t.test('the same stamped line sent twice is one event (a retry)', async (t) => {
      const rid = await lk.resource()
      t.equal((await send(rid, true, 'stamped once')).status, 200)
      t.equal((await send(rid, true, 'stamped once')).status, 200, 'the retry is acknowledged too')
      const rows = await settled(send, rid, 1)
      t.equal(rows.length, 1, 'stored once')
    })

    t.test('a different stamped line is another event', async (t) => {
      const rid = await lk.resource()
      t.equal((await send(rid, true, 'one')).status, 200)
      t.equal((await send(rid, true, 'two')).status, 200)
      t.equal((await settled(send, rid, 2)).length, 2)
    })

    t.test('the same Idempotency-Key and body twice is one request, even without times', async (t) => {
      const rid = await lk.resource()
      const key = randomUUID()
      const a = await send(rid, false, 'keyed', { 'idempotency-key': key })
      const b = await send(rid, false, 'keyed', { 'idempotency-key': key })
      t.equal(a.status, 200)
      t.equal(b.status, 200)
      t.same(b.body, a.body, 'the replay answers as the first')
      t.equal((await settled(send, rid, 1)).length, 1, 'stored once')
    })

    t.test('the same key with another body is 409, and nothing of it is stored', async (t) => {
      const rid = await lk.resource()
      const key = randomUUID()
      t.equal((await send(rid, false, 'first body', { 'idempotency-key': key })).status, 200)
      const other = await send(rid, false, 'second body', { 'idempotency-key': key })
      t.equal(other.status, 409)
      t.equal(other.body.detail[0].type, 'LOOKOUT_INGEST_KEY_CONFLICT', 'in the cloud error shape')
      const rows = await settled(send, rid, 1)
      t.same(rows.map((r) => r.message), ['first body'])
      // The key belongs to its resource: the same key elsewhere is free.
      t.equal((await send(await lk.resource(), false, 'second body', { 'idempotency-key': key })).status, 200)
    })
  })
}

t.test('an Idempotency-Key must be printable ASCII, 1 to 255 characters', async (t) => {
  const rid = await lk.resource()
  t.equal((await json(rid, false, 'edge', { 'idempotency-key': 'k'.repeat(255) })).status, 200, '255 characters')
  const long = await json(rid, false, 'edge', { 'idempotency-key': 'k'.repeat(256) })
  t.equal(long.status, 422, '256 characters')
  t.same(long.body.detail[0].loc, ['header', 'idempotency-key'])
  t.equal((await json(rid, false, 'edge', { 'idempotency-key': 'has space' })).status, 422, 'a space')
})

t.test('legacy desktop events keep their per-resource id deduplication', async (t) => {
  const rid = await lk.resource()
  // The legacy route needs an exact resource grant.
  const sender = await lk.token_(['logs:write'], [rid], { kind: 'sender' })
  const legacy = (b: unknown) => lk.req('POST', '/v1/logs', b, { authorization: `Bearer ${sender}` })
  const body = { resource_id: rid, events: [{ id: 'evt-1', timestamp: new Date().toISOString(), severity: 'info', message: 'legacy' }] }
  t.equal((await legacy(body)).status, 200)
  await lk.waitRows(rid, 1)
  // Another request (other bytes) carrying the same event id: still one event.
  const again = { ...body, events: [{ ...body.events[0], message: 'legacy', attributes: { retry: 'yes' } }] }
  t.equal((await legacy(again)).status, 200)
  t.equal((await legacy({ resource_id: rid, events: [{ id: 'evt-2', timestamp: new Date().toISOString(), severity: 'info', message: 'later' }] })).status, 200)
  const rows = await lk.waitRows(rid, 2, 30_000)
  t.same(rows.map((r) => r.event_id).sort(), ['evt-1', 'evt-2'])
})

t.test('one request mixing records with and without a sender time takes the receive time into its identity: sent twice, stored twice', async (t) => {
  const rid = await lk.resource()
  const stamp = new Date(Date.now() - 60_000).toISOString()
  const body = { events: [{ message: 'stamped', timestamp: stamp }, { message: 'unstamped' }] }
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  t.equal((await lk.req('POST', path, body)).status, 200)
  t.equal((await lk.req('POST', path, body)).status, 200)
  const rows = await settled(json, rid, 4)
  t.same(rows.map((r) => r.message).sort(), ['stamped', 'stamped', 'unstamped', 'unstamped'], 'two requests, four events')
})

t.test('OTLP observed_time_unix_nano alone is a sender time: the same bytes again are a retry', async (t) => {
  const rid = await lk.resource()
  const body = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'observed only' }, observedTimeUnixNano: STAMP() }] }] }] }
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/otlp/v1/logs`
  t.equal((await lk.req('POST', path, body)).status, 200)
  t.equal((await lk.req('POST', path, body)).status, 200)
  t.same((await settled(otlpJson, rid, 1)).map((r) => r.message), ['observed only'], 'stored once')
  // Control: without any time the same bytes are two events.
  const bare = { resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: 'no time' } }] }] }] }
  const rid2 = await lk.resource()
  const path2 = `/v1/workspaces/${lk.workspaceId}/resources/${rid2}/otlp/v1/logs`
  t.equal((await lk.req('POST', path2, bare)).status, 200)
  t.equal((await lk.req('POST', path2, bare)).status, 200)
  t.equal((await settled(otlpJson, rid2, 2)).length, 2, 'without a time: stored twice')
})

t.test('two concurrent requests with one key and different bodies: one 200, one 409, stored once', async (t) => {
  for (let round = 0; round < 5; round++) {
    const rid = await lk.resource()
    const key = randomUUID()
    const [a, b] = await Promise.all([json(rid, false, 'body A', { 'idempotency-key': key }), json(rid, false, 'body B', { 'idempotency-key': key })])
    t.same([a.status, b.status].sort(), [200, 409], `round ${round}: one accepted, one refused`)
    const winner = a.status === 200 ? 'body A' : 'body B'
    t.same((await settled(json, rid, 1)).map((r) => r.message), [winner], `round ${round}: only the accepted body is stored`)
  }
})
