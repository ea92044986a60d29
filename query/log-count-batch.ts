// The counts of many log checks in one statement: one scan over the union of
// their (resource, time range) scopes, a countIf per check holding that
// check's own conditions (the search's, sql.ts). A count per statement cost
// the embedded engine 12-18 ms of CPU whatever it read (bench/monitor/README.md
// "Log checks"); the checks due within a few tens of milliseconds share that.
import type { LogStore, QueryParams } from '../ingest/index.ts'
import { filterConditions } from './sql.ts'
import type { LogFilter } from './filters.ts'

// The scope of a filter: the conditions the primary key and partitions answer.
const SCOPE = /^(workspace_id|resource_id|timestamp) /

/** Each filter's count, in order, from one statement; throws (for all of them) when the store fails. */
export async function countBatch(store: LogStore, filters: readonly LogFilter[], timeoutMs: number): Promise<number[]> {
  if (filters.length === 0) return []
  const params: QueryParams = {}
  const counts: string[] = []
  const scopes: string[] = []
  for (let k = 0; k < filters.length; k++) {
    const own: QueryParams = {}
    const where = filterConditions(filters[k] as LogFilter, own)
    // Each filter's parameters get its own prefix: the SQL text is ours (values travel only as parameters), so every `{name:` is a parameter.
    const rename = (c: string) => c.replace(/\{(\w+):/g, (_, n: string) => `{b${k}_${n}:`)
    for (const [n, v] of Object.entries(own)) params[`b${k}_${n}`] = v
    // The scope first: the text conditions run only on the rows of this check's resource and range.
    counts.push(`countIf(${where.map(rename).join(' AND ')}) AS n${k}`)
    scopes.push(`(${where.filter((c) => SCOPE.test(c)).map(rename).join(' AND ')})`)
  }
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000))
  // One thread (see log-count.ts); the WHERE holds only the scopes, so the text and trace skip indexes have nothing to pick.
  const sql = `SELECT ${counts.join(', ')} FROM ${store.database}.logs WHERE ${scopes.join(' OR ')}` +
    ` SETTINGS max_execution_time = ${seconds}, max_threads = 1`
  const r = await store.query<Record<string, string | number>>(sql, params)
  const row = r.rows[0]
  return filters.map((_, k) => Number(row?.[`n${k}`] ?? 0))
}
