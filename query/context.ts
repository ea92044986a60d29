// The lines around a hit: the N lines before and after one event of one
// resource, in time order. The older side is a continued search page (the
// windowed keyset search, started at the event); the newer side reads
// windows forward from it, widening until enough lines are found.
import type { LogStore, QueryParams } from '../ingest/index.ts'
import { positionOf, toEvent, type EventRow, type LogEvent } from './event.ts'
import type { LogFilter, Position } from './filters.ts'
import type { LogSearch } from './search.ts'
import { EVENT_COLUMNS, filterConditions } from './sql.ts'

/** Lines on either side, at most. */
export const CONTEXT_MAX = 200

export interface ContextRequest {
  workspaceId: string
  resourceId: string
  eventId: string
  before: number
  after: number
  /** Only lines of the hit's resource.service.name. */
  sameService: boolean
}

export interface LogContext {
  /** Oldest first, ending right before the event. */
  before: LogEvent[]
  event: LogEvent
  /** Oldest first, starting right after the event. */
  after: LogEvent[]
  /** Whether older lines exist beyond `before` (page outward from before[0]). */
  more_before: boolean
  /** Whether newer lines exist beyond `after` (page outward from the last of after). */
  more_after: boolean
}

const MS = 1_000_000n
const DAY = 86_400_000n * MS
const FIRST_SPAN = 60_000n * MS

const ns = (name: string) => `fromUnixTimestamp64Nano({${name}:Int64})`

/** The event and its neighbours; null when the resource holds no event with that id. */
export async function logContext(store: LogStore, search: LogSearch, r: ContextRequest, now = BigInt(Date.now()) * MS): Promise<LogContext | null> {
  const base: LogFilter = { workspaceId: r.workspaceId, resourceIds: [r.resourceId], startNs: null, endNs: null, minSeverity: null, text: null, traceId: null }
  const params: QueryParams = { eid: r.eventId }
  // A sender's repeated id is stored once per resource; should two rows share it, the newest is the hit.
  const found = await store.query<EventRow>(
    `SELECT ${EVENT_COLUMNS} FROM ${store.database}.logs WHERE ${filterConditions(base, params).join(' AND ')} AND event_id = {eid:String}
     ORDER BY timestamp DESC LIMIT 1`, params)
  const row = found.rows[0]
  if (row === undefined) return null
  const event = toEvent(row)
  const filter: LogFilter = r.sameService
    ? { ...base, attrs: [{ scope: 'resource', key: 'service.name', value: event.resource_attributes['service.name'] ?? '', negate: false }] }
    : base
  const at = positionOf(row)
  const older = r.before === 0
    ? { events: [], more: await olderExists(store, filter, at) }
    : await olderLines(search, filter, at, r.before)
  const newer = await newerLines(store, filter, at, r.after, now)
  return { before: older.events, event, after: newer.events, more_before: older.more, more_after: newer.more }
}

async function olderLines(search: LogSearch, filter: LogFilter, at: Position, n: number): Promise<{ events: LogEvent[]; more: boolean }> {
  // A page continued from the event is exactly "the lines before it", newest first.
  const page = await search.page({ filter, limit: n, after: at, hintNs: FIRST_SPAN })
  return { events: page.events.reverse(), more: page.next !== null }
}

/** Lines after the event, oldest first: windows [lo, lo + span) forward, each 8x wider, up to a day past now. */
async function newerLines(store: LogStore, filter: LogFilter, at: Position, n: number, now: bigint): Promise<{ events: LogEvent[]; more: boolean }> {
  const want = n + 1
  const rows: EventRow[] = []
  const ceiling = (now > at.tsNs ? now : at.tsNs) + DAY
  let lo = at.tsNs
  let span = FIRST_SPAN
  let first = true
  for (;;) {
    const hi = lo + span >= ceiling ? null : lo + span
    const params: QueryParams = {}
    const where = filterConditions(filter, params)
    where.push(`timestamp >= ${ns('lo')}`)
    params.lo = lo.toString()
    if (hi !== null) {
      where.push(`timestamp < ${ns('hi')}`)
      params.hi = hi.toString()
    }
    if (first) {
      // Strictly after the event in (timestamp, event_id) order: the reverse of the search's within one resource.
      where.push(`(timestamp > ${ns('a_ts')} OR event_id > {a_eid:String})`)
      params.a_ts = at.tsNs.toString()
      params.a_eid = at.eventId
    }
    params.limit = want - rows.length
    const r = await store.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${store.database}.logs WHERE ${where.join(' AND ')} ORDER BY timestamp, event_id LIMIT {limit:UInt32}`, params)
    for (const x of r.rows) rows.push(x)
    if (rows.length >= want || hi === null) break
    lo = hi
    span *= 8n
    first = false
  }
  const events: LogEvent[] = []
  for (let i = 0; i < Math.min(n, rows.length); i++) events.push(toEvent(rows[i] as EventRow))
  return { events, more: rows.length > n }
}

/** Whether any line sorts older than the position (before=0: only the "more" answer is wanted). */
async function olderExists(store: LogStore, filter: LogFilter, at: Position): Promise<boolean> {
  const params: QueryParams = { a_ts: at.tsNs.toString(), a_eid: at.eventId }
  const where = filterConditions(filter, params)
  where.push(`timestamp <= ${ns('a_ts')}`, `(timestamp < ${ns('a_ts')} OR event_id < {a_eid:String})`)
  const r = await store.query<{ x: number }>(`SELECT 1 AS x FROM ${store.database}.logs WHERE ${where.join(' AND ')} LIMIT 1`, params)
  return r.rows.length > 0
}
