import t from 'tap'
import { gunzipSync } from 'node:zlib'
import { makeTemplate, NONCE_PLACEHOLDER, nonceHex, renderBody } from '../../bench/lib/payload.ts'
import { DEFAULT_SHAPE, encodeJson, encodeJsonBatch, encodeLegacy, encodeProtobuf, makeRecords, pickKind, MIXES } from '../../bench/lib/traffic.ts'
import { encodeTemplate, TrafficSource, type TrafficPlan } from '../../bench/ingest/traffic-source.ts'
import { SCENARIOS, type ScenarioName } from '../../bench/ingest/options.ts'

const RID = '11111111-2222-4333-8444-555555555555'
const WS = '99999999-2222-4333-8444-555555555555'

t.test('a template renders unique bodies, plain and gzip', async (t) => {
  const plain = Buffer.from(`{"a":"${'x'.repeat(5000)}","n":"${NONCE_PLACEHOLDER}","m":"${NONCE_PLACEHOLDER}-1"}`)
  const p = makeTemplate(plain, 1, false)
  t.same(p.offsets, [5013, 5036])
  const a = renderBody(p, nonceHex(1))
  const b = renderBody(p, nonceHex(2))
  t.equal(a.length, plain.length)
  t.not(a.equals(b), true, 'different nonces, different bytes')
  t.same(JSON.parse(a.toString()), { a: 'x'.repeat(5000), n: '0000000000000001', m: '0000000000000001-1' })
  t.ok(p.plain.equals(plain), 'the template itself is untouched')
  const g = makeTemplate(plain, 1, true)
  const gz = renderBody(g, nonceHex(0xabcdef))
  t.ok(gz.length < 400, `compressed (${gz.length} bytes)`)
  const back = gunzipSync(gz)
  t.same(JSON.parse(back.toString()).m, '0000000000abcdef-1', 'gzip stitched from a compressed prefix and a per-send tail')
  t.equal(back.length, plain.length)
  t.throws(() => renderBody(p, 'short'))
  t.throws(() => makeTemplate(Buffer.from('no placeholder'), 1, false))
})

t.test('message kinds and mixes', async (t) => {
  t.equal(pickKind({ access: 1 }, 0.99), 'access')
  t.equal(pickKind(MIXES.mixed, 0.1), 'access')
  t.equal(pickKind(MIXES.mixed, 0.8), 'app')
  t.equal(pickKind(MIXES.mixed, 0.97), 'stack')
  t.equal(pickKind({}, 0.5), 'app', 'no weights: app lines')
  const access = makeRecords(1, { records: 200, messageLength: 300, attributes: 8, mix: { access: 1 } })
  const stack = makeRecords(1, { records: 20, messageLength: 300, attributes: 8, mix: { stack: 1 } })
  const len = (r: typeof access) => r.reduce((s, x) => s + String(x.body).length, 0) / r.length
  t.ok(len(access) > 100 && len(access) < 260, `access lines are short (${len(access).toFixed(0)})`)
  t.ok(len(stack) > 2000 && len(stack) < 8000, `stack traces are long (${len(stack).toFixed(0)})`)
  t.ok(stack.every((r) => r.severityText === 'ERROR'))
  const mixed = makeRecords(3, { records: 2000, messageLength: 300, attributes: 8, mix: MIXES.mixed })
  const stacks = mixed.filter((r) => String(r.body).startsWith('Error:')).length
  t.ok(stacks > 40 && stacks < 200, `about 5% stack traces (${stacks} of 2000)`)
})

t.test('shape: attribute counts, resources, reproducibility', async (t) => {
  const few = makeRecords(5, { records: 3, messageLength: 50, attributes: 3 })
  t.equal(Object.keys(few[0]?.attributes ?? {}).length, 3)
  const many = makeRecords(5, { records: 3, messageLength: 50, attributes: 20 })
  t.equal(Object.keys(many[0]?.attributes ?? {}).length, 20)
  const res = makeRecords(5, { records: 12, messageLength: 50, attributes: 8, resources: 4 })
  const json = JSON.parse(Buffer.from(encodeJson(res)).toString()) as { resourceLogs: unknown[] }
  t.equal(json.resourceLogs.length, 4, 'four OTel resources in the request')
  t.same(makeRecords(9, DEFAULT_SHAPE, 0).map((r) => r.body), makeRecords(9, DEFAULT_SHAPE, 0).map((r) => r.body), 'same seed, same records')
  t.ok(encodeProtobuf(few).byteLength > 0)
  const batch = JSON.parse(Buffer.from(encodeJsonBatch(few)).toString()) as { events: Record<string, unknown>[] }
  t.same(Object.keys(batch.events[0] ?? {}).sort(), ['attributes', 'message', 'severity', 'source', 'span_id', 'timestamp', 'trace_id'])
  t.match(String(batch.events[0]?.timestamp), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/)
  const legacy = JSON.parse(Buffer.from(encodeLegacy(few, RID, 'p')).toString()) as { resource_id: string; events: { id: string; severity: string }[] }
  t.equal(legacy.resource_id, RID)
  t.same(legacy.events.map((e) => e.id), ['p-0', 'p-1', 'p-2'])
  for (const e of legacy.events) t.ok(['debug', 'info', 'warning', 'error', 'critical'].includes(e.severity))
})

