// The SQL of one search window. The text is fixed per filter shape; every
// value a caller gave travels as a bound parameter ({name:Type}), never in
// the SQL text.
import { INDEX_GRANULARITY, SEARCHED_COLUMNS, type QueryParams } from '../ingest/index.ts'
import { searchKey } from './event.ts'
import type { LogFilter, Position } from './filters.ts'
import { indexTokens, type SearchTerm } from './text.ts'
import type { AttrMatch } from './attrs.ts'

/** One slice of the time line, newest first. */
export interface Window {
  /** Inclusive lower bound (ns); null: open (everything older). */
  loNs: bigint | null
  /** Exclusive upper bound (ns); null: open. */
  hiNs: bigint | null
  /** Keyset: only rows strictly after this position in the order (first window of a continued page). */
  after: Position | null
}

export interface BuiltQuery {
  sql: string
  params: QueryParams
}

/**
 * Columns of a returned event (the row model's searched ones, and the batch id that
 * tells a derived event id: event-id.ts); timestamps leave as nanosecond integers in
 * text, so no precision is lost.
 */
export const EVENT_COLUMNS = SEARCHED_COLUMNS
  .map((c) => (c.kind === 'ns' ? `toString(toUnixTimestamp64Nano(${c.name})) AS ${searchKey(c)}` : c.name))
  .concat('batch_id')
  .join(', ')

const ORDER = 'ORDER BY timestamp DESC, event_id DESC, resource_id DESC'

// Lower-cased attribute values: the expression the idx_attr_values text index is built on.
const ATTR_VALUES = 'arrayMap(v -> lower(v), mapValues(attributes))'

const ns = (name: string) => `fromUnixTimestamp64Nano({${name}:Int64})`

/** Whether a skip index can pick the filter's granules: a text term with a word in it, or a trace id. */
export function indexBacked(f: LogFilter): boolean {
  if (f.traceId !== null) return true
  // Attribute filters are not counted: a common value (http.status=500) over a whole
  // range at once read 385k rows and took 1.9 s in bench/search, against windows.
  if (f.text === null) return false
  // An OR group narrows granules only when every side of it has a word to look up.
  return f.text.terms.some((t) => t.tokens.length > 0) || f.text.anyOf.some((g) => g.every((t) => t.tokens.length > 0))
}

// ClickHouse 26 applies skip indexes while reading by default; for the text and
// bloom indexes of a search, choosing the granules up front is measured faster
// (query/README.md: 35-45% less time per rare-term or trace window). Those few
// granules are read without the engine's dynamic top-N filter, whose per-row
// threshold costs more than it skips there: 25-30 % less time at p50 for the
// rare-term, trace and context shapes (bench/search README, 2026-11-28); on the
// statements reading a whole window it did not pay (the attribute needle's
// first window, context's sides), so only these.
const UP_FRONT = 'use_skip_indexes_on_data_read = 0, use_top_k_dynamic_filtering = 0'
// Search, context and facets read through the engine's uncompressed-block cache
// (ingest/store/engine-settings.ts: a bounded size, filled only by these
// statements): a page reads whole blocks for a few rows each, and the next
// refresh reads the same newest blocks again (query/README.md, "Block cache").
// ClickHouse skips the cache for a statement reading over 1M rows.
export const CACHED = 'use_uncompressed_cache = 1'
// A read of a few granules of one part is split between threads: with the
// engine's thresholds (160k rows, 240 MiB) the newest page across resources
// (63 granules of the newest part, 129k rows) ran on one thread, 25 % slower
// (bench/search README, "One part read on two threads"). A granule or two
// stays on one.
const PARALLEL = `merge_tree_min_rows_for_concurrent_read = ${4 * INDEX_GRANULARITY}, merge_tree_min_bytes_for_concurrent_read = 1048576`

// A statement beside another (the search's whole range beside its first window): read
// in time order, it checks its row bound only while it reads (a common word over one
// resource's 7 days: refused after 60-90 ms); in no order, against the granules the index
// chose, before reading a row (15-25 ms); the rows past the page are few either way, at
// most 16 granules. One thread: the statement it runs beside has the other core.
const BESIDE = 'optimize_read_in_order = 0, max_threads = 1'

