// The lines around a hit: the N lines before and after one event of one
// resource, in time order. One statement when the event's time is known (the
// caller gives it, as the console does, or the id names it, as every id Lookout
// derives does): both sides at once, a UNION ALL of an hour before and an hour
// after it, each side LIMIT N+1 for the "more" answer, the newer side starting at
// the hit and bringing it as its first line. Two for a sender's own id (the
// desktop's legacy route): the event's time by its id over the whole retention
// first. A side the hour leaves short
// continues outward: the older one as a search page (the windowed keyset
// search), the newer one through forward windows widening until enough.
import type { LogStore, QueryParams } from '../ingest/index.ts'
import { parseShownEventId } from './event-id.ts'
import { positionOf, toEvent, type EventRow, type LogEvent } from './event.ts'
import type { LogFilter, Position } from './filters.ts'
import type { LogSearch } from './search.ts'
import { EVENT_COLUMNS, filterConditions, INDEXED_SETTINGS, searchSettings } from './sql.ts'

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
  /** The event's timestamp (ns) as a search listed it, if the caller knows it; null: the time a derived id names, else the whole retention. */
  atNs?: bigint | null
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
/**
 * Reach of the first statement on each side. One resource's rows are read in
 * time order from the hit outward, so a wide window costs a busy resource no
 * more than a narrow one (the rows past the limit are not read), while a
 * narrow one sent a resource logging 40 lines a minute to a second statement
 * on each side (bench/search: 5 statements, 146 ms p95 at 20M lines).
 */
export const CONTEXT_SPAN_NS = 3_600_000n * MS

const ns = (name: string) => `fromUnixTimestamp64Nano({${name}:Int64})`

interface Side { events: LogEvent[]; more: boolean }

/** The event and its neighbours; null when the resource holds no event with that id. */
export async function logContext(store: LogStore, search: LogSearch, r: ContextRequest, now = BigInt(Date.now()) * MS): Promise<LogContext | null> {
  const base: LogFilter = { workspaceId: r.workspaceId, resourceIds: [r.resourceId], startNs: null, endNs: null, minSeverity: null, text: null, traceId: null }
  let row: EventRow | undefined
  // Both sides, when the first statement brought them with the hit.
  let sides: SidesWithHit | undefined
  // A derived id as shown names the line's time and its stored id (event-id.ts); the time given
  // comes first. Either is a hint: the statement checks the row.
  const named = parseShownEventId(r.eventId)
  const eventId = named?.storedId ?? r.eventId
  const times = [r.atNs ?? null, named?.atNs ?? null].filter((x, i, all): x is bigint => x !== null && all.indexOf(x) === i)
  // Over the retention (no time in the id: a sender's own), by the stored id, then as given
  // (a sender's id that only looks derived).
  const anyTime = named === null ? [r.eventId] : [eventId, r.eventId]
  if (r.sameService) {
    // The same service's lines need the hit's service first: a lookup of the whole row, at a
    // time known one granule of the primary key, else every day of the resource.
    for (const at of times) if (row === undefined) row = await lookup<EventRow>(store, base, eventId, at, EVENT_COLUMNS)
    for (const id of anyTime) if (row === undefined) row = await lookup<EventRow>(store, base, id, null, EVENT_COLUMNS)
  } else {
    // The sides need only the hit's time: the newer side starts at the hit and brings it as its
    // first line, one statement with the time known.
    for (const at of times) if (sides?.hit === undefined) sides = await sidesWithHit(store, base, eventId, at, r.before + 1, r.after + 1)
    for (const id of anyTime) {
      if (sides?.hit !== undefined) break
      // The lookup reads the time alone (5.8 against 10.4 ms p50 for the whole row, bench/search README).
      const found = await lookup<{ timestamp_ns: string }>(store, base, id, null, TIME_COLUMN)
      sides = found === undefined ? undefined : await sidesWithHit(store, base, id, BigInt(found.timestamp_ns), r.before + 1, r.after + 1)
    }
    // (No hit after a found time: its day was dropped by retention in between.)
    row = sides?.hit
  }
  if (row === undefined) return null
  const event = toEvent(row)
  const filter: LogFilter = r.sameService
    ? { ...base, attrs: [{ scope: 'resource', key: 'service.name', value: event.resource_attributes['service.name'] ?? '', negate: false }] }
    : base
  const at = positionOf(row)
  const { older, newer } = sides ?? await bothSides(store, filter, at, r.before + 1, r.after + 1)
  const before = older.length > r.before
    ? { events: older.slice(0, r.before).map(toEvent).reverse(), more: true }
    : await olderRest(search, filter, at.tsNs - CONTEXT_SPAN_NS, older, r.before)
  const after = newer.length > r.after
    ? { events: newer.slice(0, r.after).map(toEvent), more: true }
    : await newerRest(store, filter, at.tsNs + CONTEXT_SPAN_NS, newer, r.after, ceilingOf(at.tsNs, now))
  return { before: before.events, event, after: after.events, more_before: before.more, more_after: after.more }
}

