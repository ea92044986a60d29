// Log search at scale: 20 million generated lines over 50 resources and 7 days
// in the embedded engine, the query shapes through the HTTP routes, each
// against the same SQL straight through the store in the same run; then the
// newest page on a merged day and the message index choice (text vs tokenbf vs
// none) by load cost and rare-term speed. See README.md.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { loadConfig, startLookout } from '../../deploy/index.ts'
import { ALL_SCOPES, createToken, createWorkspace, registerResource } from '../../workspace/index.ts'
import { shownEventId } from '../../query/internal.ts'
import { formatNs } from '../../core/index.ts'
import { percentile, summarize } from '../lib/stats.ts'
import { insertSelect, rareLine, senderIdResources, traceOf, RARE_EVERY, type Shape } from './generate.ts'
import { withoutCache } from './baseline.ts'
import { indexChoice } from './index-choice.ts'
import { mergedDay } from './merged-day.ts'
import { StatementRecorder, type Recorded } from './recorder.ts'

const ROWS = Number(process.env.BENCH_ROWS ?? 20_000_000)
const RESOURCES = Number(process.env.BENCH_RESOURCES ?? 50)
const DAYS = Number(process.env.BENCH_DAYS ?? 7)
const RUNS = Number(process.env.BENCH_RUNS ?? 50)
const PAGES = Number(process.env.BENCH_PAGES ?? 20)
// Paging walks (each PAGES deep); default RUNS.
const WALKS = Number(process.env.BENCH_WALKS ?? RUNS)
const COMPARE = (process.env.BENCH_COMPARE ?? '1') !== '0'
const CHUNK = 2_000_000
// BENCH_SHAPES: run only the shapes whose name contains one of these (comma-separated; "paging" and "tail" name those parts).
const ONLY = process.env.BENCH_SHAPES?.split(',').map((x) => x.trim()).filter((x) => x !== '') ?? null
const wanted = (name: string) => ONLY === null || ONLY.some((x) => name.includes(x))

const out = (s: string) => process.stdout.write(s + '\n')
const ms = (v: number) => v.toFixed(1).padStart(7)
const load1 = () => loadavg().map((x) => x.toFixed(2)).join(' ')

// BENCH_DATA_DIR: keep the data directory (generating 20M lines takes minutes) and
// reuse it on the next run with the same ROWS/RESOURCES/DAYS (bench.json records the set).
const keptDir = process.env.BENCH_DATA_DIR
const dataDir = keptDir ?? mkdtempSync(join(tmpdir(), 'lookout-search-bench-'))
if (keptDir !== undefined) mkdirSync(keptDir, { recursive: true })
// ids 'derived': the set's lines have derived event ids (generate.ts) but on the last resources; a set from before has none.
interface Kept { rows: number; resources: number; days: number; endNs: string; ws: string; token: string; rids: string[]; ids?: 'derived' }
const metaPath = join(dataDir, 'bench.json')
const kept = existsSync(metaPath) ? JSON.parse(readFileSync(metaPath, 'utf8')) as Kept : null
const reuse = kept !== null && kept.rows === ROWS && kept.resources === RESOURCES && kept.days === DAYS
if (kept !== null && !reuse) throw new Error(`${dataDir} holds another set (${kept.rows} rows, ${kept.resources} resources, ${kept.days} days): use another BENCH_DATA_DIR`)
if (reuse && kept.ids !== 'derived') throw new Error(`${dataDir} holds a set from before its lines had derived event ids: use another BENCH_DATA_DIR`)
// BENCH_CLOCK=set on a kept set: this process's clock (Date.now, which the search's windows
// read) runs as if the set's newest line were a minute old, as on a fresh set, so the
// newest-lines shapes start with a full first window instead of an empty one.
if (reuse && process.env.BENCH_CLOCK === 'set') {
  const shift = Date.now() - (Number(BigInt(kept.endNs) / 1_000_000n) + 60_000)
  const realNow = Date.now.bind(Date)
  Date.now = () => realNow() - shift
}
const config = loadConfig({ ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_RETENTION_DAYS: String(DAYS) })
const lookout = await startLookout(config, { logger: false, roles: ['api'] })
const store = lookout.store
const db = store.database
let ws: string
let token: string
const rids: string[] = []
let shape: Shape
if (reuse) {
  ws = kept.ws
  token = kept.token
  rids.push(...kept.rids)
  shape = { rows: ROWS, resources: RESOURCES, days: DAYS, endNs: BigInt(kept.endNs) }
} else {
  ws = (await createWorkspace(lookout.db, 'bench')).id
  token = (await createToken(lookout.db, { workspaceId: ws, scopes: ALL_SCOPES, resources: 'all' })).token
  for (let i = 0; i < RESOURCES; i++) rids.push((await registerResource(lookout.db, ws, { external_id: `svc-${i}`, name: `svc-${i}` })).resource.id)
  shape = { rows: ROWS, resources: RESOURCES, days: DAYS, endNs: BigInt(Date.now() - 60_000) * 1_000_000n }
}