t.test('every scenario: the nonce sits in the last message, each send differs', async (t) => {
  for (const name of Object.keys(SCENARIOS) as ScenarioName[]) {
    const scenario = SCENARIOS[name]
    const plan: TrafficPlan = {
      scenario, shape: { records: scenario.route === 'legacy' ? 50 : 200, messageLength: 200, attributes: 8, mix: MIXES.mixed },
      workspaceId: WS, resources: [RID], token: 'tok', legacyToken: 'legacy-tok',
    }
    const src = new TrafficSource(plan, [encodeTemplate(plan, 0, Date.now()), encodeTemplate(plan, 1, Date.now())])
    const a = src.request(0)
    const b = src.request(2)
    t.equal(a.events, plan.shape.records, `${name}: events per request`)
    t.not(a.nonce, b.nonce, `${name}: unique nonces`)
    const plainA = scenario.gzip ? gunzipSync(a.body) : a.body
    const plainB = scenario.gzip ? gunzipSync(b.body) : b.body
    t.not(plainA.equals(plainB), true, `${name}: same template, different bytes`)
    t.ok(plainA.includes(`nonce=${a.nonce}`), `${name}: marker in the body`)
    t.notOk(plainA.includes(NONCE_PLACEHOLDER), `${name}: no placeholder left`)
    t.equal(a.headers['content-encoding'], scenario.gzip ? 'gzip' : undefined)
    if (scenario.route === 'legacy') {
      t.equal(a.path, '/v1/logs')
      t.equal(a.headers.authorization, 'Bearer legacy-tok')
      const ids = (JSON.parse(plainA.toString()) as { events: { id: string }[] }).events.map((e) => e.id)
      t.equal(new Set(ids).size, ids.length, `${name}: event ids unique`)
      t.ok(ids.every((id) => id.startsWith(a.nonce)), `${name}: event ids carry the nonce`)
    } else {
      t.equal(a.path, `/v1/workspaces/${WS}/resources/${RID}/${scenario.route === 'otlp' ? 'otlp/v1/logs' : 'logs'}`)
      t.equal(a.headers['content-type'], scenario.format === 'protobuf' ? 'application/x-protobuf' : 'application/json')
    }
    if (scenario.format === 'json') t.doesNotThrow(() => JSON.parse(plainA.toString()), `${name}: valid JSON`)
    // The marker record carries the send time, so a search for it can be confined to the last moments.
    const ns = BigInt(a.timeMs) * 1_000_000n
    t.notOk(plainA.includes('2100-01-01') || plainA.includes('4102444800123456789'), `${name}: no sentinel time left`)
    if (scenario.route === 'otlp' && scenario.format === 'protobuf') {
      const le = Buffer.alloc(8)
      le.writeBigUInt64LE(ns)
      t.ok(plainA.includes(le), `${name}: fixed64 time written`)
    } else if (scenario.route === 'otlp') {
      const recs = (JSON.parse(plainA.toString()) as { resourceLogs: { scopeLogs: { logRecords: { timeUnixNano: string; observedTimeUnixNano: string }[] }[] }[] })
        .resourceLogs.flatMap((r) => r.scopeLogs.flatMap((x) => x.logRecords))
      t.equal(recs[recs.length - 1]?.timeUnixNano, String(ns), `${name}: decimal time written`)
      t.equal(recs[recs.length - 1]?.observedTimeUnixNano, String(ns + 1n))
    } else {
      const events = (JSON.parse(plainA.toString()) as { events: { timestamp: string }[] }).events
      t.equal(events[events.length - 1]?.timestamp, new Date(a.timeMs).toISOString().replace('Z', '000000Z'), `${name}: RFC 3339 time written`)
    }
  }
})

t.test('resources rotate over requests', async (t) => {
  const rids = [RID, '22222222-2222-4333-8444-555555555555', '33333333-2222-4333-8444-555555555555']
  const plan: TrafficPlan = { scenario: SCENARIOS['otlp-proto'], shape: { records: 5, messageLength: 50, attributes: 2 }, workspaceId: WS, resources: rids, token: 't', legacyToken: 't' }
  const src = new TrafficSource(plan, [encodeTemplate(plan, 0, Date.now())])
  t.same([0, 1, 2, 3].map((i) => src.request(i).resourceId), [rids[0], rids[1], rids[2], rids[0]])
})
