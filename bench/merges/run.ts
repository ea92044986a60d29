// What do the background merges of a steadily fed log table cost, and what do
// the merge selector's settings trade? The pipeline's own row bytes inserted at
// a fixed rate in the loader's batches, one table per variant, alternated; the
// engine's CPU over the feed and a settling period (inserts and merges), the
// active parts it leaves, and a rare-term search over them. See README.md.
import { mkdirSync, rmSync } from 'node:fs'
import { writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { LOG_COLUMNS, MERGE_SETTINGS, ROW_FORMATS, type QueryParams } from '../../ingest/internal.ts'
import { cpuBetween, cpuSnapshot, type ThreadClassifier } from '../lib/procstat.ts'
import { filterConditions, parseTextQuery } from '../../query/internal.ts'
import { DEFAULT_SHAPE } from '../lib/traffic.ts'
import { percentile } from '../lib/stats.ts'
import { activeParts, activePartsSize, scratchLogStore, storedRows } from '../lib/stored-rows.ts'

const RATE = Number(process.env.BENCH_RATE ?? 60_000)
const FEED_S = Number(process.env.BENCH_FEED_S ?? 60)
const SETTLE_S = Number(process.env.BENCH_SETTLE_S ?? 15)
const REPS = Number(process.env.BENCH_REPS ?? 2)
/** Rows per insert: the loader's batch under a backlog (37,500 in bench/e2e). */
const PER_INSERT = Number(process.env.BENCH_PER_INSERT ?? 37_500)
const SEARCHES = 30

// BENCH_ENGINE_ARGS: engine arguments at start beside the product's (e.g. --background_pool_size=4, a
// server setting: one engine per process, so a pool size is compared across runs, not variants).
const ENGINE_ARGS = (process.env.BENCH_ENGINE_ARGS ?? '').split(' ').filter((a) => a !== '')
const { dir, store } = await scratchLogStore('lookout-merges-', ENGINE_ARGS)
const db = store.database

// DISTINCT inserts' worth of rows, as the pipeline writes them, inserted in turn: a merge of up to
// ten parts then meets few repeated rows, which would flatter the compression codecs.
const DISTINCT = Number(process.env.BENCH_DISTINCT ?? 16)
const ws = crypto.randomUUID()
const rid = crypto.randomUUID()
const perInsert = Math.max(1, Math.round(PER_INSERT / DEFAULT_SHAPE.records))
const requests = storedRows(perInsert * DISTINCT, ws, rid, () => String(BigInt(Date.now()) * 1_000_000n))
/** The requests cut into inserts of `per` requests each (pieces, not copied: the loader's way). */
const batchesOf = (per: number): Buffer[][] => Array.from({ length: Math.floor(requests.length / per) }, (_, b) => requests.slice(b * per, (b + 1) * per))

interface Variant {
  name: string; settings: string; columns?: string; insertSettings?: string
  /** Another partition key than the product's `toDate(timestamp)` (the table is created with it). */
  partition?: string
  /** Rows per insert instead of BENCH_PER_INSERT (the same rate: fewer, larger inserts or more, smaller ones). */
  perInsert?: number
}
// Each variant sets both settings: a table made AS the product's copies its settings (migration 5's).
const HEURISTIC = 'merge_selector_enable_heuristic_to_lower_max_parts_to_merge_at_once'
const PRODUCT = `${MERGE_SETTINGS}, ${HEURISTIC} = 1`
/** The text columns the product compresses with ZSTD(1) (ingest/store/schema.ts), and the times it stores as Delta + ZSTD(1). */
const TEXT_COLUMNS = ['message String', 'attributes Map(LowCardinality(String), String)', 'resource_attributes Map(LowCardinality(String), String)',
  'batch_id String', 'event_id String', 'trace_id String', 'span_id String']
const TIME_COLUMNS = ['timestamp DateTime64(9)', 'observed_timestamp DateTime64(9)', 'received_at DateTime64(9)']
const codec = (columns: string[], c: string): string => columns.map((col) => `MODIFY COLUMN ${col} CODEC(${c})`).join(', ')
const VARIANT_SETS: Record<string, Variant[]> = {
  selector: [
    { name: 'engine defaults (base 5, lower-width heuristic on)', settings: `merge_selector_base = 5, ${HEURISTIC} = 1` },
    { name: `product (migration 5: ${MERGE_SETTINGS})`, settings: PRODUCT },
    { name: 'lower-width heuristic off', settings: `merge_selector_base = 5, ${HEURISTIC} = 0` },
    { name: 'both', settings: `merge_selector_base = 10, ${HEURISTIC} = 0` },
  ],
  // Where the skip indexes are built (issue 35): at insert (the product), by the merges only
  // (materialize_skip_indexes_on_insert = 0), or the text indexes by the merges and the cheap ones at insert.
  index: [
    { name: 'product (every skip index built at insert)', settings: PRODUCT },
    { name: 'materialize_skip_indexes_on_insert = 0', settings: PRODUCT, insertSettings: 'materialize_skip_indexes_on_insert = 0' },
    { name: 'text indexes by merges, minmax + bloom at insert', settings: PRODUCT, insertSettings: "exclude_materialize_skip_indexes_on_insert = 'idx_message, idx_attr_values'" },
  ],
  // Issue 35's tuning levers, each against the product: the insert block size (the loader's batch
  // under a backlog), min_bytes_for_wide_part (migration 4: 256 MiB; the engine's default 10 MiB),
  // and the partition key (one partition for the whole table against the product's daily ones).
  levers: [
    { name: 'product (inserts of BENCH_PER_INSERT rows)', settings: PRODUCT },
    { name: 'min_bytes_for_wide_part = 10 MiB (engine default)', settings: `${PRODUCT}, min_bytes_for_wide_part = 10485760` },
    { name: 'PARTITION BY tuple() (one partition)', settings: PRODUCT, partition: 'tuple()' },
    { name: 'inserts of half the rows', settings: PRODUCT, perInsert: Math.round(PER_INSERT / 2) },
    { name: 'inserts of twice the rows', settings: PRODUCT, perInsert: PER_INSERT * 2 },
  ],
  // BENCH_SECONDS-long steady run of the product alone (issue 35: insert and merge CPU apart, with the parts).
  product: [{ name: 'product', settings: PRODUCT }],
  // insertWith runs an insert on the store's query connection (store.command); the product's inserts have their own.
  connection: [
    { name: 'product (inserts on a connection of their own)', settings: PRODUCT },
    { name: 'inserts on the queries\' connection (as before)', settings: PRODUCT, insertSettings: 'materialize_skip_indexes_on_insert = 1' },
  ],
  codec: [
    { name: 'product (ZSTD(1) on text, Delta + ZSTD(1) on times)', settings: PRODUCT },
    { name: 'LZ4 on the text columns', settings: PRODUCT, columns: codec(TEXT_COLUMNS, 'LZ4') },
    { name: 'LZ4 on text, Delta + LZ4 on times', settings: PRODUCT, columns: `${codec(TEXT_COLUMNS, 'LZ4')}, ${codec(TIME_COLUMNS, 'Delta, LZ4')}` },
  ],
}
const variants = VARIANT_SETS[process.env.BENCH_VARIANTS ?? 'selector']
if (variants === undefined) throw new Error(`BENCH_VARIANTS must be one of ${Object.keys(VARIANT_SETS).join(', ')}`)

interface Sample {
  cpuPerM: number; mergeCpuPerM: number; fedPerS: number; mibOnDisk: number; lateInserts: number; partsMax: number; partsEnd: number; searchP50: number; searchP95: number
  /** Searches during the feed: the newest minute, and the whole table; rare term and trace id. */
  during: Record<string, number[]>
  /** The same, from a loop of its own beside the feed (a user searching while the loader inserts). */
  beside: Record<string, number[]>
}
const samples = new Map<string, Sample[]>()
const cpuNow = (): number => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))
// The engine's merges run on its MergeMutate threads; everything else here is the inserts (and the few searches).
const MERGES = 'merges'
const byThread: ThreadClassifier = (t) => (t.name.startsWith('MergeMutate') ? MERGES : 'insert')
const spool = join(dir, 'bench-spool')
mkdirSync(spool, { recursive: true })