/**
 * Loads the whole set into a table. Wall seconds, and CPU seconds of this
 * process (the engine runs in it): the CPU figure holds up when other work
 * shares the machine, the wall figure does not.
 */
async function load(table: string): Promise<{ wall: number; cpu: number }> {
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  for (let off = 0; off < ROWS; off += CHUNK) {
    const q = insertSelect(table, shape, off, Math.min(CHUNK, ROWS - off), ws, rids)
    await store.command(q.sql, q.params)
  }
  const c = process.cpuUsage(c0)
  return { wall: (performance.now() - t0) / 1000, cpu: (c.user + c.system) / 1e6 }
}

async function tableFacts(table: string): Promise<string> {
  const r = await store.query<{ parts: string; bytes: string; idx: string }>(
    `SELECT (SELECT count() FROM system.parts WHERE database = {d:String} AND table = {t:String} AND active) AS parts,
       (SELECT formatReadableSize(sum(bytes_on_disk)) FROM system.parts WHERE database = {d:String} AND table = {t:String} AND active) AS bytes,
       (SELECT formatReadableSize(sum(data_compressed_bytes)) FROM system.data_skipping_indices
         WHERE database = {d:String} AND table = {t:String} AND name IN ('idx_message', 'idx_attr_values')) AS idx`, { d: db, t: table })
  const f = r.rows[0]
  return `${f?.parts} parts, ${f?.bytes} on disk, search indexes ${f?.idx}`
}

/** Nearest-rank 95th percentile. */
const p95 = (values: readonly number[]) => percentile(values, 95)

out(`machine: load average ${load1()} at start (the figures below are only as quiet as the machine)`)
let loaded: { wall: number; cpu: number }
if (reuse) {
  // The set does not move with the clock: its newest line ages, so the newest-lines
  // shapes find their rows a window or two further back than on a fresh set.
  loaded = { wall: Number.NaN, cpu: Number.NaN }
  const ageMin = Number(BigInt(Date.now()) * 1_000_000n - shape.endNs) / 6e10
  out(`  reusing the set in ${dataDir} (newest line ${ageMin.toFixed(0)} min old); ${await tableFacts('logs')}`)
  if (process.env.BENCH_CLOCK === 'set') out('  BENCH_CLOCK=set: the clock of this process runs as if the newest line were 1 min old')
  else if (ageMin > 10) out('  note: past 10 minutes the newest-lines and paging shapes start with an empty 15-minute window: compare them only with a fresh set')
} else {
  out(`generating ${ROWS.toLocaleString('en')} lines over ${RESOURCES} resources and ${DAYS} days into ${db}.logs (text index on lower(message) and on attribute values)...`)
  loaded = await load(`${db}.logs`)
  if (keptDir !== undefined) writeFileSync(metaPath, JSON.stringify({ rows: ROWS, resources: RESOURCES, days: DAYS, endNs: shape.endNs.toString(), ws, token, rids, ids: 'derived' } satisfies Kept))
  out(`  loaded in ${loaded.wall.toFixed(1)} s, ${loaded.cpu.toFixed(1)} CPU s (${Math.round(ROWS / loaded.wall).toLocaleString('en')} rows/s); ${await tableFacts('logs')}`)
}

// BENCH_BESIDE=0: a store without queryBeside, so searches run one statement after the other (the A/B).
const recorder = new StatementRecorder(store, process.env.BENCH_BESIDE !== '0')
const storeQuery = recorder.query

