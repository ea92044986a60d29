// One count of the lines matching a filter over a time range, with the newest
// few of them, in a single query (the `log` check of the monitor runs one per
// evaluation). The filter's conditions are the search's own (sql.ts), so the
// primary key, the daily partitions and the text and trace indexes apply.
import { severityNameOf, type LogStore, type QueryParams } from '../ingest/index.ts'
import { formatNs } from '../core/index.ts'
import { parseFilter } from './params.ts'
import { filterConditions, indexBacked } from './sql.ts'
import type { LogFilter } from './filters.ts'

export interface CountedLines {
  count: number
  /** Newest first: time (RFC 3339, nanoseconds), level name ('' when unset), message (first 1000 characters). */
  samples: { time: string; severity: string; message: string }[]
}

/** The filters a log check takes (the query route's q, severity, trace_id). */
export interface CountFilters {
  q?: string
  severity?: string
  trace_id?: string
}

export const COUNT_SAMPLES = 5

/** Lines of one resource matching `filters` in [startMs, endMs). Throws when the filters are invalid or the store fails. */
export async function countMatchingLines(
  store: LogStore, workspaceId: string, resourceId: string, filters: CountFilters, startMs: number, endMs: number, timeoutMs: number,
): Promise<CountedLines> {
  return countFiltered(store, countFilter(workspaceId, resourceId, filters, startMs, endMs), timeoutMs)
}

/** The search filter of one check's count over [startMs, endMs); throws when the filters are invalid. */
export function countFilter(workspaceId: string, resourceId: string, filters: CountFilters, startMs: number, endMs: number): LogFilter {
  const parsed = parseFilter({
    workspaceId, resourceIds: [resourceId], start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString(),
    severity: filters.severity, text: filters.q, traceId: filters.trace_id,
  }, { start: 'start', end: 'end', severity: 'severity', text: 'q', traceId: 'trace_id' })
  if (!parsed.ok) throw new Error(`invalid log query: ${parsed.problems.map((p) => `${p.param}: ${p.msg}`).join('; ')}`)
  return parsed.filter
}

export async function countFiltered(store: LogStore, f: LogFilter, timeoutMs: number): Promise<CountedLines> {
  const params: QueryParams = {}
  const where = filterConditions(f, params)
  // The engine stops the query at the check's timeout (a number of ours, never a request's text). One thread:
  // a window of one resource is a granule or two, and the threads of a parallel plan cost more than they save
  // (bench/monitor/README.md "Log checks": 33 -> 24 ms CPU per count).
  const seconds = Math.max(1, Math.ceil(timeoutMs / 1000))
  const settings = [`max_execution_time = ${seconds}`, 'max_threads = 1', ...(indexBacked(f) ? ['use_skip_indexes_on_data_read = 0'] : [])]
  const sql = `SELECT count() AS n, groupArraySorted(${COUNT_SAMPLES})(${SAMPLE_TUPLE}) AS top
    FROM ${store.database}.logs WHERE ${where.join(' AND ')} SETTINGS ${settings.join(', ')}`
  const r = await store.query<{ n: string | number; top: SampleTuple[] }>(sql, params)
  const row = r.rows[0]
  if (row === undefined) return { count: 0, samples: [] }
  return { count: Number(row.n), samples: samplesOf(row.top) }
}

// groupArraySorted keeps only the five smallest keys while it counts: the negated time makes them the newest.
export const SAMPLE_TUPLE = '(-toUnixTimestamp64Nano(timestamp), severity_number, substring(message, 1, 1000))'
export type SampleTuple = [string | number, number, string]

export function samplesOf(top: readonly SampleTuple[]): CountedLines['samples'] {
  return top.map(([negNs, sev, message]) => ({ time: formatNs(-BigInt(negNs)), severity: severityNameOf(Number(sev)), message }))
}