/** An insert with settings of its own, the store's way (the rows in a file, INSERT ... SELECT FROM file()). */
async function insertWith(table: string, body: Buffer[], token: string, settings: string): Promise<void> {
  const path = join(spool, `${token}.native`)
  await writeFile(path, Buffer.concat(body))
  try {
    await store.command(`INSERT INTO ${db}.${table} (${LOG_COLUMNS.map((c) => c.name).join(', ')}) SELECT * FROM file('${path}', Native) ` +
      `SETTINGS insert_deduplication_token = '${token}', ${settings}`)
  } finally {
    rmSync(path, { force: true })
  }
}

const SHAPES = ['rare, newest minute', 'rare, all', 'trace, newest minute', 'trace, all'] as const
/** One search of each shape while the feed runs (the freshest parts may have no index yet). */
async function searchDuring(table: string, into: Record<string, number[]>): Promise<void> {
  for (const shape of SHAPES) {
    const params: QueryParams = {}
    const startNs = shape.endsWith('newest minute') ? BigInt(Date.now() - 60_000) * 1_000_000n : null
    const trace = shape.startsWith('trace') ? crypto.randomUUID().replaceAll('-', '') : null
    const where = filterConditions({
      workspaceId: ws, resourceIds: [rid], startNs, endNs: null, minSeverity: null, traceId: trace,
      text: trace === null ? parseTextQuery(`zq${Date.now()}x`) : null,
    }, params)
    const t = performance.now()
    await store.query(`SELECT timestamp, message FROM ${db}.${table} WHERE ${where.join(' AND ')} ORDER BY timestamp DESC LIMIT 100 SETTINGS use_query_condition_cache = 0`, params)
    ;(into[shape] ??= []).push(performance.now() - t)
  }
}