/**
 * The SETTINGS clause of a search, context or facets statement (the block cache, a
 * part read on two threads); `upFront`: choose
 * granules by the skip indexes before reading; `maxRows`: stop with TOO_MANY_ROWS
 * once the engine has read that many rows (the search's guarded jump); `beside`: the
 * statement runs beside another, and with `maxRows`, stops once the granules chosen
 * up front hold more, before reading.
 */
export function searchSettings(upFront: boolean, maxRows: number | null = null, beside = false): string {
  const bound = maxRows === null ? '' : `, max_rows_to_read = ${maxRows}, read_overflow_mode = 'throw'`
  return ` SETTINGS ${CACHED}, ${PARALLEL}${upFront ? `, ${UP_FRONT}` : ''}${bound}${beside ? `, ${BESIDE}` : ''}`
}

export const INDEXED_SETTINGS = searchSettings(true)

/** Whether a log attribute filter is led by the attribute-value index (a value with an ASCII word). */
export function attrIndexed(f: LogFilter): boolean {
  return f.attrs?.some((a) => a.scope === 'attr' && !a.negate && indexTokens(a.value).length > 0) === true
}

/** The conditions of a filter (scope, range, severity, trace, text, attributes) and their parameters. */
export function filterConditions(f: LogFilter, params: QueryParams): string[] {
  const where = ['workspace_id = {ws:UUID}']
  params.ws = f.workspaceId
  if (f.resourceIds !== null) {
    if (f.resourceIds.length === 1) {
      where.push('resource_id = {rid:UUID}')
      params.rid = f.resourceIds[0]
    } else {
      where.push('resource_id IN {rids:Array(UUID)}')
      params.rids = f.resourceIds
    }
  }
  if (f.startNs !== null) {
    where.push(`timestamp >= ${ns('start')}`)
    params.start = f.startNs.toString()
  }
  if (f.endNs !== null) {
    where.push(`timestamp < ${ns('end')}`)
    params.end = f.endNs.toString()
  }
  if (f.minSeverity !== null) {
    where.push('severity_number >= {sev:UInt8}')
    params.sev = f.minSeverity
  }
  if (f.traceId !== null) {
    where.push('trace_id = {trace:String}')
    params.trace = f.traceId
  }
  if (f.text !== null) {
    let n = 0
    for (const term of f.text.terms) where.push(termCondition(term, n++, params))
    for (const group of f.text.anyOf) {
      const any: string[] = []
      for (const term of group) any.push(termCondition(term, n++, params))
      where.push(`(${any.join(' OR ')})`)
    }
    for (const term of f.text.not) where.push(`NOT ${termCondition(term, n++, params)}`)
  }
  const attrs = f.attrs ?? []
  for (let i = 0; i < attrs.length; i++) where.push(attrCondition(attrs[i] as AttrMatch, i, params))
  return where
}

/** One term: in the message or in any attribute value (whole words, and the term as a substring). */
function termCondition(term: SearchTerm, i: number, params: QueryParams): string {
  const p = `{p${i}:String}`
  // No word to look up: a substring search (no index can help).
  if (term.tokens.length === 0) {
    params[`p${i}`] = term.text
    return `(positionCaseInsensitiveUTF8(message, ${p}) > 0 OR arrayExists(v -> positionCaseInsensitiveUTF8(v, ${p}) > 0, mapValues(attributes)))`
  }
  const t = `{t${i}:Array(String)}`
  params[`t${i}`] = term.tokens
  // A term that is one ASCII word, whole: the word among a value's words is the term within the
  // value, so the indexes' answer is the rule itself, and the engine reads no message to check
  // it (a common word's first window across resources 35.9 -> 31.3 ms p50, bench/search README,
  // 2026-11-28 late session).
  if (term.tokens.length === 1 && /^[A-Za-z0-9]+$/.test(term.text) && term.text.toLowerCase() === term.tokens[0]) {
    return `(hasAllTokens(lower(message), ${t}) OR hasAllTokens(${ATTR_VALUES}, ${t}))`
  }
  params[`p${i}`] = term.text
  // Each side is led by a text-index lookup (hasAllTokens on the indexed
  // expression), so granules holding none of the words are skipped; the
  // rest is the exact rule: whole words, and the term as a substring.
  return `((hasAllTokens(lower(message), ${t}) AND positionCaseInsensitiveUTF8(message, ${p}) > 0)` +
    ` OR (hasAllTokens(${ATTR_VALUES}, ${t}) AND arrayExists(v -> hasAllTokens(lower(v), ${t}) AND positionCaseInsensitiveUTF8(v, ${p}) > 0, mapValues(attributes))))`
}

