// The counts of many log checks in one statement: one scan over the union of
// their (resource, time range) scopes, a countIf per check holding that
// check's own conditions (the search's, sql.ts). A count per statement cost
// the embedded engine 12-18 ms of CPU whatever it read (bench/monitor/README.md
// "Log checks"); the checks due within a few tens of milliseconds share that.
import type { LogStore, QueryParams } from '../ingest/index.ts'
import { filterConditions } from './sql.ts'
import type { LogFilter } from './filters.ts'
import { COUNT_SAMPLES, SAMPLE_TUPLE, samplesOf, type CountedLines, type SampleTuple } from './log-count.ts'

export interface BatchedCount {
  filter: LogFilter
  /** Whether to read the five newest matching lines too (an aggregate over this count's matching rows only). */
  samples: boolean
}

// The scope of a filter: the conditions the primary key and partitions answer.
const SCOPE = /^(workspace_id|resource_id|timestamp) /

/** Each count (and its lines when asked for), in order, from one statement; throws (for all of them) when the store fails. */
export async function countBatch(store: LogStore, items: readonly BatchedCount[], timeoutMs: number): Promise<CountedLines[]> {
  if (items.length === 0) return []
  const params: QueryParams = {}
  const counts: string[] = []
  const scopes: string[] = []
  for (let k = 0; k < items.length; k++) {
    const item = items[k] as BatchedCount
    const own: QueryParams = {}
    const where = filterConditions(item.filter, own)
    // Each filter's parameters get its own prefix: the SQL text is ours (values travel only as parameters), so every `{name:` is a parameter.
    const rename = (c: string) => c.replace(/\{(\w+):/g, (_, n: string) => `{b${k}_${n}:`)
    for (const [n, v] of Object.entries(own)) params[`b${k}_${n}`] = v
    // The scope first: the text conditions run only on the rows of this check's resource and range.
    const cond = where.map(rename).join(' AND ')
    counts.push(`countIf(${cond}) AS n${k}`)
    if (item.samples) counts.push(`groupArraySortedIf(${COUNT_SAMPLES})(${SAMPLE_TUPLE}, ${cond}) AS s${k}`)
    scopes.push(`(${where.filter((c) => SCOPE.test(c)).map(rename).join(' AND ')})`)
  }
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000))
  // One thread (see log-count.ts); the WHERE holds only the scopes, so the text and trace skip indexes have nothing to pick.
  const sql = `SELECT ${counts.join(', ')} FROM ${store.database}.logs WHERE ${scopes.join(' OR ')}` +
    ` SETTINGS max_execution_time = ${seconds}, max_threads = 1`
  const r = await store.query<Record<string, string | number | SampleTuple[]>>(sql, params)
  const row = r.rows[0]
  return items.map((item, k) => ({
    count: Number(row?.[`n${k}`] ?? 0),
    samples: item.samples ? samplesOf((row?.[`s${k}`] ?? []) as SampleTuple[]) : [],
  }))
}
