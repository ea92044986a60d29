// What does each index of the log table cost to load, merges included? The
// pipeline's own row bytes (decoder + RowWriter, Native blocks) inserted
// into the product schema, the product schema less one index at a time, and a
// minimal table; then merges run for a fixed period and the parts are merged
// to one, so merge-time index building is counted. See README.md.
import { rmSync } from 'node:fs'
import { readStoredRows, ROW_FORMATS, type StoredRow } from '../../ingest/index.ts'
import { DEFAULT_SHAPE } from '../lib/traffic.ts'
import { percentile } from '../lib/stats.ts'
import { activeParts, scratchLogStore, storedRows } from '../lib/stored-rows.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const REPS = Number(process.env.BENCH_REPS ?? 3)
/** Rows per insert: the loader's batch size under a backlog. */
const PER_INSERT = Number(process.env.BENCH_PER_INSERT ?? 25_000)
/** Seconds background merges run after the last insert, before the final OPTIMIZE. */
const MERGE_S = Number(process.env.BENCH_MERGE_S ?? 5)
const ROWS = REQUESTS * DEFAULT_SHAPE.records

const { dir, store } = await scratchLogStore('lookout-index-tax-')
const db = store.database

// The rows exactly as the pipeline writes them (the loader inserts these bytes unchanged),
// one request received every 10 ms (100k rows/s), so receive-time bounds prune as they would.
const ws = crypto.randomUUID()
const rid = crypto.randomUUID()
const t0ns = BigInt(Date.now()) * 1_000_000n
const requests = storedRows(REQUESTS, ws, rid, (i) => String(t0ns + BigInt(i) * 10_000_000n))
const perInsert = Math.max(1, Math.round(PER_INSERT / DEFAULT_SHAPE.records))
const inserts: Buffer[] = []
for (let i = 0; i < requests.length; i += perInsert) inserts.push(Buffer.concat(requests.slice(i, i + perInsert)))

// The loader's lookups (ingest/store/stored.ts), run on each table after its merges:
// a redelivery of the last 30 messages (batch ids, bounded by their receive
// times), and legacy batches of 20 and of 1000 new event ids (per resource,
// whole retention). A bloom filter is only consulted for small IN lists.
const lastHeads = requests.slice(-30).map((b) => readStoredRows(b)[0] as StoredRow)
const batchIds = lastHeads.map((r) => r.batch_id)
const lo = lastHeads[0]?.received_at as string
const hi = lastHeads[lastHeads.length - 1]?.received_at as string
const newEventIds = Array.from({ length: 1000 }, (_, i) => `new-${i}`)
const legacy = (ids: string[]) => (t: string) => ({
  sql: `SELECT DISTINCT event_id FROM (SELECT event_id FROM ${db}.${t} WHERE resource_id = {rid:UUID} AND event_id IN {ids:Array(String)}) ${NO_CACHE}`,
  params: { rid, ids },
})
// Each production lookup asks for new ids: the query condition cache would let the repeats here read nothing.
const NO_CACHE = 'SETTINGS use_query_condition_cache = 0'
const LOOKUPS = {
  batch: (t: string) => ({
    sql: `SELECT batch_id, count() AS n FROM ${db}.${t} WHERE received_at >= fromUnixTimestamp64Nano({lo:Int64}) AND received_at <= fromUnixTimestamp64Nano({hi:Int64}) AND batch_id IN {ids:Array(String)} GROUP BY batch_id ${NO_CACHE}`,
    params: { lo, hi, ids: batchIds },
  }),
  legacy20: legacy(newEventIds.slice(0, 20)),
  legacy1000: legacy(newEventIds),
} as const
type Lookup = keyof typeof LOOKUPS

const PRODUCT_INDEXES = ['idx_message', 'idx_attr_values', 'idx_resource_values', 'idx_trace_id', 'idx_event_id'] as const
const ALL_INDEXES = [...PRODUCT_INDEXES, 'idx_batch_id', 'idx_received_at', 'idx_severity'] as const
/** Dropped by migration 3 (ingest/store/schema.ts); added back to measure the table as it was. */
const BATCH_ID_FILTER = 'INDEX idx_batch_id batch_id TYPE bloom_filter(0.01) GRANULARITY 1'
interface Variant { name: string; drop: readonly string[]; add?: string }
// BENCH_VARIANTS: run the product schema and only the variants whose name contains one of these (comma-separated).
const ONLY = process.env.BENCH_VARIANTS?.split(',').map((x) => x.trim()).filter((x) => x !== '') ?? null
const variants: Variant[] = [
  { name: 'product schema (as migrated)', drop: [] },
  ...PRODUCT_INDEXES.map((i) => ({ name: `without ${i}`, drop: [i] })),
  { name: 'with idx_batch_id (before migration 3)', drop: [], add: BATCH_ID_FILTER },
  // The reference table: no text indexes, one tokenbf_v1 on the message, no bloom filters.
  { name: 'minimal: one tokenbf_v1 on the message', drop: ALL_INDEXES, add: 'INDEX idx_tok lower(message) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1' },
  { name: 'no skip index at all', drop: ALL_INDEXES },
].filter((v, i) => i === 0 || ONLY === null || ONLY.some((x) => v.name.includes(x)))

