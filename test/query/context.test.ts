// The lines around a hit (GET …/logs/{event_id}/context) through the real
// routes: neighbours in time order as the search orders them, the edges of the
// data (first and last line), paging outward, ties, the same service only,
// another resource's lines never mixed in, and the limits; then the statements
// (the hit's time from the caller or the id, else by the id over the retention;
// then an hour each side in one UNION ALL) against one ORDER BY, with lines on
// and around the hour's edges.
import t from 'tap'
import { SCOPES } from '../../workspace/index.ts'
import { LogSearch, logContext, parseShownEventId } from '../../query/internal.ts'
import { recordingStore } from '../helpers/recording-store.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
for (let i = 0; i < 50 && (await lk.req('GET', '/v1/health')).status !== 200; i++) await new Promise((r) => setTimeout(r, 200))

const ws = lk.workspaceId
const S = 1_000_000_000n
// Lines hours apart too: the forward windows must widen to reach them.
const baseNs = (BigInt(Date.now()) / 1000n - 3n * 86_400n) * S
const N = 60
const iso = (n: bigint) => new Date(Number(n / 1_000_000n)).toISOString().slice(0, 19) + '.' + (n % S).toString().padStart(9, '0') + 'Z'
/** Line i: every third one shares the previous one's time (ties); the gaps grow from a second to hours. */
const timeOf = (i: number) => baseNs + BigInt((Math.floor(i / 3) * 2 + (i % 3 === 2 ? 1 : i % 3)) * (1 + Math.floor(i / 20) * 600)) * S

const rid = await lk.resource('ctx')
const other = await lk.resource('ctx-other')
{
  const events = Array.from({ length: N }, (_, i) => ({
    message: `line ${i}`, severity: 'INFO', timestamp: iso(timeOf(i)), attributes: { n: String(i) },
  }))
  // Resource attributes by service: the JSON batch has none, so the OTLP route carries them.
  const body = {
    resourceLogs: ['api', 'worker'].map((svc, k) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: svc } }] },
      scopeLogs: [{ logRecords: events.filter((_, i) => i % 2 === k).map((e) => ({ timeUnixNano: String(timeOf(Number(e.attributes.n))), body: { stringValue: e.message }, severityNumber: 9, attributes: [{ key: 'n', value: { stringValue: e.attributes.n } }] })) }],
    })),
  }
  const r = await lk.req('POST', `/v1/workspaces/${ws}/resources/${rid}/otlp/v1/logs`, body)
  if (r.status !== 200) throw new Error(`not accepted: ${r.status}`)
  const o = await lk.req('POST', `/v1/workspaces/${ws}/resources/${other}/logs`, { events: events.map((e) => ({ ...e, message: `other ${e.message}` })) })
  if (o.status !== 200) throw new Error(`not accepted: ${o.status}`)
  await lk.waitRows(rid, N, 60_000)
  await lk.waitRows(other, N, 60_000)
}

// The truth: the search's order, reversed into time order.
const listed = await lk.req('GET', `/v1/workspaces/${ws}/resources/${rid}/logs?limit=200`)
const order: any[] = listed.body.events.slice().reverse()
const ids = order.map((e) => e.event_id)
const ctx = (eventId: string, query = '') => lk.req('GET', `/v1/workspaces/${ws}/resources/${rid}/logs/${eventId}/context${query}`)
const idsOf = (es: any[]) => es.map((e) => e.event_id)

t.test('neighbours in time order, in the middle', async (t) => {
  t.equal(order.length, N)
  for (const at of [10, 19, 20, 30, 41]) {
    const r = await ctx(ids[at], '?before=7&after=5')
    t.equal(r.status, 200)
    t.equal(r.body.event.event_id, ids[at])
    t.same(idsOf(r.body.before), ids.slice(at - 7, at), `7 before line ${at}`)
    t.same(idsOf(r.body.after), ids.slice(at + 1, at + 6), `5 after line ${at}`)
    t.equal(r.body.more_before, true)
    t.equal(r.body.more_after, true)
  }
})

