// Which insert format (and which search indexes) does the embedded engine load
// fastest? The pipeline's own rows, written back by the engine in each format,
// inserted into fresh tables of the product schema. See README.md.
import { rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createChdbConnection } from 'chdb/connection'
import { createStatement, LOG_COLUMNS, ROW_COLUMNS, ROW_FORMATS, twinStatement } from '../../ingest/internal.ts'
import { DEFAULT_SHAPE } from '../lib/traffic.ts'
import { percentile } from '../lib/stats.ts'
import { scratchLogStore, storedRows } from '../lib/stored-rows.ts'

const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 200)
const REPS = Number(process.env.BENCH_REPS ?? 3)
// BENCH_ONLY: the variants whose name holds this text (e.g. "Native blocks" for the store's own).
const ONLY = process.env.BENCH_ONLY
const ROWS = REQUESTS * DEFAULT_SHAPE.records
const FORMATS = ['JSONEachRow', 'JSONCompactEachRow', 'TSV'] as const
type Format = (typeof FORMATS)[number]

const { dir, store } = await scratchLogStore('lookout-insert-format-')
const chdb = createChdbConnection({ path: dir }).chdb
const db = store.database

// The rows exactly as the pipeline makes them, stored once; every format is then written by the engine from them.
const ws = crypto.randomUUID()
const rid = crypto.randomUUID()
const now = String(BigInt(Date.now()) * 1_000_000n)
await store.command(`CREATE TABLE ${db}.source AS ${db}.logs`)
const pipelineRows = storedRows(REQUESTS, ws, rid, () => now)
for (let i = 0; i < pipelineRows.length; i++) await store.insertJsonRows('source', pipelineRows[i] as Buffer, `src-${i}`, ROW_FORMATS.native)
// The loader's own bytes (the decoders' Native blocks, concatenated as the loader does).
const pipelinePayload = Buffer.concat(pipelineRows)
// What the loader inserted before issue 35: JSONCompactEachRow lines in the payload order (ROW_COLUMNS).
const previousPayload = Buffer.from((await chdb.queryAsync(`SELECT ${ROW_COLUMNS.join(', ')} FROM ${db}.source FORMAT JSONCompactEachRow`, { format: 'JSONCompactEachRow' })).bytes())
const payloads = new Map<Format, Buffer>()
for (const f of FORMATS) payloads.set(f, Buffer.from((await chdb.queryAsync(`SELECT * FROM ${db}.source FORMAT ${f}`, { format: f })).bytes()))
// Background merges would steal CPU from the next measurement.
await store.command('SYSTEM STOP MERGES')

/**
 * Which bytes, and how they reach the engine: the engine's own rows in a format with
 * `rawInsert`; or the loader's rows with `rawInsert` (INSERT ... FORMAT, bytes in
 * memory) or through the store (INSERT ... SELECT FROM file()).
 */
type Load = 'engine rows' | 'previous pipeline, file' | 'pipeline, file' | 'pipeline, file, indexes by merges'
interface Variant { name: string; format: Format | 'Native'; dropAttrIndex: boolean; load: Load; granularity?: number }
const allVariants: Variant[] = [
  ...FORMATS.map((format) => ({ name: `${format}, product indexes`, format, dropAttrIndex: false, load: 'engine rows' as const })),
  { name: 'JSONEachRow, without the attribute-value text index', format: 'JSONEachRow', dropAttrIndex: true, load: 'engine rows' },
  { name: 'JSONCompactEachRow, without the attribute-value text index', format: 'JSONCompactEachRow', dropAttrIndex: true, load: 'engine rows' },
  { name: 'previous pipeline rows (JSONCompactEachRow), file()', format: 'JSONCompactEachRow', dropAttrIndex: false, load: 'previous pipeline, file' },
  { name: 'pipeline rows (Native blocks), file() (the store)', format: 'Native', dropAttrIndex: false, load: 'pipeline, file' },
  { name: 'Native blocks, materialize_skip_indexes_on_insert = 0', format: 'Native', dropAttrIndex: false, load: 'pipeline, file, indexes by merges' },
  // The granule size before migration 7 (ingest/store/schema.ts, INDEX_GRANULARITY).
  { name: 'pipeline rows (Native blocks), file(), 8192-row granules', format: 'Native', dropAttrIndex: false, load: 'pipeline, file', granularity: 8192 },
]
const variants = allVariants.filter((v) => ONLY === undefined || v.name.includes(ONLY))

async function load(v: Variant, table: string): Promise<void> {
  if (v.load === 'engine rows') {
    await chdb.rawInsert({ table: `${db}.${table}`, format: v.format as Format, values: payloads.get(v.format as Format) as Buffer })
  } else if (v.load === 'previous pipeline, file') {
    await store.insertJsonRows(table, previousPayload, `${table}-file`, ROW_FORMATS.compact)
  } else if (v.load === 'pipeline, file') {
    await store.insertJsonRows(table, pipelinePayload, `${table}-file`, ROW_FORMATS.native)
  } else {
    // The store's statement with the setting added (the file written here, as the store's spool does).
    const path = join(dir, `${table}.native`)
    writeFileSync(path, pipelinePayload)
    await store.command(`INSERT INTO ${db}.${table} (${LOG_COLUMNS.map((c) => c.name).join(', ')}) SELECT * FROM file('${path}', Native) SETTINGS materialize_skip_indexes_on_insert = 0`)
    rmSync(path)
  }
}
const logsCreate = await createStatement(store, 'logs')
const wall = new Map<string, number[]>()
const cpu = new Map<string, number[]>()
let n = 0
for (let rep = 0; rep < REPS; rep++) {
  for (const v of variants) {
    const table = `t${n++}`
    if (v.granularity === undefined) await store.command(`CREATE TABLE ${db}.${table} AS ${db}.logs`)
    else await store.command(twinStatement(logsCreate, db, table, v.granularity))
    if (v.dropAttrIndex) await store.command(`ALTER TABLE ${db}.${table} DROP INDEX idx_attr_values`)
    const c0 = process.cpuUsage()
    const t0 = performance.now()
    await load(v, table)
    const seconds = (performance.now() - t0) / 1000
    const c = process.cpuUsage(c0)
    wall.set(v.name, [...(wall.get(v.name) ?? []), seconds])
    cpu.set(v.name, [...(cpu.get(v.name) ?? []), (c.user + c.system) / 1e6])
    await store.command(`DROP TABLE ${db}.${table} SYNC`)
  }
}
const base = percentile(wall.get(variants[0]?.name as string) as number[], 50)
console.log(`${ROWS} rows of the default traffic shape, ${REPS} alternating repetitions, merges stopped; median per variant`)
console.log(`${'variant'.padEnd(62)} ${'B/row'.padStart(6)} ${'rows/s'.padStart(8)} ${'CPU s'.padStart(6)} ${'CPU s/M'.padStart(8)}  vs JSONEachRow`)
for (const v of variants) {
  const w = percentile(wall.get(v.name) as number[], 50)
  const c = percentile(cpu.get(v.name) as number[], 50)
  const payload = v.load === 'engine rows' ? payloads.get(v.format as Format) as Buffer : v.load === 'previous pipeline, file' ? previousPayload : pipelinePayload
  const bytes = payload.byteLength / ROWS
  console.log(`${v.name.padEnd(62)} ${bytes.toFixed(0).padStart(6)} ${(ROWS / w).toFixed(0).padStart(8)} ${c.toFixed(2).padStart(6)} ${(c / (ROWS / 1e6)).toFixed(2).padStart(8)}  ${(base / w).toFixed(2)}x`)
}
await store.close()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
