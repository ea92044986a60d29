// What the log query route groups share: parameters → a filter (with the
// contract's error shape) and a search page as the routes answer it (the
// registered-resource check is resources.ts, shared with ingest).
import type { FastifyReply } from 'fastify'
import { decodeCursor, encodeCursor, parseFilter, type FilterInput, type LogFilter, type LogSearch, type ParamNames, type ParamProblem } from '../../query/index.ts'
import type { CursorCodec } from '../../core/index.ts'
import { RequestInvalid, detail } from '../../core/index.ts'
import type { Contract } from '../edge/contract.ts'

export const CLOUD_NAMES: ParamNames = { start: 'start', end: 'end', severity: 'severity', text: 'q', traceId: 'trace_id' }
export const DESKTOP_NAMES: ParamNames = { start: 'since', end: 'until', severity: 'severity', text: 'text', traceId: 'trace_id' }

export function invalid(problems: ParamProblem[], contract: Contract): RequestInvalid {
  return new RequestInvalid(problems.map((p) => detail(['query', p.param], p.msg, p.type, p.input)), contract === 'cloud' ? 422 : 400)
}

export function filterOf(input: FilterInput, names: ParamNames, contract: Contract): LogFilter {
  const r = parseFilter(input, names)
  if (!r.ok) throw invalid(r.problems, contract)
  return r.filter
}

/** A default range for aggregate routes (histogram, facets): the last hour up to `end`, at most `maxMs` wide. */
export function rangeOf(q: { start?: string; end?: string }, maxMs: number, contract: Contract): { startMs: number; endMs: number } {
  const endMs = q.end === undefined ? Date.now() : Date.parse(q.end)
  const startMs = q.start === undefined ? endMs - 3_600_000 : Date.parse(q.start)
  if (!(endMs > startMs)) throw invalid([{ param: q.end === undefined ? 'start' : 'end', msg: 'end must be after start', type: 'value_error', input: q.end ?? q.start }], contract)
  if (endMs - startMs > maxMs) throw invalid([{ param: 'start', msg: `the range may span at most ${maxMs / 86_400_000} days`, type: 'value_error', input: q.start }], contract)
  return { startMs, endMs }
}

/** One search page as the routes answer it, with the read statistics as headers. */
export async function searchPage(search: LogSearch, cursors: CursorCodec, reply: FastifyReply, filter: LogFilter, limit: number, cursor: string | undefined, contract: Contract) {
  let after = null
  let hintNs = null
  if (cursor !== undefined) {
    const c = decodeCursor(cursors, filter, cursor)
    if (c === null) throw invalid([{ param: 'cursor', msg: 'Invalid cursor: malformed, altered, or from a query with other filters', type: 'value_error', input: cursor }], contract)
    after = c.after
    hintNs = c.hintNs
  }
  const started = performance.now()
  const result = await search.page({ filter, limit, after, hintNs })
  // Read statistics for operators and the benchmark; not part of the contract.
  void reply.header('x-lookout-rows-read', String(result.stats.rowsRead))
  void reply.header('x-lookout-queries', String(result.stats.queries))
  void reply.header('server-timing', `store;dur=${result.stats.storeMs.toFixed(1)}, search;dur=${(performance.now() - started).toFixed(1)}`)
  return { events: result.events, next_cursor: result.next === null ? null : encodeCursor(cursors, filter, result.next) }
}
