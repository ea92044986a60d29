// Keyset pages, newest first, read window by window. The table is ordered by
// (workspace, resource, timestamp), so a narrow time window is a narrow range
// of the primary key (and of the daily partitions): the newest page of a busy
// resource costs one small window, not a sort of seven days. Windows widen
// from what each one finds; a filter backed by an index (text, trace id)
// jumps to the whole remaining range once the newest window comes up empty,
// and an attribute value looked up in the index does too, under a bound on
// the rows it may read.
import type { LogStore, QueryResult } from '../ingest/index.ts'
import { INDEX_GRANULARITY, isTooManyRowsError, SEVERITY_RANGES } from '../ingest/index.ts'
import { InvalidOptionError } from '../core/index.ts'
import { positionOf, toEvent, type EventRow, type LogEvent } from './event.ts'
import type { LogFilter, Position } from './filters.ts'
import { attrIndexed, indexBacked, windowQuery, type Window } from './sql.ts'

export interface SearchOptions {
  store: LogStore
  /** Days the store keeps; windows reaching past this (plus a day) run open-ended. Default 7. */
  retentionDays?: number
  /** Width of a first page's first window, ms. Default 15 minutes. */
  firstWindowMs?: number
  /** Current time, ns (tests). */
  now?: () => bigint
  /**
   * Rows an attribute value's jump over the whole range may read (an integer >= 1);
   * past it the value is common there and windows widen from the first one instead.
   * Default 16 granules (32,768 rows).
   */
  jumpMaxRows?: number
}

export interface PageRequest {
  filter: LogFilter
  /** Events to return, at most. */
  limit: number
  /** Continue after this position (from a cursor). */
  after: Position | null
  /** Width (ns) to try first, from the previous page's cursor. */
  hintNs: bigint | null
}

export interface SearchStats {
  /** ClickHouse queries run for this page. */
  queries: number
  /** Rows the engine read, summed over the queries whose answer was used. */
  rowsRead: number
  /** Time spent in the store, ms. */
  storeMs: number
  /** The whole range's bound statement run beside the first window: its outcome, when one ran. */
  beside?: BesideOutcome
}

/**
 * `answered`: the page is its rows; `refused`: more than the bound matched (a common
 * term), windows went on; `failed`: the engine gave an error, windows went on;
 * `unused`: the first window held lines, so the page went on without it.
 */
export type BesideOutcome = 'answered' | 'refused' | 'failed' | 'unused'

export interface Page {
  events: LogEvent[]
  /** Where the next page starts; null when this was the last. */
  next: { after: Position; hintNs: bigint } | null
  stats: SearchStats
}

const MS = 1_000_000n
const DAY = 86_400_000n * MS
const MIN_WIDTH = MS
const MAX_WIDTH = 400n * DAY
/** The next window's reach after an empty one for an attribute value looked up in the index. */
const FAR_WIDENING = 64n
/** The default bound of an attribute value's jump: 16 granules. */
const JUMP_MAX_ROWS = 16 * INDEX_GRANULARITY

export class LogSearch {
  readonly #store: LogStore
  readonly #horizonNs: bigint
  readonly #firstNs: bigint
  readonly #now: () => bigint
  readonly #jumpMaxRows: number

  constructor(o: SearchOptions) {
    const days = o.retentionDays ?? 7
    if (!Number.isInteger(days) || days < 1) throw new InvalidOptionError('retentionDays', 'must be an integer >= 1')
    const first = o.firstWindowMs ?? 15 * 60_000
    if (!(first >= 1)) throw new InvalidOptionError('firstWindowMs', 'must be >= 1')
    this.#store = o.store
    // Whole daily partitions are dropped by TTL, so rows may outlive retention by a day.
    this.#horizonNs = BigInt(days + 1) * DAY
    this.#firstNs = BigInt(Math.round(first)) * MS
    this.#now = o.now ?? (() => BigInt(Date.now()) * MS)
    const jump = o.jumpMaxRows ?? JUMP_MAX_ROWS
    if (!Number.isSafeInteger(jump) || jump < 1) throw new InvalidOptionError('jumpMaxRows', 'must be an integer >= 1')
    this.#jumpMaxRows = jump
  }