/** The lookup's column when only the hit's time is needed. */
const TIME_COLUMN = 'toString(toUnixTimestamp64Nano(timestamp)) AS timestamp_ns'

interface SidesWithHit { hit?: EventRow; older: EventRow[]; newer: EventRow[] }

/** How far forward the newer side may look: a day past the later of now and the hit. */
function ceilingOf(atNs: bigint, now: bigint): bigint {
  return (now > atNs ? now : atNs) + DAY
}

/**
 * Both sides of the event `eventId` at `atNs`, the newer one starting at the event
 * itself, in one statement; `hit` undefined when the resource holds no such event
 * at that time (the sides are then of no use).
 */
async function sidesWithHit(store: LogStore, filter: LogFilter, eventId: string, atNs: bigint, olderLimit: number, newerLimit: number): Promise<SidesWithHit> {
  const at: Position = { tsNs: atNs, eventId, resourceId: '' }
  const sides = await bothSides(store, filter, at, olderLimit, newerLimit + 1, true)
  const first = sides.newer[0]
  if (first === undefined || first.event_id !== eventId || BigInt(first.timestamp_ns) !== atNs) return sides
  const second = sides.newer[1]
  if (second !== undefined && second.event_id === eventId && BigInt(second.timestamp_ns) === atNs) {
    // One id stored twice at one time: a copy took a place of the newer side's limit; read it again past the hit.
    return { hit: first, ...await bothSides(store, filter, positionOf(first), olderLimit, newerLimit) }
  }
  return { hit: first, older: sides.older, newer: sides.newer.slice(1) }
}

/** The event by its id (at `atNs` only, when given): `columns` of it. */
async function lookup<T>(store: LogStore, base: LogFilter, eventId: string, atNs: bigint | null, columns: string): Promise<T | undefined> {
  const params: QueryParams = { eid: eventId }
  const where = filterConditions(base, params)
  if (atNs !== null) {
    where.push(`timestamp = ${ns('at')}`)
    params.at = atNs.toString()
  }
  // A sender's repeated id is stored once per resource; should two rows share it, the newest
  // is the hit (or the one at the time given). The bloom filter on event_id picks the granules
  // up front: 38% less time than while reading (bench/search README, 2026-11-27 evening).
  const found = await store.query<T>(
    `SELECT ${columns} FROM ${store.database}.logs WHERE ${where.join(' AND ')} AND event_id = {eid:String}
     ORDER BY timestamp DESC LIMIT 1${INDEXED_SETTINGS}`, params)
  return found.rows[0]
}

/**
 * One statement for both sides: up to `olderLimit` lines in [at - span, at) before
 * the hit, newest first, and up to `newerLimit` in (at, at + span), oldest first, in
 * the search's order within a resource (the span is far inside the newer side's
 * ceiling, a day past now). `withHit`: the newer side starts at the hit itself rather
 * than right after it.
 */
