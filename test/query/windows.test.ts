// The window strategy of the search (query/search.ts) against the plain answer:
// lines placed exactly on and around the windows' edges (the first window under
// a severity floor, the whole-range window of a trace id), paged with several
// limits, must come back as one ORDER BY over the whole table returns them.
import t from 'tap'
import { LogSearch, logContext, logFacets, parseTextQuery, type LogFilter, type Position } from '../../query/internal.ts'
import { startTestLookout } from '../helpers/lookout.ts'
import { recordingStore } from '../helpers/recording-store.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())

const store = lk.lookout.store
const ws = lk.workspaceId
const rid = await lk.resource('windows')
const S = 1_000_000_000n
const MIN = 60n * S
// A fixed clock, so that lines can sit exactly on a window's edge.
const now = (BigInt(Date.now()) / 1000n) * S
const FIRST = 15n * MIN
const T1 = 'cccccccccccccccccccccccccccccccc'

interface Line { ts: bigint; sev: number; msg: string; trace: string }
const lines: Line[] = []
const at = (ts: bigint, sev: number, msg = 'plain line', trace = '') => lines.push({ ts, sev, msg, trace })
// The first window without a floor is [now - 15 min, ...): one line on its lower edge, one just outside.
at(now - FIRST, 9)
at(now - FIRST - 1n, 9)
// Under ERROR it is 8x wider (2 h), under WARN 4x (1 h), under FATAL 32x (8 h): lines on and past each edge.
for (const [k, sev] of [[8n, 17], [4n, 13], [32n, 21]] as const) {
  at(now - k * FIRST, sev)
  at(now - k * FIRST - 1n, sev)
  at(now - k * FIRST + 1n, sev)
}
// Ties: three lines at one instant (event id then resource id break them).
for (let i = 0; i < 3; i++) at(now - 30n * MIN, 17, 'tie')
// A trace of 12 lines spread over three days, and a rare word on both sides of the first window.
for (let i = 0n; i < 12n; i++) at(now - i * 6n * 60n * MIN - 7n * S, i % 2n === 0n ? 17 : 9, `step ${i}`, T1)
at(now - 5n * MIN, 9, 'rare wombat near')
at(now - 3n * 24n * 60n * MIN, 9, 'rare wombat far')
// Filler: one line a minute over the newest two hours (the first windows' pages fill from it), then
// one every six minutes to a day back; every tenth minute an ERROR. A walk one line a page costs a
// query per line, so the older hours are sparser: denser, they only cost time.
for (let i = 0n; i < 1440n; i++) if (i < 120n || i % 6n === 0n) at(now - i * MIN - 13n * S, i % 10n === 0n ? 17 : 9)

await store.command(`INSERT INTO ${store.database}.logs (workspace_id, resource_id, timestamp, observed_timestamp, received_at, event_id, severity_number, severity_text, message, trace_id)
  SELECT {ws:UUID}, {rid:UUID}, fromUnixTimestamp64Nano(toInt64(t)), fromUnixTimestamp64Nano(toInt64(t)), fromUnixTimestamp64Nano(toInt64(t)), lower(hex(MD5(toString(n)))), s, '', m, tr
  FROM (SELECT arrayJoin(arrayZip({ts:Array(String)}, {sev:Array(UInt8)}, {msg:Array(String)}, {tr:Array(String)}, range(length({ts:Array(String)})))) AS x,
    x.1 AS t, x.2 AS s, x.3 AS m, x.4 AS tr, x.5 AS n)`,
{ ws, rid, ts: lines.map((l) => l.ts.toString()), sev: lines.map((l) => l.sev), msg: lines.map((l) => l.msg), tr: lines.map((l) => l.trace) })

const search = new LogSearch({ store, now: () => now })
const base: LogFilter = { workspaceId: ws, resourceIds: [rid], startNs: null, endNs: null, minSeverity: null, text: null, traceId: null }

/** Every matching line's position, in the order, straight from one SQL statement. */
async function truth(where: string, params: Record<string, unknown>): Promise<string[]> {
  const r = await store.query<{ ts: string; event_id: string }>(
    `SELECT toString(toUnixTimestamp64Nano(timestamp)) AS ts, event_id FROM ${store.database}.logs
     WHERE workspace_id = {ws:UUID} AND resource_id = {rid:UUID} AND ${where}
     ORDER BY timestamp DESC, event_id DESC, resource_id DESC`, { ws, rid, ...params })
  return r.rows.map((x) => `${x.ts}/${x.event_id}`)
}

/** Nanoseconds of an event's RFC 3339 time (nine fraction digits). */
const nsOf = (ts: string) => (BigInt(Date.parse(ts.slice(0, 19) + 'Z')) / 1000n * S + BigInt(ts.slice(20, 29))).toString()