/** A rare-term search of one resource, with the route's own conditions (query/sql.ts), for a word no row holds. */
async function searchMs(table: string): Promise<number[]> {
  const out: number[] = []
  for (let i = 0; i < SEARCHES; i++) {
    const params: QueryParams = {}
    const where = filterConditions({
      workspaceId: ws, resourceIds: [rid], startNs: null, endNs: null, minSeverity: null, traceId: null, text: parseTextQuery(`zq${i}x${Date.now()}`),
    }, params)
    const t = performance.now()
    await store.query(`SELECT timestamp, message FROM ${db}.${table} WHERE ${where.join(' AND ')} ORDER BY timestamp DESC LIMIT 100 SETTINGS use_query_condition_cache = 0`, params)
    out.push(performance.now() - t)
  }
  return out
}

let n = 0
for (let rep = 0; rep < REPS; rep++) {
  for (const v of variants) {
    const table = `m${n++}`
    if (v.partition === undefined) await store.command(`CREATE TABLE ${db}.${table} AS ${db}.logs`)
    else {
      // The product's statement with another partition key (a table made AS another keeps its key).
      const ddl = await store.query<{ q: string }>(`SELECT create_table_query AS q FROM system.tables WHERE database = {db:String} AND name = 'logs'`, { db })
      const q = String(ddl.rows[0]?.q)
      if (!q.includes('PARTITION BY toDate(timestamp)')) throw new Error('the product table has another partition key than toDate(timestamp)')
      await store.command(q.replace(`${db}.logs`, `${db}.${table}`).replace('PARTITION BY toDate(timestamp)', `PARTITION BY ${v.partition}`))
    }
    await store.command(`ALTER TABLE ${db}.${table} MODIFY SETTING ${v.settings}`)
    if (v.columns !== undefined) await store.command(`ALTER TABLE ${db}.${table} ${v.columns}`)
    const c0 = cpuNow()
    const threads0 = cpuSnapshot(process.pid, byThread)
    const during: Record<string, number[]> = {}
    const beside: Record<string, number[]> = {}
    let feeding = true
    const searching = (async () => {
      while (feeding) {
        await searchDuring(table, beside)
        await sleep(20)
      }
    })()
    const t0 = performance.now()
    let inserted = 0
    let late = 0
    let partsMax = 0
    let reported = performance.now()
    const batches = batchesOf(Math.max(1, Math.round((v.perInsert ?? PER_INSERT) / DEFAULT_SHAPE.records)))
    const rowsPerInsert = (batches[0]?.length ?? 0) * DEFAULT_SHAPE.records
    const intervalMs = (rowsPerInsert / RATE) * 1000
    // Open loop: insert i is due at t0 + i * interval; one that comes due while another runs waits (counted late).
    for (let i = 0; performance.now() - t0 < FEED_S * 1000; i++) {
      const wait = t0 + i * intervalMs - performance.now()
      if (wait > 0) await sleep(wait)
      else if (i > 0) late++
      const body = batches[i % batches.length] as Buffer[]
      if (v.insertSettings === undefined) await store.insertJsonRows(table, body, `${table}-${i}`, ROW_FORMATS.native)
      else await insertWith(table, body, `${table}-${i}`, v.insertSettings)
      inserted += rowsPerInsert
      if (i % 8 === 0) {
        const parts = await activeParts(store, table)
        partsMax = Math.max(partsMax, parts)
        // A long run's course, a line a minute: parts, late inserts, the engine's CPU so far (merges apart).
        if (performance.now() - reported >= 60_000) {
          reported = performance.now()
          const so = cpuBetween(threads0, cpuSnapshot(process.pid, byThread))
          const m = inserted / 1e6
          console.log(`  ${v.name} ${((reported - t0) / 1000).toFixed(0)} s: ${parts} active parts, ${late} late, CPU-s/M insert ${(((cpuNow() - c0) - (so[MERGES] ?? 0)) / m).toFixed(2)}, merges ${((so[MERGES] ?? 0) / m).toFixed(2)}`)
        }
      }
      if (i % 8 === 4) await searchDuring(table, during)
    }
    const fedPerS = inserted / ((performance.now() - t0) / 1000)
    feeding = false
    await searching
    await sleep(SETTLE_S * 1000)
    const cpu = cpuNow() - c0
    const split = cpuBetween(threads0, cpuSnapshot(process.pid, byThread))
    const { parts: partsEnd, bytes: diskBytes } = await activePartsSize(store, table)
    const ms = await searchMs(table)
    samples.set(v.name, [...(samples.get(v.name) ?? []), {
      cpuPerM: cpu / (inserted / 1e6), fedPerS, mergeCpuPerM: (split[MERGES] ?? 0) / (inserted / 1e6), during, beside, mibOnDisk: diskBytes / 1048576 / (inserted / 1e6), lateInserts: late, partsMax: Math.max(partsMax, partsEnd), partsEnd,
      searchP50: percentile(ms, 50), searchP95: percentile(ms, 95),
    }])
    await store.command(`DROP TABLE ${db}.${table} SYNC`)
  }
}

