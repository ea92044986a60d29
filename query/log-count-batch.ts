// The counts of many log checks in one statement per resource: one scan over the
// union of their time ranges on it, a countIf per check holding that
// check's own conditions (the search's, sql.ts). A count per statement cost
// the embedded engine 12-18 ms of CPU whatever it read (bench/monitor/README.md
// "Log checks"); a resource's checks, due together, share that.
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

/**
 * The engine refuses a statement longer than `max_query_size` (256 KiB by default, checked
 * before a SETTINGS clause could raise it); a count of a text query with a level is about
 * 1.5 KiB, so a batch of 200 is cut into statements of at most this many bytes, run one after another.
 */
export const MAX_STATEMENT_BYTES = 192 * 1024

/** Each count (and its lines when asked for), in order, from as few statements as fit; throws (for all of them) when the store fails. */
export async function countBatch(store: LogStore, items: readonly BatchedCount[], timeoutMs: number): Promise<CountedLines[]> {
  // A statement per resource: every countIf runs over every row the statement reads, so counts of
  // ten resources in one statement cost as much as ten statements (bench/monitor/README.md).
  const keys = items.map(scopeKey)
  const order = items.map((_, i) => i).sort((a, b) => (keys[a] as string).localeCompare(keys[b] as string))
  const out = new Array<CountedLines>(items.length)
  let k = 0
  while (k < order.length) {
    const part = statementFor(store, items, keys, order, k, timeoutMs)
    const r = await store.query<Record<string, string | number | SampleTuple[]>>(part.sql, part.params)
    const row = r.rows[0]
    for (; k < part.end; k++) {
      const i = order[k] as number
      const item = items[i] as BatchedCount
      out[i] = {
        count: Number(row?.[`n${i}`] ?? 0),
        samples: item.samples ? samplesOf((row?.[`s${i}`] ?? []) as SampleTuple[]) : [],
      }
    }
  }
  return out
}

function scopeKey(item: BatchedCount): string {
  return `${item.filter.workspaceId}/${item.filter.resourceIds?.join(',') ?? ''}`
}

/**
 * One thread (see log-count.ts). The statement of ten counts spends more on its planning than
 * on its rows (a resource's window is a granule or two): the older query analyzer, with
 * evaluating each countIf's text conditions only on the rows its scope
 * kept (forced short-circuit), took a count from 7.0-8.6 to 5.5-6.7 ms of CPU (bench/monitor/README.md
 * "Log checks"; test/monitor/log-check-batch.test.ts holds every filter kind to its own query's count).
 */
function settings(seconds: number): string {
  return `max_execution_time = ${seconds}, max_threads = 1, enable_analyzer = 0, short_circuit_function_evaluation = 'force_enable'`
}

/** One statement for order[from..end): the counts of one scope, as many as MAX_STATEMENT_BYTES allows (at least one). */
function statementFor(
  store: LogStore, items: readonly BatchedCount[], keys: readonly string[], order: readonly number[], from: number, timeoutMs: number,
): { sql: string; params: QueryParams; end: number } {
  const params: QueryParams = {}
  const counts: string[] = []
  const scopes: string[] = []
  // The WHERE holds only the scopes, so the text and trace skip indexes have nothing to pick.
  const table = ` FROM ${store.database}.logs WHERE `
  const tail = ` SETTINGS ${settings(Math.max(1, Math.ceil(timeoutMs / 1000)))}`
  let bytes = 'SELECT '.length + table.length + tail.length
  let k = from
  const scope0 = keys[order[from] as number]
  for (; k < order.length; k++) {
    const i = order[k] as number
    const item = items[i] as BatchedCount
    if (keys[i] !== scope0) break
    const own: QueryParams = {}
    const where = filterConditions(item.filter, own)
    // Each filter's parameters get its own prefix: the SQL text is ours (values travel only as parameters), so every `{name:` is a parameter.
    const rename = (c: string) => c.replace(/\{(\w+):/g, (_, n: string) => `{b${i}_${n}:`)
    // The scope first: the text conditions run only on the rows of this check's resource and range.
    const cond = where.map(rename).join(' AND ')
    const count = `countIf(${cond}) AS n${i}` + (item.samples ? `, groupArraySortedIf(${COUNT_SAMPLES})(${SAMPLE_TUPLE}, ${cond}) AS s${i}` : '')
    const scope = `(${where.filter((c) => SCOPE.test(c)).map(rename).join(' AND ')})`
    const more = Buffer.byteLength(count) + Buffer.byteLength(scope) + 6
    if (k > from && bytes + more > MAX_STATEMENT_BYTES) break
    bytes += more
    counts.push(count)
    scopes.push(scope)
    for (const [n, v] of Object.entries(own)) params[`b${i}_${n}`] = v
  }
  return { sql: `SELECT ${counts.join(', ')}${table}${scopes.join(' OR ')}${tail}`, params, end: k }
}