  async page(req: PageRequest): Promise<Page> {
    const f = req.filter
    const want = req.limit + 1
    const stats: SearchStats = { queries: 0, rowsRead: 0, storeMs: 0 }
    const rows: EventRow[] = []
    // Windows are [ref - span, ref - previous span); the first one's top is the
    // cursor (keyset), the range's end, or open (events may be ahead of our clock).
    const now = this.#now()
    const ref = req.after?.tsNs ?? min(f.endNs ?? now, now + DAY)
    const floor = f.startNs
    const horizon = now - this.#horizonNs
    const indexed = indexBacked(f)
    const far = attrIndexed(f)
    let hi: bigint | null = req.after === null ? f.endNs : null
    let after = req.after
    // A trace is a handful of lines close in time, and its bloom filter picks their
    // granules: one window over the whole range costs one lookup, a narrow first one two.
    let span = f.traceId !== null ? MAX_WIDTH : clamp(req.hintNs ?? this.#firstNs * severityWidening(f.minSeverity) * termWidening(f))
    const firstSpan = span
    // This window is an attribute value's jump over the whole range, bounded to #jumpMaxRows rows read.
    let jump = false
    const firstLo = ref - span
    const firstIsLast = floor !== null ? firstLo <= floor : firstLo <= horizon
    // An index-led term or value on a first page: the whole range, bounded like the jump and
    // refused before reading past the bound, runs beside the first window. When the first
    // window comes back short, a rare term's page is that statement's rows: one statement's
    // time instead of two (bench/search README, 2026-11-28 late session).
    const beside = req.after === null && f.traceId === null && (indexed || far) && !firstIsLast
      ? this.#beside(f, hi, want)
      : null
    let first = true
    for (;;) {
      let lo: bigint | null = ref - span
      let last = false
      if (floor !== null && lo <= floor) {
        lo = null // the range's own start bounds it
        last = true
      } else if (floor === null && lo <= horizon) {
        lo = null
        last = true
      }
      const w: Window = { loNs: lo, hiNs: hi, after }
      // An index-led attribute value that an earlier window did not find is rare so far: choosing
      // its granules up front took 30% less time on the needle's wide window (bench/search README);
      // on a common value's first window (all resources, 2 h) it did not pay, so only then.
      const q = windowQuery(this.#store.database, f, w, want - rows.length, indexed || (far && stats.queries > 0 && rows.length === 0), jump ? this.#jumpMaxRows : null)
      let r: QueryResult<EventRow>
      try {
        r = await this.#store.query<EventRow>(q.sql, q.params)
      } catch (err) {
        if (!jump || !isTooManyRowsError(err)) throw err
        // Common in the range after all: widen from the first window's floor as before the jump.
        stats.queries++
        jump = false
        hi = ref - firstSpan
        span = firstSpan * FAR_WIDENING
        continue
      }
      stats.queries++
      stats.rowsRead += r.rowsRead
      stats.storeMs += r.elapsedMs
      for (const row of r.rows) rows.push(row)
      const wasFirst = first
      first = false
      if (wasFirst && beside !== null) {
        stats.queries++
        // Waited for only after an empty first window: one with lines in it is likely a common
        // word's, and the windows after it find the rest without waiting for a refusal.
        if (rows.length > 0) {
          stats.beside = 'unused'
        } else {
          const b = await beside
          stats.beside = b === 'refused' || b === 'failed' ? b : 'answered'
          if (typeof b !== 'string') {
            // The whole range holds the first window: its rows are the page.
            rows.length = 0
            for (const row of b.rows) rows.push(row)
            stats.rowsRead += b.rowsRead
            stats.storeMs += b.elapsedMs
            break
          }
        }
      }
      if (rows.length >= want || last) break
      // An index-led term or attribute value the first window did not find jumps to the whole
      // remaining range; with the top left open as it was, the engine took 20-25 % less time
      // over 7 days than bounded at the first window's floor (bench/search README). After a
      // refused statement beside it too: reading in time order, the jump may still stop early.
      const leap = (indexed || far) && rows.length === 0 && wasFirst
      if (!(leap && hi === null && after === null)) hi = lo
      after = null
      // An attribute value's jump is bounded: a value common in older days would read granule
      // after granule of every part (the needle: 3 statements -> 2, bench/search README).
      jump = leap && !indexed
      span = leap ? span + MAX_WIDTH : nextSpan(span, rows.length, want, far)
    }
    const events: LogEvent[] = []
    const n = Math.min(rows.length, req.limit)
    for (let i = 0; i < n; i++) events.push(toEvent(rows[i] as EventRow))
    if (rows.length <= req.limit) return { events, next: null, stats }
    const lastRow = rows[req.limit - 1] as EventRow
    const position = positionOf(lastRow)
    // The next page likely needs about as much time as this one covered.
    const covered = ref - position.tsNs
    return { events, next: { after: position, hintNs: clamp(covered + covered / 4n) }, stats }
  }

  /** The whole range's bound statement, started beside the first window: its rows, or why there are none. */
  #beside(f: LogFilter, hi: bigint | null, want: number): Promise<QueryResult<EventRow> | 'refused' | 'failed'> | null {
    const store = this.#store
    if (store.queryBeside === undefined) return null
    const q = windowQuery(store.database, f, { loNs: null, hiNs: hi, after: null }, want, true, this.#jumpMaxRows, true)
    // Settled either way, so a page that does not wait for it leaves no rejection unheard.
    return store.queryBeside<EventRow>(q.sql, q.params).then((r) => r, (err: unknown) => (isTooManyRowsError(err) ? 'refused' : 'failed'))
  }
}

/**
 * How much wider a first window is under a severity floor: the floor keeps a
 * fraction of the lines, so the narrow window would come back short and a
 * second query would follow. The factors assume a usual mix (about a tenth of
 * the lines WARN or worse, a few percent ERROR or worse, under one percent
 * FATAL: bench/search's mix); where a resource logs otherwise, the windows that
 * follow adapt to what the first one found, as without a floor.
 */
function severityWidening(minSeverity: number | null): bigint {
  if (minSeverity === null || minSeverity < SEVERITY_RANGES.WARN[0]) return 1n
  if (minSeverity < SEVERITY_RANGES.ERROR[0]) return 4n
  if (minSeverity < SEVERITY_RANGES.FATAL[0]) return 8n
  return 32n
}

/**
 * How much wider a first window is for a text term within one resource: a word of a
 * tenth of the lines left the 15-minute window of a busy resource short, and a second
 * window followed (one resource, bench/search: 53.7 against 29.8 ms p50 with 30 minutes);
 * across resources the narrow window already fills, and a wider one reads more
 * (47.8 against 56.9 ms with an hour). A rare term's page comes from the whole range
 * read beside the first window either way.
 */
function termWidening(f: LogFilter): bigint {
  return f.text !== null && indexBacked(f) && f.resourceIds?.length === 1 ? 2n : 1n
}

/**
 * The next window's reach from the reference, given what the windows so far
 * found; at least double, so the loop always ends at the horizon or the floor.
 */
function nextSpan(span: bigint, found: number, want: number, far: boolean): bigint {
  // An attribute value looked up in the index: a rare one is found in few windows,
  // a common one (a quarter of the lines) still stops early in a 16-hour window.
  if (found === 0) return far ? span * FAR_WIDENING : span * 8n
  // Rows arrive at about found/span: reach for the rest, with a margin, growing 2x..64x.
  const estimate = (span * BigInt(want) * 5n) / (BigInt(found) * 4n)
  return max(span * 2n, min(estimate, span * 64n))
}

function clamp(v: bigint): bigint {
  return v < MIN_WIDTH ? MIN_WIDTH : v > MAX_WIDTH ? MAX_WIDTH : v
}

function max(a: bigint, b: bigint): bigint {
  return a > b ? a : b
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}