t.test('the edges of the data: first and last line', async (t) => {
  const first = await ctx(ids[0], '?before=5&after=3')
  t.same(first.body.before, [], 'nothing before the first line')
  t.equal(first.body.more_before, false)
  t.same(idsOf(first.body.after), ids.slice(1, 4))
  const last = await ctx(ids[N - 1], '?before=3&after=5')
  t.same(last.body.after, [], 'nothing after the last line')
  t.equal(last.body.more_after, false)
  t.same(idsOf(last.body.before), ids.slice(N - 4, N - 1))
  const near = await ctx(ids[2], '?before=5&after=0')
  t.same(idsOf(near.body.before), ids.slice(0, 2), 'fewer than asked near the start')
  t.equal(near.body.more_before, false)
  t.same(near.body.after, [])
  t.equal(near.body.more_after, true, 'after=0 still says whether more exist')
  const zero = await ctx(ids[2], '?before=0&after=0')
  t.equal(zero.body.more_before, true, 'before=0 too')
  const exact = await ctx(ids[N - 6], '?after=5')
  t.same(idsOf(exact.body.after), ids.slice(N - 5))
  t.equal(exact.body.more_after, false, 'exactly the rest: no more')
})

t.test('paging outward walks the whole resource once', async (t) => {
  let at = ids[30]
  const older: string[] = []
  for (;;) {
    const r = await ctx(at, '?before=4&after=0')
    older.unshift(...idsOf(r.body.before))
    if (!r.body.more_before) break
    at = r.body.before[0].event_id
  }
  t.same(older, ids.slice(0, 30))
  at = ids[30]
  const newer: string[] = []
  for (;;) {
    const r = await ctx(at, '?before=0&after=9')
    newer.push(...idsOf(r.body.after))
    if (!r.body.more_after) break
    at = r.body.after[r.body.after.length - 1].event_id
  }
  t.same(newer, ids.slice(31))
})

t.test('the same service only', async (t) => {
  const at = 30
  const svc = order[at].resource_attributes['service.name']
  const r = await ctx(ids[at], '?before=4&after=4&same_service=true')
  const same = order.filter((e) => e.resource_attributes['service.name'] === svc).map((e) => e.event_id)
  const k = same.indexOf(ids[at])
  t.same(idsOf(r.body.before), same.slice(k - 4, k))
  t.same(idsOf(r.body.after), same.slice(k + 1, k + 5))
})

t.test('limits, unknown events, grants', async (t) => {
  t.equal((await ctx(ids[30], '?before=200&after=200')).status, 200, '200 both ways')
  const r = await ctx(ids[30], '?before=201')
  t.equal(r.status, 422)
  t.same(r.body.detail[0].loc, ['query', 'before'])
  t.equal((await ctx(ids[30], '?after=201')).status, 422)
  t.equal((await ctx(ids[30], '?before=-1')).status, 422)
  t.equal((await ctx('nope')).status, 404, 'an unknown event')
  const otherId = (await lk.req('GET', `/v1/workspaces/${ws}/resources/${other}/logs?limit=1`)).body.events[0].event_id
  t.equal((await ctx(otherId)).status, 404, 'another resource\'s event is not this one\'s')
  const big = await ctx(ids[30], '?before=200&after=200')
  t.ok([...big.body.before, ...big.body.after].every((e: any) => e.resource_id === rid), 'never another resource\'s line')
  const onlyOther = await lk.token_([SCOPES.logsRead], [other])
  t.equal((await lk.req('GET', `/v1/workspaces/${ws}/resources/${rid}/logs/${ids[3]}/context`, undefined, { authorization: `Bearer ${onlyOther}` })).status, 403)
})

