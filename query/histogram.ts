// Log volume over a time range: counts per time bucket and severity level, one
// aggregate query. The bucket width is picked from the range so a chart gets
// about the number of bars it asked for, on round widths (1 s .. 1 day).
import type { LogStore, QueryParams } from '../ingest/index.ts'
import { filterConditions } from './sql.ts'
import type { LogFilter } from './filters.ts'

/** Bucket widths, seconds: the smallest one giving at most the asked number of buckets wins. */
export const BUCKET_STEPS_S = [1, 2, 5, 10, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200, 10_800, 21_600, 43_200, 86_400] as const
export const HISTOGRAM_MAX_BUCKETS = 500
export const HISTOGRAM_DEFAULT_BUCKETS = 120
/** The widest range a histogram covers (a year: far past any retention). */
export const HISTOGRAM_MAX_RANGE_MS = 366 * 86_400_000
export const HISTOGRAM_LEVELS = ['UNSET', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const

export interface HistogramBucket {
  /** Bucket start, ISO 8601. */
  start: string
  total: number
  counts: Record<(typeof HISTOGRAM_LEVELS)[number], number>
}

export interface Histogram {
  start: string
  end: string
  bucket_seconds: number
  buckets: HistogramBucket[]
  total: number
}

/** The width for a range and a wanted bucket count: the smallest step that fits, else a whole number of days. */
export function bucketSeconds(rangeMs: number, maxBuckets: number): number {
  for (const s of BUCKET_STEPS_S) if (Math.ceil(rangeMs / (s * 1000)) <= maxBuckets) return s
  return 86_400 * Math.ceil(rangeMs / (86_400_000 * maxBuckets))
}

// OTLP severity numbers to the six level names (0: unset), as an index into HISTOGRAM_LEVELS.
export const LEVEL_SQL = `multiIf(severity_number >= 21, 6, severity_number >= 17, 5, severity_number >= 13, 4,
  severity_number >= 9, 3, severity_number >= 5, 2, severity_number >= 1, 1, 0)`

/** Counts of the filter's rows per bucket and level over [startMs, endMs); every bucket is listed, empty ones with zeros. */
export async function logHistogram(store: LogStore, f: LogFilter, startMs: number, endMs: number, maxBuckets: number): Promise<Histogram> {
  const step = bucketSeconds(endMs - startMs, maxBuckets)
  const stepMs = step * 1000
  // Buckets are aligned to whole steps since the epoch, so a zoomed chart's bars line up with the wider one's.
  const first = Math.floor(startMs / stepMs) * stepMs
  const params: QueryParams = {}
  const where = filterConditions({ ...f, startNs: BigInt(startMs) * 1_000_000n, endNs: BigInt(endMs) * 1_000_000n }, params)
  params.step = stepMs
  const sql = `SELECT toString(intDiv(toUnixTimestamp64Milli(timestamp), {step:UInt64}) * {step:UInt64}) AS b, ${LEVEL_SQL} AS lvl, count() AS n
    FROM ${store.database}.logs WHERE ${where.join(' AND ')} GROUP BY b, lvl ORDER BY b`
  const r = await store.query<{ b: string; lvl: number; n: string | number }>(sql, params)
  const buckets: HistogramBucket[] = []
  const index = new Map<number, HistogramBucket>()
  for (let t = first; t < endMs; t += stepMs) {
    const b: HistogramBucket = { start: new Date(t).toISOString(), total: 0, counts: { UNSET: 0, TRACE: 0, DEBUG: 0, INFO: 0, WARN: 0, ERROR: 0, FATAL: 0 } }
    buckets.push(b)
    index.set(t, b)
  }
  let total = 0
  for (const row of r.rows) {
    const b = index.get(Number(row.b))
    const level = HISTOGRAM_LEVELS[row.lvl]
    if (b === undefined || level === undefined) continue
    const n = Number(row.n)
    b.counts[level] += n
    b.total += n
    total += n
  }
  return { start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString(), bucket_seconds: step, buckets, total }
}