/**
 * One attribute filter: the key's value equals the text (a missing key reads
 * as ''), or, negated, differs. A log attribute's value is led by a lookup of
 * its words in the attribute-value text index (a line holding the value holds
 * its words), so a rare value reads a few granules instead of the range; a
 * resource attribute's equality is picked by the bloom filter on its values
 * (migration 6). Measured in bench/search (query/README.md).
 */
function attrCondition(a: AttrMatch, i: number, params: QueryParams): string {
  params[`ak${i}`] = a.key
  params[`av${i}`] = a.value
  const column = a.scope === 'attr' ? 'attributes' : 'resource_attributes'
  const exact = `${column}[{ak${i}:String}] ${a.negate ? '!=' : '='} {av${i}:String}`
  const words = a.scope === 'attr' && !a.negate ? indexTokens(a.value) : []
  if (words.length === 0) return exact
  params[`at${i}`] = words
  return `(hasAllTokens(${ATTR_VALUES}, {at${i}:Array(String)}) AND ${exact})`
}


/** A place in the order the tail catches up in: receive time, then event id, then resource id, ascending. */
export interface ReceivedPosition {
  receivedNs: bigint
  eventId: string
  resourceId: string
}

/** Rows received in [sinceNs, untilNs) after `after`, oldest receipt first (the tail's catch-up). */
export function receivedQuery(database: string, f: LogFilter, sinceNs: bigint, untilNs: bigint, after: ReceivedPosition | null, limit: number): BuiltQuery {
  const params: QueryParams = {}
  const where = filterConditions(f, params)
  where.push(`received_at >= ${ns('since')}`, `received_at < ${ns('until')}`)
  params.since = sinceNs.toString()
  params.until = untilNs.toString()
  if (after !== null) {
    where.push(`received_at >= ${ns('a_rcv')}`)
    where.push(`(received_at > ${ns('a_rcv')} OR event_id > {a_eid:String} OR (event_id = {a_eid:String} AND resource_id > {a_rid:UUID}))`)
    params.a_rcv = after.receivedNs.toString()
    params.a_eid = after.eventId
    params.a_rid = after.resourceId
  }
  params.limit = limit
  return {
    sql: `SELECT ${EVENT_COLUMNS} FROM ${database}.logs WHERE ${where.join(' AND ')} ORDER BY received_at, event_id, resource_id LIMIT {limit:UInt32}`,
    params,
  }
}

/**
 * The newest `limit` rows of one window, in the route's order. `upFront`: choose
 * the granules by the skip indexes before reading (INDEXED_SETTINGS); by default
 * for a text term or a trace id, and the search asks it for an index-led attribute
 * filter once a window came back empty (search.ts). `maxRows`: fail with
 * TOO_MANY_ROWS past that many rows read (integer >= 1; null: no bound). `beside`:
 * the statement runs beside another (searchSettings).
 */
export function windowQuery(database: string, f: LogFilter, w: Window, limit: number, upFront = indexBacked(f), maxRows: number | null = null, beside = false): BuiltQuery {
  const params: QueryParams = {}
  const where = filterConditions(f, params)
  if (w.loNs !== null) {
    where.push(`timestamp >= ${ns('lo')}`)
    params.lo = w.loNs.toString()
  }
  if (w.hiNs !== null) {
    where.push(`timestamp < ${ns('hi')}`)
    params.hi = w.hiNs.toString()
  }
  if (w.after !== null) {
    // Given timestamp <= the cursor's, "after" in a descending order is:
    // older, or the same time with a smaller event id, or the same both with a smaller resource id.
    where.push(`timestamp <= ${ns('a_ts')}`)
    where.push(`(timestamp < ${ns('a_ts')} OR event_id < {a_eid:String} OR (event_id = {a_eid:String} AND resource_id < {a_rid:UUID}))`)
    params.a_ts = w.after.tsNs.toString()
    params.a_eid = w.after.eventId
    params.a_rid = w.after.resourceId
  }
  params.limit = limit
  return {
    sql: `SELECT ${EVENT_COLUMNS} FROM ${database}.logs WHERE ${where.join(' AND ')} ${ORDER} LIMIT {limit:UInt32}${searchSettings(upFront, maxRows, beside)}`,
    params,
  }
}