t.test('both sides in one statement: lines on the hour\'s edges, against one ORDER BY', async (t) => {
  const store = lk.lookout.store
  const edges = await lk.resource('ctx-edges')
  const H = 3_600n * S
  const B = baseNs + 7n * S
  // On and around the first statement's edges (an hour each side, the newer one exclusive),
  // ties at the hit's instant, a dense minute, and lines far enough for the follow-ups.
  const times = [B, B, B, B - H, B - H - 1n, B - H + 1n, B + H, B + H - 1n, B + H + 1n, B - 5n * H, B + 30n * H, B - 40n * H]
  for (let i = 1n; i <= 6n; i++) times.push(B + i * S, B - i * S)
  await store.command(`INSERT INTO ${store.database}.logs (workspace_id, resource_id, timestamp, observed_timestamp, received_at, event_id, severity_number, severity_text, message)
    SELECT {ws:UUID}, {rid:UUID}, fromUnixTimestamp64Nano(toInt64(x.1)), fromUnixTimestamp64Nano(toInt64(x.1)), fromUnixTimestamp64Nano(toInt64(x.1)), lower(hex(MD5(concat('edge', toString(x.2))))), 9, '', 'edge line'
    FROM (SELECT arrayJoin(arrayZip({ts:Array(String)}, range(length({ts:Array(String)})))) AS x)`, { ws, rid: edges, ts: times.map(String) })
  const truthRows = (await store.query<{ event_id: string; ts: string }>(`SELECT event_id, toString(toUnixTimestamp64Nano(timestamp)) AS ts FROM ${store.database}.logs WHERE workspace_id = {ws:UUID} AND resource_id = {rid:UUID} ORDER BY timestamp, event_id`, { ws, rid: edges })).rows
  const truth = truthRows.map((x) => x.event_id)
  t.equal(truth.length, times.length)
  // Counts the statements of each call (the real store underneath); `one`: a store that runs one
  // statement at a time, where both sides are one UNION ALL (every fifth line, for its time).
  const { store: counting, sqls: statements, besides } = recordingStore(store)
  const { store: one } = recordingStore(store, { beside: false })
  const search = new LogSearch({ store: counting })
  for (let at = 0; at < truth.length; at++) {
    for (const [before, after] of [[0, 0], [1, 1], [3, 2], [40, 40]] as const) {
      // Without the event's time, and with it (the hit then comes with the newer side).
      for (const [atNs, s] of [[null, counting], [BigInt(truthRows[at]?.ts as string), counting], ...(at % 5 === 0 ? [[null, one] as const] : [])] as const) {
        const c = await logContext(s, search, { workspaceId: ws, resourceId: edges, eventId: truth[at] as string, before, after, sameService: false, atNs })
        const label = `line ${at}, ${before} before, ${after} after${atNs === null ? '' : ', at its time'}${s === one ? ', one statement at a time' : ''}`
        t.equal(c?.event.event_id, truth[at], label)
        t.same(c?.before.map((e) => e.event_id), truth.slice(Math.max(0, at - before), at), label)
        t.same(c?.after.map((e) => e.event_id), truth.slice(at + 1, at + 1 + after), label)
        t.equal(c?.more_before, at - before > 0, `${label}: more before`)
        t.equal(c?.more_after, at + 1 + after < truth.length, `${label}: more after`)
      }
    }
  }
  const mid = truth.indexOf((await store.query<{ event_id: string }>(`SELECT event_id FROM ${store.database}.logs WHERE resource_id = {rid:UUID} AND timestamp = fromUnixTimestamp64Nano({b:Int64}) ORDER BY event_id LIMIT 1 OFFSET 1`, { rid: edges, b: B.toString() })).rows[0]?.event_id as string)
  statements.length = 0
  besides.length = 0
  const dense = await logContext(counting, search, { workspaceId: ws, resourceId: edges, eventId: truth[mid] as string, before: 4, after: 4, sameService: false })
  t.equal(dense?.before.length, 4)
  t.equal(statements.length, 2, 'a sender\'s id (no time in it): the hit\'s time, then the older side, when the hour holds enough on each side')
  t.equal(besides.length, 1, 'and the newer side beside it')
  t.match(statements[0], /event_id = \{eid:String\}[\s\S]*SETTINGS [^\n]*use_skip_indexes_on_data_read = 0, use_top_k_dynamic_filtering = 0/, 'the hit\'s granules are chosen by the bloom filter up front, and read without the dynamic top-N filter')
  t.match(statements[0], /^SELECT toString\(toUnixTimestamp64Nano\(timestamp\)\) AS timestamp_ns FROM/, 'the lookup reads the time alone')
  t.match(statements[1], /event_id < \{a_eid:String\}/, 'the older side')
  t.match(besides[0]?.sql, /event_id >= \{a_eid:String\}/, 'the newer side brings the hit')
})