async function bothSides(store: LogStore, filter: LogFilter, at: Position, olderLimit: number, newerLimit: number, withHit = false): Promise<{ older: EventRow[]; newer: EventRow[] }> {
  const params: QueryParams = {
    a_ts: at.tsNs.toString(), a_eid: at.eventId, lo: (at.tsNs - CONTEXT_SPAN_NS).toString(), hi: (at.tsNs + CONTEXT_SPAN_NS).toString(), ol: olderLimit, nl: newerLimit,
  }
  const where = filterConditions(filter, params).join(' AND ')
  const olderWhere = `timestamp >= ${ns('lo')} AND timestamp <= ${ns('a_ts')} AND (timestamp < ${ns('a_ts')} OR event_id < {a_eid:String})`
  const newerWhere = `timestamp >= ${ns('a_ts')} AND (timestamp > ${ns('a_ts')} OR event_id ${withHit ? '>=' : '>'} {a_eid:String}) AND timestamp < ${ns('hi')}`
  const table = `${store.database}.logs`
  // Each side's columns, table, conditions, order and limit (after its SELECT).
  const olderSide = `${EVENT_COLUMNS} FROM ${table} WHERE ${where} AND ${olderWhere} ORDER BY timestamp DESC, event_id DESC LIMIT {ol:UInt32}`
  const newerSide = `${EVENT_COLUMNS} FROM ${table} WHERE ${where} AND ${newerWhere} ORDER BY timestamp, event_id LIMIT {nl:UInt32}`
  if (store.queryBeside !== undefined) {
    // Where the store can, the two sides run side by side: each is mostly the engine's planning
    // (bench/search README, 2026-11-28 late session).
    const [o, n] = await Promise.all([
      store.query<EventRow>(`SELECT ${olderSide}${searchSettings(false)}`, params),
      store.queryBeside<EventRow>(`SELECT ${newerSide}${searchSettings(false)}`, params),
    ])
    return { older: o.rows, newer: n.rows }
  }
  // Each side in parentheses keeps its own ORDER BY and LIMIT; a `SELECT * FROM (…)` around
  // each, as before, cost the engine 3 ms more planning (bench/search README, 2026-11-28 night).
  const r = await store.query<EventRow & { side: number }>(
    `(SELECT 0 AS side, ${olderSide})
     UNION ALL
     (SELECT 1 AS side, ${newerSide})${searchSettings(false)}`, params)
  const older: EventRow[] = []
  const newer: EventRow[] = []
  for (const x of r.rows) (Number(x.side) === 0 ? older : newer).push(x)
  // UNION ALL keeps each branch's order within it but may interleave blocks: sort each side again.
  older.sort((a, b) => -compareRows(a, b))
  newer.sort(compareRows)
  return { older, newer }
}

/** (timestamp, event_id) ascending: the order within one resource. */
function compareRows(a: EventRow, b: EventRow): number {
  const ta = BigInt(a.timestamp_ns)
  const tb = BigInt(b.timestamp_ns)
  if (ta !== tb) return ta < tb ? -1 : 1
  return a.event_id < b.event_id ? -1 : a.event_id > b.event_id ? 1 : 0
}

/**
 * The older side when its hour held at most `n` lines: those (newest first in
 * `got`) and then a search page of everything older than the hour, the same
 * windows a search continued there would read.
 */
async function olderRest(search: LogSearch, filter: LogFilter, endNs: bigint, got: EventRow[], n: number): Promise<Side> {
  const need = n - got.length
  // need 0 still asks one line: whether more exist.
  const page = await search.page({ filter: { ...filter, endNs }, limit: Math.max(need, 1), after: null, hintNs: CONTEXT_SPAN_NS * 8n })
  const events = got.map(toEvent)
  for (let i = 0; i < need && i < page.events.length; i++) events.push(page.events[i] as LogEvent)
  const more = need === 0 ? page.events.length > 0 : page.next !== null
  return { events: events.reverse(), more }
}

/** The newer side when its hour held at most `n` lines: those, then windows [lo, lo + span) forward, each 8x wider, up to the ceiling. */
async function newerRest(store: LogStore, filter: LogFilter, from: bigint, got: EventRow[], n: number, ceiling: bigint): Promise<Side> {
  const want = n + 1
  const rows = got
  let lo = from
  let span = CONTEXT_SPAN_NS * 8n
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
    params.limit = want - rows.length
    const r = await store.query<EventRow>(
      `SELECT ${EVENT_COLUMNS} FROM ${store.database}.logs WHERE ${where.join(' AND ')} ORDER BY timestamp, event_id LIMIT {limit:UInt32}${searchSettings(false)}`, params)
    for (const x of r.rows) rows.push(x)
    if (rows.length >= want || hi === null) break
    lo = hi
    span *= 8n
  }
  return { events: rows.slice(0, n).map(toEvent), more: rows.length > n }
}