const all = (xs: number[], d = 1): string => xs.map((x) => x.toFixed(d)).join(' / ')
console.log(`${RATE} rows/s in inserts of ${perInsert * DEFAULT_SHAPE.records} (unless the variant says) for ${FEED_S} s, then ${SETTLE_S} s of merges; ${REPS} alternating repetitions; engine args: ${ENGINE_ARGS.join(' ') || 'the product\'s'}`)
console.log('engine CPU-s per million rows over feed + settle (inserts and merges); active parts (most seen, at the end); a rare-term search over them (ms)')
console.log('MiB/M: active parts on disk at the end, per million rows inserted')
console.log('merge CPU-s/M: the part of it on the engine\'s MergeMutate threads (the rest is the inserts, and the few searches)')
console.log(`${'variant'.padEnd(52)} ${'CPU-s/M'.padStart(14)} ${'insert CPU-s/M'.padStart(14)} ${'merge CPU-s/M'.padStart(14)} ${'MiB/M'.padStart(14)} ${'late'.padStart(7)} ${'rows/s fed'.padStart(16)} ${'parts max'.padStart(10)} ${'parts end'.padStart(10)} ${'search p50'.padStart(12)} ${'p95'.padStart(12)}`)
for (const v of variants) {
  const s = samples.get(v.name) as Sample[]
  console.log(`${v.name.padEnd(52)} ${all(s.map((x) => x.cpuPerM)).padStart(14)} ${all(s.map((x) => x.cpuPerM - x.mergeCpuPerM)).padStart(14)} ${all(s.map((x) => x.mergeCpuPerM)).padStart(14)} ${all(s.map((x) => x.mibOnDisk)).padStart(14)} ${all(s.map((x) => x.lateInserts), 0).padStart(7)} ${all(s.map((x) => x.fedPerS), 0).padStart(16)} ${all(s.map((x) => x.partsMax), 0).padStart(10)} ${all(s.map((x) => x.partsEnd), 0).padStart(10)} ${all(s.map((x) => x.searchP50)).padStart(12)} ${all(s.map((x) => x.searchP95)).padStart(12)}`)
}
/** Each variant's searches of `key` over every repetition, p50 / p95 ms per shape, a line each. */
function printSearches(vs: readonly Variant[], title: string, key: 'beside' | 'during'): void {
  console.log(title)
  for (const v of vs) {
    const s = samples.get(v.name) as Sample[]
    const shapes = SHAPES.map((shape) => {
      const ms = s.flatMap((x) => x[key][shape] ?? [])
      return `${shape} ${percentile(ms, 50).toFixed(1)} / ${percentile(ms, 95).toFixed(1)}`
    })
    console.log(`${v.name.padEnd(52)} ${shapes.join('; ')}`)
  }
}
printSearches(variants, 'searches from a loop beside the feed (ms, p50 / p95 over every repetition; the settled search above is the baseline)', 'beside')
if (variants.some((v) => v.insertSettings !== undefined)) {
  printSearches(variants, 'searches while the feed runs (ms, p50 / p95 over every repetition): rare term and trace id, newest minute and the whole table', 'during')
}
await store.close()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