const pool = new Pool(lookout.url, { connections: 1, pipelining: 1 })
const auth = { authorization: `Bearer ${token}` }
interface Hit { ms: number; rowsRead: number; events: number; next: string | null; statements: Recorded[] }
async function http(path: string): Promise<Hit> {
  recorder.start()
  const t0 = performance.now()
  const res = await pool.request({ method: 'GET', path, headers: auth })
  const body = (await res.body.json()) as { events?: unknown[]; next_cursor?: string | null; values?: unknown[]; before?: unknown[]; after?: unknown[] }
  const took = performance.now() - t0
  const statements = recorder.stop()
  if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${JSON.stringify(body)}`)
  // Searches name their rows read; context and facets do not (their statements are replayed all the same).
  const events = body.events?.length ?? body.values?.length ?? (body.before?.length ?? 0) + (body.after?.length ?? 0)
  return { ms: took, rowsRead: Number(res.headers['x-lookout-rows-read'] ?? Number.NaN), events, next: body.next_cursor ?? null, statements }
}
const raw = (statements: Hit['statements'], took?: number) => recorder.replay(statements, took)

const cloud = (i: number) => `/v1/workspaces/${ws}/resources/${rids[i % RESOURCES]}/logs`
const enc = encodeURIComponent
const isoOf = (ns: bigint) => new Date(Number(ns / 1_000_000n)).toISOString()
const dayAgo = shape.endNs - 86_400n * 1_000_000_000n
const rareCount = Math.floor(ROWS / RARE_EVERY)
// Issue 34's shapes need real attribute values and event ids: a spread sample of the set.
// Derived ids (the resources before the last few), as the routes show them.
const sample = (await store.query<{ rid: string; eid: string; batch: string; user: string; ts: string }>(
  // The key as a parameter, as the routes pass it: a literal key fails on a kept set whose TTL drop left an empty wide part (README, 2026-11-27 22:00).
  `SELECT toString(resource_id) AS rid, event_id AS eid, batch_id AS batch, attributes[{k:String}] AS user, toString(toUnixTimestamp64Nano(timestamp)) AS ts FROM ${db}.logs
   WHERE workspace_id = {ws:UUID} AND cityHash64(event_id) % {m:UInt64} = 7 AND resource_id NOT IN {senders:Array(UUID)} LIMIT {n:UInt32}`,
  { ws, k: 'user.id', m: Math.max(1, Math.floor(ROWS / (RUNS * 4))), n: RUNS * 2, senders: rids.slice(RESOURCES - senderIdResources(shape)) })).rows
  .map((x) => ({ ...x, eid: shownEventId(x.eid, x.batch, BigInt(x.ts)) }))
if (sample.length === 0) throw new Error('no sample rows for the attribute and context shapes')
if (!sample.every((x) => x.eid.length === 48)) throw new Error('the set\'s derived ids are not recognised as such (generate.ts)')
const pick = (i: number) => sample[i % sample.length] as (typeof sample)[number]
// Lines of the resources whose ids are a sender's own (generate.ts), for context by such an id.
const senderSample = (await store.query<{ rid: string; eid: string }>(
  `SELECT toString(resource_id) AS rid, event_id AS eid FROM ${db}.logs
   WHERE workspace_id = {ws:UUID} AND resource_id IN {rids:Array(UUID)} AND cityHash64(event_id) % {m:UInt64} = 7 LIMIT {n:UInt32}`,
  { ws, rids: rids.slice(RESOURCES - senderIdResources(shape)), m: Math.max(1, Math.floor(ROWS / (RUNS * 40))), n: RUNS })).rows
const pickSender = (i: number) => senderSample[i % senderSample.length] as (typeof senderSample)[number]
// The context shape with the event's time takes the other half of the sample, so neither warms the other's blocks.
const pickOther = (i: number) => pick(i + RUNS)
const wide = `/v1/workspaces/${ws}/logs`
const hourAgo = shape.endNs - 3_600n * 1_000_000_000n
const range = (from: bigint) => `start=${enc(isoOf(from))}&end=${enc(isoOf(shape.endNs + 1_000_000_000n))}`
// Each shape prints two rows: `(raw: before)` replays its statements without the block
// cache (baseline.ts), as they ran before it, so its ratio is the gain; `(raw: now)` the
// route's own statements. BENCH_BEFORE=0: one row, the route's own statements.
const BEFORE = (process.env.BENCH_BEFORE ?? '1') !== '0'
const COMMON_WORDS = ['refused', 'payment', 'retrying', 'failed'] as const
const scenarios: { name: string; path: (i: number) => string; scope: number }[] = [
  { name: 'newest 100 lines of one resource', path: (i) => `${cloud(i)}?limit=100`, scope: ROWS / RESOURCES },
  { name: 'severity>=ERROR over one day', path: (i) => `${cloud(i)}?severity=ERROR&start=${enc(isoOf(dayAgo))}&end=${enc(isoOf(shape.endNs + 1n))}`, scope: ROWS / RESOURCES / DAYS },
  {
    name: 'rare-term q, 7 days, one resource',
    path: (i) => {
      const r = rareLine(i % rareCount, shape)
      return `${cloud(r.resource)}?q=${r.token}`
    },
    scope: ROWS / RESOURCES,
  },
  { name: 'rare-term text, 7 days, all resources', path: (i) => `/v1/logs?text=${rareLine(i % rareCount, shape).token}`, scope: ROWS },
  {
    name: 'trace_id lookup',
    path: (i) => {
      const tr = traceOf(1_000_003 * (i + 1) % ROWS, shape)
      return `${cloud(tr.resource)}?trace_id=${tr.traceId}`
    },
    scope: ROWS / RESOURCES,
  },
  // Issue 34.
  { name: 'attr filter (25% of lines), one resource', path: (i) => `${cloud(i)}?limit=100&attr.http.status=500`, scope: ROWS / RESOURCES },
  {
    name: 'attr needle (user.id), 7 days, one resource',
    path: (i) => `/v1/workspaces/${ws}/resources/${pick(i).rid}/logs?limit=100&attr.user.id=${pick(i).user}`,
    scope: ROWS / RESOURCES,
  },
  { name: 'resource filter, all resources', path: (i) => `${wide}?limit=100&resource.service.name=svc-${i % RESOURCES}`, scope: ROWS },
  { name: 'resource + attr filter, all resources', path: (i) => `${wide}?limit=100&resource.host.name=host-${i % 10}&attr.http.status=500&severity=ERROR`, scope: ROWS },
  { name: 'all resources, newest 100', path: () => `${wide}?limit=100`, scope: ROWS },
  { name: 'all resources, rare term', path: (i) => `${wide}?limit=100&q=${rareLine(i % rareCount, shape).token}`, scope: ROWS },
  // Words of 3-10 % of the lines: a search's first window fills the page, and what runs beside it is refused.
  { name: 'common word q, one resource', path: (i) => `${cloud(i)}?limit=100&q=${COMMON_WORDS[i % COMMON_WORDS.length]}`, scope: ROWS / RESOURCES },
  { name: 'common word q, all resources', path: (i) => `${wide}?limit=100&q=${COMMON_WORDS[i % COMMON_WORDS.length]}`, scope: ROWS },
  {
    name: 'context, 50 before and 50 after',
    path: (i) => `/v1/workspaces/${ws}/resources/${pick(i).rid}/logs/${pick(i).eid}/context?before=50&after=50`,
    scope: ROWS / RESOURCES,
  },
  {
    // An id without its time (the desktop's legacy route stores the sender's): the lookup over the retention first.
    name: 'context, 50 each side, a sender\'s own id',
    path: (i) => `/v1/workspaces/${ws}/resources/${pickSender(i).rid}/logs/${pickSender(i).eid}/context?before=50&after=50`,
    scope: ROWS / RESOURCES,
  },
  {
    // As the console asks: with the listed line's timestamp, the event is one primary-key point.
    name: 'context, 50 each side, with the event\'s time',
    path: (i) => `/v1/workspaces/${ws}/resources/${pickOther(i).rid}/logs/${pickOther(i).eid}/context?before=50&after=50&at=${enc(formatNs(BigInt(pickOther(i).ts)))}`,
    scope: ROWS / RESOURCES,
  },
  { name: 'facets attr.http.status, one resource-day', path: (i) => `${cloud(i)}/facets?field=attr.http.status&${range(dayAgo)}`, scope: ROWS / RESOURCES / DAYS },
  { name: 'facets service, all resources, last hour', path: () => `${wide}/facets?field=resource.service.name&${range(hourAgo)}`, scope: ROWS / DAYS / 24 },
]

const rssAtStart = process.memoryUsage().rss
out('')
out(`query shapes, ${RUNS} runs each (run i uses resource i mod ${RESOURCES}, or the resource holding rare token i), ms:`)
out(`${'shape'.padEnd(40)} ${'HTTP p50'.padStart(8)} ${'p95'.padStart(7)} ${'raw p50'.padStart(8)} ${'p95'.padStart(7)} ${'ratio'.padStart(6)} ${'cold p95'.padStart(8)}  rows read (median, % of scope)  queries`)
const report = (name: string, h: number[], r: number[], cold: number[], read: number[], scope: number, queries: number[]) => {
  const hp50 = summarize(h).p50
  const rp50 = summarize(r).p50
  const rr = summarize(read).p50
  const q = summarize(queries)
  out(`${name.padEnd(40)} ${ms(hp50).padStart(8)} ${ms(p95(h))} ${ms(rp50).padStart(8)} ${ms(p95(r))} ${(hp50 / rp50).toFixed(2).padStart(6)} ${ms(p95(cold)).padStart(8)}  ${String(Math.round(rr)).padStart(9)} (${(100 * rr / scope).toFixed(2)}%)  ${q.p50}/${q.max}`)
}
for (const sc of scenarios.filter((x) => wanted(x.name))) {
  // Pass 1 (cold: the first time each statement runs) records the statements and rows read.
  const first: Hit[] = []
  const before: Hit['statements'][] = []
  for (let i = 0; i < RUNS; i++) {
    const hit = await http(sc.path(i))
    first.push(hit)
    if (BEFORE) before.push(hit.statements.map((x) => ({ ...x, sql: withoutCache(x.sql) })))
  }
  const h: number[] = []
  const r: number[] = []
  const own: number[] = []
  for (let i = 0; i < RUNS; i++) {
    // The uncached replay, then the request, then its own statements: the request finds in the
    // block cache only what survived since pass 1, never blocks its own replay just put there.
    r.push(await raw(before[i] ?? (first[i] as Hit).statements, (first[i] as Hit).ms))
    h.push((await http(sc.path(i))).ms)
    if (BEFORE) own.push(await raw((first[i] as Hit).statements, (first[i] as Hit).ms))
  }
  const statements = first.map((x) => x.statements.length)
  if (!BEFORE) report(sc.name, h, r, first.map((x) => x.ms), first.map((x) => x.rowsRead), sc.scope, statements)
  else {
    report(`${sc.name} (raw: before)`, h, r, first.map((x) => x.ms), first.map((x) => x.rowsRead), sc.scope, before.map((x) => x.length))
    report(`${sc.name} (raw: now)`, h, own, first.map((x) => x.ms), first.map((x) => x.rowsRead), sc.scope, statements)
  }
}

// Paging: PAGES pages deep from the newest, per resource.
if (wanted('paging')) {
  const walks: Hit[][] = []
  for (let i = 0; i < WALKS; i++) {
    const walk: Hit[] = []
    let cursor: string | null = null
    for (let p = 0; p < PAGES; p++) {
      const hit: Hit = await http(`${cloud(i)}?limit=100${cursor === null ? '' : `&cursor=${enc(cursor)}`}`)
      walk.push(hit)
      cursor = hit.next
      if (cursor === null) break
    }
    walks.push(walk)
  }
  const h: number[] = []
  const r: number[] = []
  const rb: number[] = []
  const deepH: number[] = []
  const deepR: number[] = []
  for (let i = 0; i < WALKS; i++) {
    const walk = walks[i] as Hit[]
    let cursor: string | null = null
    for (let p = 0; p < walk.length; p++) {
      const st = (walk[p] as Hit).statements
      if (BEFORE) rb.push(await raw(st.map((x) => ({ ...x, sql: withoutCache(x.sql) })), (walk[p] as Hit).ms))
      const hit: Hit = await http(`${cloud(i)}?limit=100${cursor === null ? '' : `&cursor=${enc(cursor)}`}`)
      const rt = await raw(st, (walk[p] as Hit).ms)
      cursor = hit.next
      h.push(hit.ms)
      r.push(rt)
      if (p === walk.length - 1) {
        deepH.push(hit.ms)
        deepR.push(rt)
      }
    }
  }
  const all = walks.flat()
  if (BEFORE) report(`paging, every page 1..${PAGES} (raw: before)`, h, rb, all.map((x) => x.ms), all.map((x) => x.rowsRead), ROWS / RESOURCES, all.map((x) => x.statements.length))
  report(`paging, every page 1..${PAGES}${BEFORE ? ' (raw: now)' : ''}`, h, r, all.map((x) => x.ms), all.map((x) => x.rowsRead), ROWS / RESOURCES, all.map((x) => x.statements.length))
  const deep = walks.map((w) => w[w.length - 1] as Hit)
  report(`paging, page ${PAGES} alone`, deepH, deepR, deep.map((x) => x.ms), deep.map((x) => x.rowsRead), ROWS / RESOURCES, deep.map((x) => x.statements.length))
}
// The route's statements for the newest page across resources, for the merged day below.
const newestStatements = (await http(`${wide}?limit=100`)).statements
await pool.close()
recorder.restore()
// What the block cache holds after the shapes (engine-settings.ts bounds it), and this process's memory.
const cache = (await storeQuery<{ bytes: string }>("SELECT value AS bytes FROM system.metrics WHERE metric = 'UncompressedCacheBytes'")).rows[0]?.bytes
out(`memory: RSS ${(rssAtStart / 2 ** 20).toFixed(0)} MiB before the shapes, ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB after (peak ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MiB); uncompressed-block cache ${(Number(cache) / 2 ** 20).toFixed(1)} MiB`)

// Live tail: from the ingest acknowledgement to the line on an open stream.
if (wanted('tail')) {
  const rid = rids[0] as string
  const ac = new AbortController()
  const res = await fetch(`${lookout.url}/v1/workspaces/${ws}/resources/${rid}/logs/tail?q=tailprobe`, { headers: auth, signal: ac.signal })
  const reader = (res.body as ReadableStream<Uint8Array>).getReader()
  const dec = new TextDecoder()
  const arrived = new Map<string, number>()
  void (async () => {
    let buf = ''
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buf += dec.decode(value, { stream: true })
        for (const m of buf.matchAll(/"message":"tailprobe (\d+)"/g)) if (!arrived.has(m[1] as string)) arrived.set(m[1] as string, performance.now())
        buf = buf.slice(Math.max(0, buf.lastIndexOf('\n\n')))
      }
    } catch {
      // aborted
    }
  })()
  const lat: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const r = await fetch(`${lookout.url}/v1/workspaces/${ws}/resources/${rid}/logs`, {
      method: 'POST', headers: { ...auth, 'content-type': 'application/json' }, body: JSON.stringify({ events: [{ message: `tailprobe ${i}` }] }),
    })
    await r.arrayBuffer()
    const acked = performance.now()
    for (let w = 0; w < 200 && !arrived.has(String(i)); w++) await new Promise((res) => setTimeout(res, 5))
    lat.push((arrived.get(String(i)) ?? Number.NaN) - acked)
  }
  ac.abort()
  const s = summarize(lat)
  out('')
  out(`live tail, ${RUNS} lines: on the stream after the ingest acknowledgement p50 ${s.p50.toFixed(1)} ms, p95 ${p95(lat).toFixed(1)} ms, max ${s.max.toFixed(1)} ms (negative: the line arrived before the HTTP response; NaN: never)`)
}

// The newest page across resources on a merged day (merged-day.ts); BENCH_MERGED=0 leaves it out.
if ((process.env.BENCH_MERGED ?? '1') !== '0') {
  await mergedDay(store, db, newestStatements, RUNS, out)
}

// The message index, by measurement: load cost and rare-term speed of each choice (index-choice.ts).
if (COMPARE) await indexChoice({ store, db, ws, shape, runs: RUNS, product: loaded, load, tableFacts, out })

out('')
out(`machine: load average ${load1()} at the end`)
await lookout.stop()
if (keptDir === undefined) rmSync(dataDir, { recursive: true, force: true })
