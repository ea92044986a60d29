// The counts of many log checks in one statement per resource: one scan over the
// hull of their time ranges on it, a countIf per check holding that
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
  const table = ` FROM ${store.database}.logs WHERE `
  const tail = ` SETTINGS ${settings(Math.max(1, Math.ceil(timeoutMs / 1000)))}`
  // HULL_BYTES: the WHERE, written once the counts are chosen.
  let bytes = 'SELECT '.length + table.length + tail.length + HULL_BYTES
  let k = from
  const scope0 = keys[order[from] as number]
  const first = items[order[from] as number] as BatchedCount
  let startNs = first.filter.startNs
  let endNs = first.filter.endNs
  for (; k < order.length; k++) {
    const i = order[k] as number
    const item = items[i] as BatchedCount
    if (keys[i] !== scope0) break
    const own: QueryParams = {}
    // Each filter's parameters get its own prefix: the SQL text is ours (values travel only as parameters), so every `{name:` is a parameter.
    // The scope first: the text conditions run only on the rows of this check's resource and range.
    const cond = filterConditions(item.filter, own).map((c) => prefixed(c, `b${i}_`)).join(' AND ')
    const count = `countIf(${cond}) AS n${i}` + (item.samples ? `, groupArraySortedIf(${COUNT_SAMPLES})(${SAMPLE_TUPLE}, ${cond}) AS s${i}` : '')
    const more = Buffer.byteLength(count) + 2
    if (k > from && bytes + more > MAX_STATEMENT_BYTES) break
    bytes += more
    counts.push(count)
    for (const [n, v] of Object.entries(own)) params[`b${i}_${n}`] = v
    startNs = startNs === null || item.filter.startNs === null ? null : (item.filter.startNs < startNs ? item.filter.startNs : startNs)
    endNs = endNs === null || item.filter.endNs === null ? null : (item.filter.endNs > endNs ? item.filter.endNs : endNs)
  }
  // The WHERE is the scope's hull (its resources, from the earliest start to the latest end): the windows of checks
  // evaluated together all end about now, so the hull is their union, and one range costs the engine less to plan
  // than an OR of one per count (bench/monitor/README.md "Log checks").
  const own: QueryParams = {}
  const hull = filterConditions({ ...first.filter, startNs, endNs, minSeverity: null, text: null, traceId: null, attrs: undefined }, own)
  for (const [n, v] of Object.entries(own)) params[`h_${n}`] = v
  return { sql: `SELECT ${counts.join(', ')}${table}${hull.map((c) => prefixed(c, 'h_')).join(' AND ')}${tail}`, params, end: k }
}

/** Room kept for the hull's conditions (a workspace, a resource list, two bounds). */
const HULL_BYTES = 512

const prefixed = (c: string, prefix: string) => c.replace(/\{(\w+):/g, (_, n: string) => `{${prefix}${n}:`)