interface Sample { insertS: number; insertCpu: number; mergeCpu: number; parts: number; lookups: Record<Lookup, { ms: number; rows: number }> }
const samples = new Map<string, Sample[]>()
const cpuNow = (): number => {
  const c = process.cpuUsage()
  return (c.user + c.system) / 1e6
}
const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

// The engine's own background work while idle, for the same period: part of every merge figure.
const idle0 = cpuNow()
await sleep(MERGE_S * 1000)
const idleCpu = cpuNow() - idle0

let n = 0
for (let rep = 0; rep < REPS; rep++) {
  for (const v of variants) {
    const table = `t${n++}`
    await store.command(`CREATE TABLE ${db}.${table} AS ${db}.logs`)
    for (const i of v.drop) await store.command(`ALTER TABLE ${db}.${table} DROP INDEX IF EXISTS ${i}`)
    if (v.add !== undefined) await store.command(`ALTER TABLE ${db}.${table} ADD ${v.add.replace('INDEX', 'INDEX IF NOT EXISTS')}`)
    const c0 = cpuNow()
    const t0 = performance.now()
    for (let i = 0; i < inserts.length; i++) await store.insertJsonRows(table, inserts[i] as Buffer, `${table}-${i}`, ROW_FORMATS.native)
    const insertS = (performance.now() - t0) / 1000
    const c1 = cpuNow()
    // Background merges for a fixed period, then everything merged to one part
    // per partition: every variant ends in the same state, its index built once more.
    await sleep(MERGE_S * 1000)
    const parts = await activeParts(store, table)
    await store.command(`OPTIMIZE TABLE ${db}.${table} FINAL`)
    for (let waited = 0; waited < 60_000 && (await running(table)); waited += 200) await sleep(200)
    const mergeCpu = cpuNow() - c1
    const lookups = { batch: await lookup('batch', table), legacy20: await lookup('legacy20', table), legacy1000: await lookup('legacy1000', table) }
    samples.set(v.name, [...(samples.get(v.name) ?? []), { insertS, insertCpu: c1 - c0, mergeCpu, parts, lookups }])
    await store.command(`DROP TABLE ${db}.${table} SYNC`)
  }
}

/** Median of 5 runs: wall ms and rows the engine read. */
async function lookup(which: Lookup, table: string): Promise<{ ms: number; rows: number }> {
  const q = LOOKUPS[which](table)
  const ms: number[] = []
  let rows = 0
  for (let i = 0; i < 5; i++) {
    const t = performance.now()
    const r = await store.query(q.sql, q.params)
    ms.push(performance.now() - t)
    rows = Math.max(rows, r.rowsRead)
  }
  return { ms: percentile(ms, 50), rows }
}

async function running(table: string): Promise<boolean> {
  const r = await store.query<{ c: string }>(`SELECT count() AS c FROM system.merges WHERE database = {db:String} AND table = {t:String}`, { db, t: table })
  return Number(r.rows[0]?.c ?? 0) > 0
}

const look = (s: Sample[], w: Lookup): string => `${med(s.map((x) => x.lookups[w].rows))} rows ${med(s.map((x) => x.lookups[w].ms)).toFixed(1)} ms`.padStart(18)
const med = (xs: number[]): number => percentile(xs, 50)
const spread = (xs: number[]): string => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`
const perM = ROWS / 1e6
const base = samples.get(variants[0]?.name as string) as Sample[]
const baseTotal = med(base.map((s) => (s.insertCpu + s.mergeCpu) / perM))
console.log(`${ROWS} rows of the default traffic shape in ${inserts.length} inserts, ${REPS} alternating repetitions, ${MERGE_S} s of merges then OPTIMIZE FINAL`)
console.log(`idle engine over the same ${MERGE_S} s: ${(idleCpu / perM).toFixed(1)} CPU-s per million rows' worth (included in every merge figure)`)
console.log('CPU-s per million rows (median, range over repetitions); rows/s of the inserts alone; parts left by background merges; the loader lookups: rows read, median ms')
console.log(`${'variant'.padEnd(42)} ${'insert'.padStart(18)} ${'merge'.padStart(18)} ${'total'.padStart(18)} ${'vs product'.padStart(10)} ${'rows/s'.padStart(8)} ${'parts'.padStart(5)} ${'batch (30 ids)'.padStart(18)} ${'legacy (20 ids)'.padStart(18)} ${'legacy (1000 ids)'.padStart(18)}`)
for (const v of variants) {
  const s = samples.get(v.name) as Sample[]
  const ins = s.map((x) => x.insertCpu / perM)
  const mer = s.map((x) => x.mergeCpu / perM)
  const tot = s.map((x) => (x.insertCpu + x.mergeCpu) / perM)
  const rate = med(s.map((x) => ROWS / x.insertS))
  const cell = (xs: number[]): string => `${med(xs).toFixed(1)} (${spread(xs)})`.padStart(18)
  console.log(`${v.name.padEnd(42)} ${cell(ins)} ${cell(mer)} ${cell(tot)} ${(med(tot) / baseTotal).toFixed(2).padStart(10)} ${rate.toFixed(0).padStart(8)} ${String(med(s.map((x) => x.parts))).padStart(5)} ${look(s, 'batch')} ${look(s, 'legacy20')} ${look(s, 'legacy1000')}`)
}
await store.close()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
