// Route parameters → a LogFilter. The JSON schemas have judged types, formats
// and lengths; what is left is what a schema cannot say.
import { parseIsoTime } from '../core/index.ts'
import { severityFloor, type LogFilter } from './filters.ts'
import { parseTextQuery, TextSyntaxError, type TextQuery } from './text.ts'
import { parseAttrFilters } from './attrs.ts'
import type { ParamProblem } from './problems.ts'

export interface FilterInput {
  workspaceId: string
  resourceIds: readonly string[] | null
  start?: string
  end?: string
  severity?: string
  text?: string
  traceId?: string
  /** The route's whole query object: its attr./resource. parameters are the attribute filters. */
  query?: Readonly<Record<string, unknown>>
}

/** The parameter names a route uses for each input. */
export interface ParamNames {
  start: string
  end: string
  severity: string
  text: string
  traceId: string
}

export type { ParamProblem }

export type FilterOutcome = { ok: true; filter: LogFilter } | { ok: false; problems: ParamProblem[] }

// Trace ids in any case: ingest stores them lower-cased.
const TRACE_RE = /^[0-9a-fA-F]{32}$/

export function parseFilter(input: FilterInput, names: ParamNames): FilterOutcome {
  const problems: ParamProblem[] = []
  const time = (value: string | undefined, param: string): bigint | null => {
    if (value === undefined) return null
    const t = parseIsoTime(value)
    if (t === null) problems.push({ param, msg: 'Input should be a valid datetime (ISO 8601)', type: 'datetime_parsing', input: value })
    return t?.ns ?? null
  }
  const startNs = time(input.start, names.start)
  const endNs = time(input.end, names.end)
  if (startNs !== null && endNs !== null && endNs <= startNs) {
    problems.push({ param: names.end, msg: `${names.end} must be after ${names.start}`, type: 'value_error', input: input.end })
  }
  let minSeverity: number | null = null
  if (input.severity !== undefined) {
    minSeverity = severityFloor(input.severity)
    if (minSeverity === null) {
      problems.push({ param: names.severity, msg: 'Input should be one of TRACE, DEBUG, INFO, WARN, ERROR, FATAL', type: 'enum', input: input.severity })
    }
  }
  let traceId: string | null = null
  if (input.traceId !== undefined) {
    if (TRACE_RE.test(input.traceId)) traceId = input.traceId.toLowerCase()
    else problems.push({ param: names.traceId, msg: 'A trace id is 32 hexadecimal digits', type: 'string_pattern_mismatch', input: input.traceId })
  }
  let text: TextQuery | null = null
  if (input.text !== undefined) {
    try {
      text = parseTextQuery(input.text)
    } catch (err) {
      if (!(err instanceof TextSyntaxError)) throw err
      problems.push({ param: names.text, msg: err.message, type: 'value_error', input: input.text })
    }
  }
  const attrs = input.query === undefined ? null : parseAttrFilters(input.query)
  if (attrs !== null) problems.push(...attrs.problems)
  if (problems.length > 0) return { ok: false, problems }
  return {
    ok: true,
    filter: {
      workspaceId: input.workspaceId,
      resourceIds: input.resourceIds,
      startNs,
      endNs,
      minSeverity,
      text,
      traceId,
      attrs: attrs?.matches ?? [],
    },
  }
}
