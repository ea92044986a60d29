// Configuration of the `log` check kind: a log query (the filters of the log
// query route), a window, a threshold and a comparison. The filters are one
// table so a new filter of the query route (attribute filters, issue 34) is
// one entry here; test/monitor/log-check-config.test.ts holds this table equal
// to the query route's own schema.

/** The log query route's filters a check may use, as that route's schema gives them (query/schemas.ts). */
export const LOG_QUERY_FILTERS = {
  q: {
    type: 'string', maxLength: 500,
    description: 'words (all must match), "a phrase", -word (exclude), a OR b; case-insensitive, in the message or any attribute value. Other syntax (field:value, *, regular expressions) is refused: filter fields with attr.<key>=<value> / resource.<key>=<value>',
  },
  severity: { type: 'string', enum: ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] },
  trace_id: { type: 'string', pattern: '^[0-9a-fA-F]{32}$', description: '32 hexadecimal digits, any case' },
} as const

export type LogQuery = { [K in keyof typeof LOG_QUERY_FILTERS]?: string }

export const LOG_COMPARISONS = ['above', 'below'] as const
export type LogComparison = (typeof LOG_COMPARISONS)[number]

export interface LogConfig {
  query: LogQuery
  window_seconds: number
  threshold: number
  comparison: LogComparison
}

export const LOG_WINDOW = { min: 10, max: 86_400, default: 300 } as const
/** A count far past anything a window holds; bounds the stored number. */
export const LOG_THRESHOLD_MAX = 1_000_000_000

/** The kind's keys beside the common timing keys (config.ts adds those). */
export const LOG_PROPERTIES = {
  query: { type: 'object', additionalProperties: false, properties: LOG_QUERY_FILTERS, default: {} },
  window_seconds: { type: 'integer', minimum: LOG_WINDOW.min, maximum: LOG_WINDOW.max, default: LOG_WINDOW.default },
  threshold: { type: 'integer', minimum: 0, maximum: LOG_THRESHOLD_MAX },
  comparison: { type: 'string', enum: LOG_COMPARISONS, default: 'above' },
} as const

/** What a schema cannot say: a check that could never fire. Returns [path, message] pairs. */
export function logConfigProblems(c: LogConfig): [string, string][] {
  if (c.comparison === 'below' && c.threshold === 0) return [['/threshold', 'comparison below needs a threshold of at least 1: no count is below 0']]
  return []
}