/** Every page of a filter, as the routes walk them (position and hint from the previous page). */
async function walk(filter: LogFilter, limit: number): Promise<{ keys: string[]; queries: number[] }> {
  const keys: string[] = []
  const queries: number[] = []
  let next: { after: Position; hintNs: bigint } | null = null
  for (let p = 0; p < 10_000; p++) {
    const page = await search.page({ filter, limit, after: next?.after ?? null, hintNs: next?.hintNs ?? null })
    queries.push(page.stats.queries)
    for (const e of page.events) keys.push(`${nsOf(e.timestamp)}/${e.event_id}`)
    next = page.next
    if (next === null) break
  }
  return { keys, queries }
}

const cases: { name: string; filter: LogFilter; where: string; params?: Record<string, unknown> }[] = [
  { name: 'no filter', filter: base, where: '1' },
  { name: 'severity WARN', filter: { ...base, minSeverity: 13 }, where: 'severity_number >= 13' },
  { name: 'severity ERROR', filter: { ...base, minSeverity: 17 }, where: 'severity_number >= 17' },
  { name: 'severity FATAL', filter: { ...base, minSeverity: 21 }, where: 'severity_number >= 21' },
  { name: 'severity ERROR in a range', filter: { ...base, minSeverity: 17, startNs: now - 8n * FIRST, endNs: now - FIRST }, where: 'severity_number >= 17 AND timestamp >= fromUnixTimestamp64Nano({a:Int64}) AND timestamp < fromUnixTimestamp64Nano({b:Int64})', params: { a: (now - 8n * FIRST).toString(), b: (now - FIRST).toString() } },
  { name: 'trace id', filter: { ...base, traceId: T1 }, where: 'trace_id = {tr:String}', params: { tr: T1 } },
  { name: 'trace id and ERROR', filter: { ...base, traceId: T1, minSeverity: 17 }, where: 'trace_id = {tr:String} AND severity_number >= 17', params: { tr: T1 } },
  { name: 'rare word', filter: { ...base, text: parseTextQuery('wombat') }, where: "hasToken(lower(message), 'wombat')" },
]

for (const c of cases) {
  t.test(c.name, async (t) => {
    const expected = await truth(c.where, c.params ?? {})
    t.ok(expected.length > 0, `${expected.length} lines match`)
    for (const limit of [1, 2, 3, 7, 100]) {
      const got = await walk(c.filter, limit)
      t.same(got.keys, expected, `limit ${limit}: every line once, in order`)
    }
  })
}

t.test('a trace id is one window per page; a severity floor fills its first page in one window here', async (t) => {
  const trace = await walk({ ...base, traceId: T1 }, 5)
  t.same(trace.queries, [1, 1, 1], 'three pages of a 12-line trace over three days, one query each')
  const err = await search.page({ filter: { ...base, minSeverity: 17 }, limit: 10, after: null, hintNs: null })
  t.equal(err.events.length, 10)
  t.equal(err.stats.queries, 1, 'ten ERROR lines lie in the first 2 h')
  const newest = await search.page({ filter: base, limit: 10, after: null, hintNs: null })
  t.equal(newest.stats.queries, 1, 'no floor: the 15-minute window holds ten lines')
})

