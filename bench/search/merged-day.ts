// The newest page across every resource on a merged day. A generated set's newest
// lines sit in a compact insert part; once merges fold a day into one large (wide)
// part, the page reads a row or two in each resource's granules of every column
// file. Two twins of the newest day, merged: one with the engine's default
// compressed blocks (64 KiB at least), one with the table's own (migration 8), and
// the route's statements replayed on each, with the block cache and without
// (README: "A merged day").
import type { QueryParams, QueryResult } from '../../ingest/index.ts'
import { percentile, summarize } from '../lib/stats.ts'
import { withoutCache } from './baseline.ts'

interface Engine {
  query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>>
  command(sql: string, params?: QueryParams): Promise<unknown>
}
export interface Statement { sql: string; params?: QueryParams }

const ENGINE_DEFAULT_BLOCK = 65_536

const p95 = (values: readonly number[]) => percentile(values, 95)

async function time(engine: Engine, statements: readonly Statement[]): Promise<number> {
  const t0 = performance.now()
  for (const s of statements) await engine.query(s.sql, s.params)
  return performance.now() - t0
}

async function twin(engine: Engine, db: string, name: string, blockBytes: number | null): Promise<string> {
  const table = `${db}.${name}`
  await engine.command(`DROP TABLE IF EXISTS ${table} SYNC`)
  await engine.command(`CREATE TABLE ${table} AS ${db}.logs`)
  if (blockBytes !== null) await engine.command(`ALTER TABLE ${table} MODIFY SETTING min_compress_block_size = ${blockBytes}`)
  const t0 = performance.now()
  const c0 = process.cpuUsage()
  await engine.command(`INSERT INTO ${table} SELECT * FROM ${db}.logs WHERE toDate(timestamp) = (SELECT max(toDate(timestamp)) FROM ${db}.logs)`)
  await engine.command(`OPTIMIZE TABLE ${table} FINAL`)
  const c = process.cpuUsage(c0)
  const f = (await engine.query<{ n: string; type: string; rows: string; bytes: string }>(
    `SELECT count() AS n, any(part_type) AS type, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = {d:String} AND table = {t:String} AND active`,
    { d: db, t: name })).rows[0]
  return `${f?.n} ${f?.type} part, ${Number(f?.rows).toLocaleString('en')} rows, ${(Number(f?.bytes) / 2 ** 20).toFixed(1)} MiB; copy and merge ${((performance.now() - t0) / 1000).toFixed(1)} s, ${((c.user + c.system) / 1e6).toFixed(1)} CPU s`
}

/**
 * Replays `statements` (the route's, on `${db}.logs`) on the set's own layout and on
 * two merged twins of its newest day; prints p50/p95 with and without the block cache.
 */
export async function mergedDay(engine: Engine, db: string, statements: readonly Statement[], runs: number, out: (s: string) => void): Promise<void> {
  const layouts = [
    { name: 'the set as generated (newest part compact)', table: `${db}.logs`, facts: '', baseline: false },
    { name: `merged day, default blocks (${ENGINE_DEFAULT_BLOCK / 1024} KiB)`, table: `${db}.bench_merged_default`, facts: await twin(engine, db, 'bench_merged_default', ENGINE_DEFAULT_BLOCK), baseline: true },
    { name: 'merged day, the table\'s blocks (migration 8)', table: `${db}.bench_merged_product`, facts: await twin(engine, db, 'bench_merged_product', null), baseline: false },
  ]
  const on = (table: string, cached: boolean) => statements.map((s) => ({
    sql: (cached ? s.sql : withoutCache(s.sql)).replaceAll(`${db}.logs `, `${table} `),
    params: s.params,
  }))
  out('')
  out(`all resources, newest 100, the route's ${statements.length} statement(s) straight in chdb, ${runs} runs each, ms:`)
  out(`${'layout'.padEnd(46)} ${'cached p50'.padStart(10)} ${'p95'.padStart(7)} ${'uncached p50'.padStart(12)} ${'p95'.padStart(7)} ${'uncached ratio'.padStart(14)}`)
  // The raw baseline's uncached p50, once its layout has run (the ratio column).
  let baseP50: number | null = null
  for (const l of layouts) {
    // Each layout's cached runs back to back (the first warms the cache, and is left out):
    // alternated, a layout's blocks would evict the other's and the figures show the mix.
    const cached: number[] = []
    for (let i = 0; i <= runs; i++) {
      const t = await time(engine, on(l.table, true))
      if (i > 0) cached.push(t)
    }
    const uncached: number[] = []
    for (let i = 0; i < runs; i++) uncached.push(await time(engine, on(l.table, false)))
    if (l.baseline) baseP50 = summarize(uncached).p50
    const ratio = baseP50 === null ? '' : (summarize(uncached).p50 / baseP50).toFixed(2)
    out(`${l.name.padEnd(46)} ${summarize(cached).p50.toFixed(1).padStart(10)} ${p95(cached).toFixed(1).padStart(7)} ${summarize(uncached).p50.toFixed(1).padStart(12)} ${p95(uncached).toFixed(1).padStart(7)} ${ratio.padStart(14)}`)
    if (l.facts !== '') out(`  ${l.facts}`)
  }
  for (const l of layouts.slice(1)) await engine.command(`DROP TABLE ${l.table} SYNC`)
}
