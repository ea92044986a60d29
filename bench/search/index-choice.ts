// The message index choice, by measurement (bench/search README): the same rows
// loaded into tables identical to \`logs\` but for their search indexes (none,
// tokenbf_v1, text on the message only), load cost and a rare-term search across
// all resources on the message, straight in chdb, against the product table.
import type { QueryParams, QueryResult } from '../../ingest/index.ts'
import { percentile, summarize } from '../lib/stats.ts'
import { rareLine, RARE_EVERY, type Shape } from './generate.ts'

export interface IndexChoiceInput {
  store: {
    query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>>
    command(sql: string, params?: QueryParams): Promise<unknown>
  }
  db: string
  ws: string
  shape: Shape
  runs: number
  /** The product table's load cost. */
  product: { wall: number; cpu: number }
  load(table: string): Promise<{ wall: number; cpu: number }>
  tableFacts(table: string): Promise<string>
  out(line: string): void
}

const ms = (v: number) => v.toFixed(1).padStart(7)
const p95 = (values: readonly number[]) => percentile(values, 95)

export async function indexChoice(o: IndexChoiceInput): Promise<void> {
  const rareCount = Math.floor(o.shape.rows / RARE_EVERY)
  o.out('')
  o.out('message index choice: the same rows into tables differing only in their search indexes; rare term across all resources, message only, SQL straight in chdb:')
  const variants = [
    { name: 'none', index: '', predicate: 'positionCaseInsensitive(message, {tok:String}) > 0' },
    { name: 'tokenbf_v1(32768, 3, 0) on lower(message)', index: 'INDEX idx_message lower(message) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1', predicate: 'hasToken(lower(message), {tok:String})' },
    { name: 'text on lower(message) only', index: "INDEX idx_message lower(message) TYPE text(tokenizer = 'splitByNonAlpha')", predicate: 'hasToken(lower(message), {tok:String})' },
  ]
  const rows: string[] = []
  const runQuery = async (table: string, predicate: string, i: number) => {
    const tok = rareLine(i % rareCount, o.shape).token
    const t0 = performance.now()
    const r = await o.store.query(`SELECT event_id, message FROM ${table} WHERE workspace_id = {ws:UUID} AND ${predicate} ORDER BY timestamp DESC, event_id DESC, resource_id DESC LIMIT 100`, { ws: o.ws, tok })
    return { ms: performance.now() - t0, read: r.rowsRead }
  }
  const measure = async (name: string, table: string, predicate: string, cost: { wall: number; cpu: number }, facts: string, runs: number) => {
    const t: number[] = []
    const read: number[] = []
    for (let i = 0; i < runs; i++) {
      const x = await runQuery(table, predicate, i)
      t.push(x.ms)
      read.push(x.read)
    }
    rows.push(`${name.padEnd(44)} load ${cost.wall.toFixed(1).padStart(6)} s wall, ${cost.cpu.toFixed(1).padStart(6)} CPU s (${(cost.cpu / o.product.cpu).toFixed(2)}x product)  rare term (${runs} runs) p50 ${ms(summarize(t).p50)} p95 ${ms(p95(t))} ms  rows read ${Math.round(summarize(read).p50)}  ${facts}`)
  }
  for (const v of variants) {
    const table = `${o.db}.bench_${v.name.replace(/[^a-z0-9]+/gi, '_').slice(0, 20)}`
    await o.store.command(`CREATE TABLE ${table} AS ${o.db}.logs`)
    // Same columns and order as the product table; only the search indexes differ.
    await o.store.command(`ALTER TABLE ${table} DROP INDEX idx_message`)
    await o.store.command(`ALTER TABLE ${table} DROP INDEX idx_attr_values`)
    if (v.index !== '') await o.store.command(`ALTER TABLE ${table} ADD ${v.index}`)
    const cost = await o.load(table)
    await measure(v.name, table, v.predicate, cost, await o.tableFacts(table.split('.')[1] as string), v.index === '' ? 3 : Math.min(o.runs, 20))
    await o.store.command(`DROP TABLE ${table} SYNC`)
  }
  await measure('product: text on message + attribute values', `${o.db}.logs`, 'hasToken(lower(message), {tok:String})', o.product, await o.tableFacts('logs'), Math.min(o.runs, 20))
  for (const r of rows) o.out(r)
}
