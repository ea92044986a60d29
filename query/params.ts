// Route parameters → a LogFilter. The JSON schemas have judged types, formats
// and lengths; what is left is what a schema cannot say.
import { parseIsoTime } from '../ingest/index.ts'
import { severityFloor, type LogFilter } from './filters.ts'
import { parseTextQuery } from './text.ts'

export interface FilterInput {
  workspaceId: string
  resourceIds: readonly string[] | null
  start?: string
  end?: string
  severity?: string
  text?: string
  traceId?: string
}

/** The parameter names a route uses for each input. */
export interface ParamNames {
  start: string
  end: string
  severity: string
  text: string
  traceId: string
}

export interface ParamProblem {
  param: string
  msg: string
  type: string
  input: unknown
}

export type FilterOutcome = { ok: true; filter: LogFilter } | { ok: false; problems: ParamProblem[] }

const TRACE_RE = /^[0-9a-f]{32}$/

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
    if (TRACE_RE.test(input.traceId)) traceId = input.traceId
    else problems.push({ param: names.traceId, msg: 'String should match pattern \'^[0-9a-f]{32}$\'', type: 'string_pattern_mismatch', input: input.traceId })
  }
  if (problems.length > 0) return { ok: false, problems }
  return {
    ok: true,
    filter: {
      workspaceId: input.workspaceId,
      resourceIds: input.resourceIds,
      startNs,
      endNs,
      minSeverity,
      text: input.text === undefined ? null : parseTextQuery(input.text),
      traceId,
    },
  }
}