t.test('the event\'s time, when the caller gives it, narrows the lookup; a wrong one still finds it', async (t) => {
  const at = 30
  const plain = await ctx(ids[at], '?before=3&after=3')
  const hinted = await ctx(ids[at], `?before=3&after=3&at=${encodeURIComponent(order[at].timestamp)}`)
  t.equal(hinted.status, 200)
  t.same(hinted.body, plain.body, 'the same answer with the listed timestamp')
  const off = await ctx(ids[at], `?before=3&after=3&at=${encodeURIComponent(order[at + 5].timestamp)}`)
  t.same(off.body, plain.body, 'a time where the event is not: looked up over the retention')
  t.equal((await ctx('nope', `?at=${encodeURIComponent(order[at].timestamp)}`)).status, 404)
  const bad = await ctx(ids[at], '?at=yesterday')
  t.equal(bad.status, 422)
  t.same(bad.body.detail[0].loc, ['query', 'at'])
  // The statements: both sides with the hit as the newer side's first line, in one.
  const store = lk.lookout.store
  const { store: counting, sqls: statements, params: queryParams, besides } = recordingStore(store)
  const search = new LogSearch({ store: counting })
  const atNs = timeNs(order[at].timestamp)
  const c = await logContext(counting, search, { workspaceId: ws, resourceId: rid, eventId: ids[at], before: 3, after: 3, sameService: false, atNs })
  t.equal(c?.event.event_id, ids[at])
  t.same(idsOf(c?.after ?? []), ids.slice(at + 1, at + 4))
  t.equal(statements.length, 1, 'one statement\'s time: the older side, and the newer one beside it from the hit')
  t.match(besides[0]?.sql, /event_id >= \{a_eid:String\}/)
  const { store: one, sqls: oneAtATime } = recordingStore(store, { beside: false })
  t.same(await logContext(one, search, { workspaceId: ws, resourceId: rid, eventId: ids[at], before: 3, after: 3, sameService: false, atNs }), c, 'one statement at a time: the same answer')
  t.equal(oneAtATime.length, 1, 'from one statement')
  t.match(oneAtATime[0], /UNION ALL[\s\S]*event_id >= \{a_eid:String\}/, 'both sides in it, the newer from the hit')
  statements.length = 0
  queryParams.length = 0
  const wrong = await logContext(counting, search, { workspaceId: ws, resourceId: rid, eventId: ids[at], before: 3, after: 3, sameService: false, atNs: atNs + 1n })
  t.same(wrong, c, 'a wrong time given: the same answer')
  t.equal(statements.length, 2, 'a miss at the time given, then both sides at the time the id names')
  t.equal(queryParams[1]?.a_ts, atNs.toString())
  // The same service's lines need the hit's service first: the lookup at that instant (a primary-key point), then both sides.
  statements.length = 0
  const same = await logContext(counting, search, { workspaceId: ws, resourceId: rid, eventId: ids[at], before: 3, after: 3, sameService: true, atNs })
  t.same(same, await logContext(store, search, { workspaceId: ws, resourceId: rid, eventId: ids[at], before: 3, after: 3, sameService: true }), 'the same answer as without the time')
  t.equal(statements.length, 2, 'the lookup at the time given, then both sides')
  t.match(statements[0], /timestamp = fromUnixTimestamp64Nano\(\{at:Int64\}\)/)
  // Every id Lookout derives (these lines came through OTLP) names its line's time: no time
  // given, still one statement.
  t.equal(parseShownEventId(ids[at])?.atNs, atNs, 'the id names the line\'s time')
  statements.length = 0
  besides.length = 0
  const named = await logContext(counting, search, { workspaceId: ws, resourceId: rid, eventId: ids[at], before: 3, after: 3, sameService: false })
  t.same(named, c, 'the same answer from the id alone')
  t.same([statements.length, besides.length], [1, 1], 'the two sides from the id alone, side by side')
  t.match(besides[0]?.sql, /event_id >= \{a_eid:String\}/)
})