t.test('a trace page through the route: cursors continue it, nothing repeats', async (t) => {
  const seen: string[] = []
  let cursor: string | null = null
  for (let p = 0; p < 10; p++) {
    const r = await lk.req('GET', `/v1/workspaces/${ws}/resources/${rid}/logs?trace_id=${T1}&limit=5${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    t.equal(r.status, 200)
    t.equal(r.headers.get('x-lookout-queries'), '1')
    for (const e of r.body.events as { message: string }[]) seen.push(e.message)
    cursor = r.body.next_cursor
    if (cursor === null) break
  }
  t.same(seen, Array.from({ length: 12 }, (_, i) => `step ${i}`))
})

/**
 * A LogSearch whose statements are recorded, with each one's lower bound (its `lo` parameter);
 * `beside: false`: on a store that runs one statement at a time (no whole-range statement beside the first window).
 */
function recorded(jumpMaxRows?: number, beside = true): { search: LogSearch; sqls: string[]; los: () => (string | undefined)[]; besides: () => string[] } {
  const r = recordingStore(store, { beside })
  return {
    search: new LogSearch({ store: r.store, now: () => now, jumpMaxRows }),
    sqls: r.sqls,
    los: () => r.params.map((p) => p?.lo as string | undefined),
    besides: () => r.besides.map((b) => b.sql),
  }
}
const bounded = (sql: string) => /max_rows_to_read = (\d+), read_overflow_mode = 'throw'/.exec(sql)?.[1] ?? null

t.test('one statement at a time, an index-led attribute value the first window did not find: one bounded jump over the rest, granules chosen up front', async (t) => {
  const far = now - 3n * 24n * 60n * MIN - 11n * S
  await store.command(`INSERT INTO ${store.database}.logs (workspace_id, resource_id, timestamp, observed_timestamp, received_at, event_id, severity_number, severity_text, message, attributes)
    VALUES ({ws:UUID}, {rid:UUID}, fromUnixTimestamp64Nano({t:Int64}), fromUnixTimestamp64Nano({t:Int64}), fromUnixTimestamp64Nano({t:Int64}), 'ffffffffffffffffffffffffffffff01', 9, '', 'needle line', map('user.id', 'needle-42'))`,
  { ws, rid, t: far.toString() })
  const { search: needle, sqls, los } = recorded(undefined, false)
  const page = await needle.page({ filter: { ...base, attrs: [{ scope: 'attr', key: 'user.id', value: 'needle-42', negate: false }] }, limit: 10, after: null, hintNs: null })
  t.same(page.events.map((e) => e.message), ['needle line'], 'found three days back')
  t.same(sqls.map((s) => s.includes('use_skip_indexes_on_data_read = 0')), [false, true], 'the first window reads as usual, the jump chooses its granules first')
  t.same(sqls.map((s) => s.includes('use_top_k_dynamic_filtering = 0')), [false, true], 'and reads those granules without the dynamic top-N filter')
  t.same(los(), [String(now - FIRST), undefined], '15 minutes, then the whole range')
  t.same(sqls.map(bounded), [null, '32768'], 'the jump may read 16 granules')
})

// One line a minute from three hours back, every one with the value: nothing in the newest 15 minutes.
const idle = await lk.resource('idle')
await store.command(`INSERT INTO ${store.database}.logs (workspace_id, resource_id, timestamp, observed_timestamp, received_at, event_id, severity_number, severity_text, message, attributes)
  SELECT {ws:UUID}, {rid:UUID}, fromUnixTimestamp64Nano(toInt64(t)), fromUnixTimestamp64Nano(toInt64(t)), fromUnixTimestamp64Nano(toInt64(t)), lower(hex(MD5(t))), 9, '', 'status line', map('http.status', '500')
  FROM (SELECT arrayJoin({ts:Array(String)}) AS t)`, { ws, rid: idle, ts: Array.from({ length: 120 }, (_, i) => (now - 3n * 60n * MIN - BigInt(i) * MIN).toString()) })
const status500 = { ...base, resourceIds: [idle], attrs: [{ scope: 'attr' as const, key: 'http.status', value: '500', negate: false }] }
const newestStatus = new Date(Number((now - 3n * 60n * MIN) / 1_000_000n)).toISOString().slice(0, 19)

t.test('one statement at a time, a common attribute value on a resource quiet for 15 minutes, under the jump\'s bound: the jump fills the page', async (t) => {
  const { search: common, los } = recorded(undefined, false)
  const page = await common.page({ filter: status500, limit: 10, after: null, hintNs: null })
  t.equal(page.events.length, 10)
  t.equal(page.events[0]?.timestamp.slice(0, 19), newestStatus, 'the newest first')
  t.same(los(), [String(now - FIRST), undefined], 'the whole range after the empty first window')
})

t.test('one statement at a time, a common attribute value past the jump\'s bound: the jump stops, and windows widen from the first one', async (t) => {
  // 120 lines of the value in one part: reading them passes a bound of 60 rows.
  const { search: common, sqls, los } = recorded(60, false)
  const page = await common.page({ filter: status500, limit: 10, after: null, hintNs: null })
  t.same(page.events.map((e) => e.timestamp), (await search.page({ filter: status500, limit: 10, after: null, hintNs: null })).events.map((e) => e.timestamp), 'the same lines as an unbounded search')
  t.equal(page.events[0]?.timestamp.slice(0, 19), newestStatus, 'the newest first')
  t.same(los(), [String(now - FIRST), undefined, String(now - 64n * FIRST)], '15 minutes, the jump (stopped), then 16 hours')
  t.same(sqls.map(bounded), [null, '60', null], 'only the jump is bounded')
  t.equal(page.stats.queries, 3)
})

const needle = { ...base, attrs: [{ scope: 'attr' as const, key: 'user.id', value: 'needle-42', negate: false }] }

t.test('the whole range beside the first window: a rare attribute value\'s page is its rows, nothing after the first window', async (t) => {
  const { search: s, los, besides } = recorded()
  const page = await s.page({ filter: needle, limit: 10, after: null, hintNs: null })
  t.same(page.events.map((e) => e.message), ['needle line'], 'found three days back')
  t.equal(page.stats.beside, 'answered')
  t.same(los(), [String(now - FIRST)], 'the first window alone: no jump after it')
  t.equal(besides().length, 1)
  t.equal(bounded(besides()[0] ?? ''), '32768', 'bounded like the jump')
  t.match(besides()[0], /optimize_read_in_order = 0/, 'and refused before reading past the bound')
  t.match(besides()[0], /use_skip_indexes_on_data_read = 0/, 'its granules chosen up front')
  t.notMatch(besides()[0], /\{lo:Int64\}/, 'over the whole range')
  t.equal(page.stats.queries, 2)
})

t.test('the whole range beside the first window: a rare word three days back is that one statement\'s answer; one in the first window is not waited for', async (t) => {
  const { search: s, sqls, besides } = recorded()
  const far = await s.page({ filter: { ...base, text: parseTextQuery('far') }, limit: 10, after: null, hintNs: null })
  t.same(far.events.map((e) => e.message), ['rare wombat far'])
  t.equal(far.stats.beside, 'answered')
  t.same([sqls.length, besides().length], [1, 1], 'the first window, and the whole range beside it')
  const both = await s.page({ filter: { ...base, text: parseTextQuery('wombat') }, limit: 10, after: null, hintNs: null })
  t.same(both.events.map((e) => e.message), ['rare wombat near', 'rare wombat far'])
  t.equal(both.stats.beside, 'unused', 'a line in the first window: the windows go on')
  t.ok(sqls.length > 2, 'through more windows')
})

t.test('the whole range beside the first window, past its bound: refused, and the windows go on as without it', async (t) => {
  const { search: s, sqls, los, besides } = recorded(60)
  const page = await s.page({ filter: status500, limit: 10, after: null, hintNs: null })
  t.equal(page.stats.beside, 'refused')
  t.same(page.events.map((e) => e.timestamp), (await search.page({ filter: status500, limit: 10, after: null, hintNs: null })).events.map((e) => e.timestamp), 'the same lines as an unbounded search')
  t.same(los(), [String(now - FIRST), undefined, String(now - 64n * FIRST)], '15 minutes, the jump (stopped), then 16 hours')
  t.same([sqls.map(bounded), besides().map(bounded)], [[null, '60', null], ['60']])
  t.equal(page.stats.queries, 4)
})

t.test('the whole range beside the first window: unneeded when the first window fills the page; none on a later page or a range the first window covers', async (t) => {
  const { search: s, besides, los } = recorded()
  const page = await s.page({ filter: { ...base, text: parseTextQuery('plain') }, limit: 5, after: null, hintNs: null })
  t.equal(page.events.length, 5)
  t.same(los(), [String(now - 2n * FIRST)], 'a term\'s first window within one resource is twice as wide')
  t.equal(page.stats.beside, 'unused', 'started, not waited for')
  t.equal(page.stats.queries, 2)
  t.equal(besides().length, 1)
  const next = page.next
  if (next === null) throw new Error('a next page')
  const second = await s.page({ filter: { ...base, text: parseTextQuery('plain') }, limit: 5, after: next.after, hintNs: next.hintNs })
  t.equal(second.stats.beside, undefined, 'a cursor\'s page continues the windows alone')
  const near = await s.page({ filter: { ...base, text: parseTextQuery('wombat'), startNs: now - 10n * MIN }, limit: 5, after: null, hintNs: null })
  t.same(near.events.map((e) => e.message), ['rare wombat near'])
  t.equal(near.stats.beside, undefined, 'a range within the first window is that window alone')
  t.equal(besides().length, 1)
})

t.test('the jump\'s bound is validated once, naming the option', async (t) => {
  for (const bad of [0, -1, 1.5, Number.NaN]) t.throws(() => new LogSearch({ store, jumpMaxRows: bad }), /jumpMaxRows/)
})

t.test('a search page, context and facets read again what they read before from the engine\'s block cache', async (t) => {
  const hits = async () => Number((await store.query<{ n: string }>("SELECT sum(value) AS n FROM system.events WHERE event = 'UncompressedCacheHits'")).rows[0]?.n ?? 0)
  const eventId = (await search.page({ filter: base, limit: 1, after: null, hintNs: null })).events[0]?.event_id as string
  const reads: [string, () => Promise<unknown>][] = [
    ['search page', () => search.page({ filter: base, limit: 50, after: null, hintNs: null })],
    ['context', () => logContext(store, search, { workspaceId: ws, resourceId: rid, eventId, before: 5, after: 5, sameService: false })],
    ['facets', () => logFacets(store, { ...base, startNs: now - 60n * MIN, endNs: now }, 'severity', 10)],
  ]
  for (const [name, read] of reads) {
    await read()
    const before = await hits()
    await read()
    t.ok(await hits() > before, `${name}: the second read hit the cache`)
  }
})
