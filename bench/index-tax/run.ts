// What does each index of the log table cost to load, merges included? The
// pipeline's own row bytes (decoder + RowWriter, JSONCompactEachRow) inserted
// into the product schema, the product schema less one index at a time, and a
// minimal table; then merges run for a fixed period and the parts are merged
// to one, so merge-time index building is counted. See README.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateLogStore, openLogStore, ROW_FORMATS } from '../../ingest/index.ts'
import { decodeOtlpProtobuf } from '../../ingest/decode/otlp-proto.ts'
import { newRowFields, RowWriter } from '../../ingest/rows.ts'
import { DEFAULT_SHAPE, encodeProtobuf, makeRecords } from '../lib/traffic.ts'
import { percentile } from '../lib/stats.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const REPS = Number(process.env.BENCH_REPS ?? 2)
/** Rows per insert: the loader's batch size under a backlog. */
const PER_INSERT = Number(process.env.BENCH_PER_INSERT ?? 25_000)
/** Seconds background merges run after the last insert, before the final OPTIMIZE. */
const MERGE_S = Number(process.env.BENCH_MERGE_S ?? 5)
const ROWS = REQUESTS * DEFAULT_SHAPE.records

const dir = mkdtempSync(join(tmpdir(), 'lookout-index-tax-'))
const store = openLogStore({ path: dir })
await migrateLogStore(store, { retentionDays: 7 })
const db = store.database

// The rows exactly as the pipeline writes them (the loader inserts these bytes unchanged).
const ws = crypto.randomUUID()
const rid = crypto.randomUUID()
const fields = newRowFields()
const now = String(BigInt(Date.now()) * 1_000_000n)
const requests: Buffer[] = []
for (let i = 0; i < REQUESTS; i++) {
  const w = new RowWriter(ws, rid, i.toString(16).padStart(24, '0'), now, 64 * 1024 * 1024)
  decodeOtlpProtobuf(encodeProtobuf(makeRecords(i + 1)), w, { minTimeNs: 0n, maxTimeNs: 1n << 62n, receivedNs: now, maxMessageLength: 65536, fields, unstamped: 0 })
  requests.push(Buffer.from(w.finish().data))
}
const perInsert = Math.max(1, Math.round(PER_INSERT / DEFAULT_SHAPE.records))
const inserts: Buffer[] = []
for (let i = 0; i < requests.length; i += perInsert) inserts.push(Buffer.concat(requests.slice(i, i + perInsert)))

const PRODUCT_INDEXES = ['idx_message', 'idx_attr_values', 'idx_trace_id', 'idx_event_id', 'idx_batch_id'] as const
const ALL_INDEXES = [...PRODUCT_INDEXES, 'idx_received_at', 'idx_severity'] as const
interface Variant { name: string; drop: readonly string[]; add?: string }
const variants: Variant[] = [
  { name: 'product schema (as migrated)', drop: [] },
  ...PRODUCT_INDEXES.map((i) => ({ name: `without ${i}`, drop: [i] })),
  { name: 'without idx_event_id and idx_batch_id', drop: ['idx_event_id', 'idx_batch_id'] },
  // The reference table: no text indexes, one tokenbf_v1 on the message, no bloom filters.
  { name: 'minimal: one tokenbf_v1 on the message', drop: ALL_INDEXES, add: "INDEX idx_tok lower(message) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1" },
  { name: 'no skip index at all', drop: ALL_INDEXES },
]

interface Sample { insertS: number; insertCpu: number; mergeCpu: number; parts: number }
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
    for (const i of v.drop) await store.command(`ALTER TABLE ${db}.${table} DROP INDEX ${i}`)
    if (v.add !== undefined) await store.command(`ALTER TABLE ${db}.${table} ADD ${v.add}`)
    const c0 = cpuNow()
    const t0 = performance.now()
    for (let i = 0; i < inserts.length; i++) await store.insertJsonRows(table, inserts[i] as Buffer, `${table}-${i}`, ROW_FORMATS.compact)
    const insertS = (performance.now() - t0) / 1000
    const c1 = cpuNow()
    // Background merges for a fixed period, then everything merged to one part
    // per partition: every variant ends in the same state, its index built once more.
    await sleep(MERGE_S * 1000)
    const parts = await activeParts(table)
    await store.command(`OPTIMIZE TABLE ${db}.${table} FINAL`)
    for (let waited = 0; waited < 60_000 && (await running(table)); waited += 200) await sleep(200)
    const mergeCpu = cpuNow() - c1
    samples.set(v.name, [...(samples.get(v.name) ?? []), { insertS, insertCpu: c1 - c0, mergeCpu, parts }])
    await store.command(`DROP TABLE ${db}.${table} SYNC`)
  }
}

async function activeParts(table: string): Promise<number> {
  const r = await store.query<{ c: string }>(`SELECT count() AS c FROM system.parts WHERE database = {db:String} AND table = {t:String} AND active`, { db, t: table })
  return Number(r.rows[0]?.c ?? 0)
}

async function running(table: string): Promise<boolean> {
  const r = await store.query<{ c: string }>(`SELECT count() AS c FROM system.merges WHERE database = {db:String} AND table = {t:String}`, { db, t: table })
  return Number(r.rows[0]?.c ?? 0) > 0
}

const med = (xs: number[]): number => percentile(xs, 50)
const spread = (xs: number[]): string => `${Math.min(...xs).toFixed(1)}-${Math.max(...xs).toFixed(1)}`
const perM = ROWS / 1e6
const base = samples.get(variants[0]?.name as string) as Sample[]
const baseTotal = med(base.map((s) => (s.insertCpu + s.mergeCpu) / perM))
console.log(`${ROWS} rows of the default traffic shape in ${inserts.length} inserts, ${REPS} alternating repetitions, ${MERGE_S} s of merges then OPTIMIZE FINAL`)
console.log(`idle engine over the same ${MERGE_S} s: ${(idleCpu / perM).toFixed(1)} CPU-s per million rows' worth (included in every merge figure)`)
console.log('CPU-s per million rows (median, range over repetitions); rows/s of the inserts alone')
console.log(`${'variant'.padEnd(42)} ${'insert'.padStart(18)} ${'merge'.padStart(18)} ${'total'.padStart(18)} ${'vs product'.padStart(10)} ${'rows/s'.padStart(8)} ${'parts'.padStart(5)}`)
for (const v of variants) {
  const s = samples.get(v.name) as Sample[]
  const ins = s.map((x) => x.insertCpu / perM)
  const mer = s.map((x) => x.mergeCpu / perM)
  const tot = s.map((x) => (x.insertCpu + x.mergeCpu) / perM)
  const rate = med(s.map((x) => ROWS / x.insertS))
  const cell = (xs: number[]): string => `${med(xs).toFixed(1)} (${spread(xs)})`.padStart(18)
  console.log(`${v.name.padEnd(42)} ${cell(ins)} ${cell(mer)} ${cell(tot)} ${(med(tot) / baseTotal).toFixed(2).padStart(10)} ${rate.toFixed(0).padStart(8)} ${String(med(s.map((x) => x.parts))).padStart(5)}`)
}
await store.close()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