t.test('a sender\'s id of the shown derived form: still found, over the retention', async (t) => {
  const store = lk.lookout.store
  const mimic = await lk.resource('ctx-mimic')
  const B = baseNs + 13n * S
  // Three lines a second apart, the middle one under an id of the derived form naming a time an hour off.
  const fake = (B + 3_600n * S).toString(16).padStart(16, '0') + '0123456789abcdef0123456700000000'
  await store.command(`INSERT INTO ${store.database}.logs (workspace_id, resource_id, timestamp, observed_timestamp, received_at, event_id, severity_number, severity_text, message)
    SELECT {ws:UUID}, {rid:UUID}, fromUnixTimestamp64Nano(toInt64(x.1)), fromUnixTimestamp64Nano(toInt64(x.1)), fromUnixTimestamp64Nano(toInt64(x.1)), x.2, 9, '', x.2
    FROM (SELECT arrayJoin(arrayZip({ts:Array(String)}, {id:Array(String)})) AS x)`, { ws, rid: mimic, ts: [B - S, B, B + S].map(String), id: ['before', fake, 'after'] })
  const { store: counting, sqls: statements, params: queryParams, besides } = recordingStore(store)
  const c = await logContext(counting, new LogSearch({ store: counting }), { workspaceId: ws, resourceId: mimic, eventId: fake, before: 1, after: 1, sameService: false })
  t.equal(c?.event.event_id, fake)
  t.same([c?.before.map((e) => e.message), c?.after.map((e) => e.message)], [['before'], ['after']])
  t.match(statements[0], /event_id < \{a_eid:String\}/, 'first the sides at the time the id names: a miss')
  t.equal(besides[0]?.params?.a_ts, (B + 3_600n * S).toString(), 'the newer side at that time too')
  const lookups = statements.map((sql, i) => [sql, queryParams[i]] as const).filter(([sql]) => /^SELECT toString\(toUnixTimestamp64Nano\(timestamp\)\) AS timestamp_ns FROM[^]*event_id = \{eid:String\}/.test(sql))
  t.same(lookups.map(([, p]) => p?.eid), [fake.slice(16), fake], 'then over the retention: by the stored id the form names (none), then by the id as given')
  t.ok(lookups.every(([sql]) => !sql.includes('{at:Int64}')), 'over the retention')
})

t.test('an event stored twice at one time, its time given: the copy is not a line after it', async (t) => {
  const store = lk.lookout.store
  const twice = await lk.resource('ctx-twice')
  const B = baseNs + 11n * S
  // The hit twice (same id, same time), then three lines a second apart.
  const rows: [bigint, string][] = [[B, 'hit'], [B, 'hit'], [B + S, 'a1'], [B + 2n * S, 'a2'], [B + 3n * S, 'a3']]
  await store.command(`INSERT INTO ${store.database}.logs (workspace_id, resource_id, timestamp, observed_timestamp, received_at, event_id, severity_number, severity_text, message)
    SELECT {ws:UUID}, {rid:UUID}, fromUnixTimestamp64Nano(toInt64(x.1)), fromUnixTimestamp64Nano(toInt64(x.1)), fromUnixTimestamp64Nano(toInt64(x.1)), lower(hex(MD5(x.2))), 9, '', x.2
    FROM (SELECT arrayJoin(arrayZip({ts:Array(String)}, {m:Array(String)})) AS x)`, { ws, rid: twice, ts: rows.map((r) => r[0].toString()), m: rows.map((r) => r[1]) })
  const hitId = (await store.query<{ id: string }>('SELECT lower(hex(MD5(\'hit\'))) AS id')).rows[0]?.id as string
  const c = await logContext(store, new LogSearch({ store }), { workspaceId: ws, resourceId: twice, eventId: hitId, before: 1, after: 2, sameService: false, atNs: B })
  t.equal(c?.event.message, 'hit')
  t.same(c?.after.map((e) => e.message), ['a1', 'a2'])
  t.equal(c?.more_after, true)
})

/** An RFC 3339 time with nanoseconds, as the API lists it, in ns. */
function timeNs(text: string): bigint {
  const m = /^(.*T\d\d:\d\d:\d\d)(?:\.(\d{1,9}))?Z$/.exec(text)
  if (m === null) throw new Error(`not a listed time: ${text}`)
  return BigInt(Date.parse(`${m[1]}Z`)) * 1_000_000n + BigInt((m[2] ?? '').padEnd(9, '0'))
}
