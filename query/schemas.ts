// Query-string schemas of the log routes, as the contracts give them. Ajv
// judges them (with coercion: query strings are text); params.ts does the rest.
import { SEVERITY_LEVELS } from './filters.ts'

const TRACE_ID = { type: 'string', pattern: '^[0-9a-f]{32}$' } as const
const CURSOR = { type: 'string', maxLength: 4096 } as const
const DATE_TIME = { type: 'string', format: 'date-time' } as const
const TEXT = { type: 'string', maxLength: 500 } as const
const UUID = { type: 'string', format: 'uuid' } as const
// The desktop takes level names in any case, and its own aliases (warning, critical).
const DESKTOP_SEVERITY = { type: 'string', minLength: 1, maxLength: 20 } as const

/** Cloud GET P/resources/{resource_id}/logs. */
export const CLOUD_LOGS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    cursor: CURSOR,
    limit: { type: 'integer', minimum: 1, maximum: 200, default: 100 },
    start: DATE_TIME,
    end: DATE_TIME,
    severity: { type: 'string', enum: SEVERITY_LEVELS },
    q: TEXT,
    trace_id: TRACE_ID,
  },
} as const

/** Cloud GET P/resources/{resource_id}/logs/tail: the same filters, no paging or range. */
export const CLOUD_TAIL_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    severity: { type: 'string', enum: SEVERITY_LEVELS },
    q: TEXT,
    trace_id: TRACE_ID,
  },
} as const

/** Desktop GET /v1/logs. */
export const DESKTOP_LOGS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    resource_id: UUID,
    workspace_id: UUID,
    since: DATE_TIME,
    until: DATE_TIME,
    severity: DESKTOP_SEVERITY,
    text: TEXT,
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 100 },
    cursor: CURSOR,
  },
} as const

/** Desktop GET /v1/logs/tail. */
export const DESKTOP_TAIL_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    resource_id: UUID,
    workspace_id: UUID,
    severity: DESKTOP_SEVERITY,
    text: TEXT,
  },
} as const

/** Cloud GET P/resources/{resource_id}/logs/histogram (Lookout extension): the search filters and a bucket count. */
export const CLOUD_HISTOGRAM_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    start: { ...DATE_TIME, description: 'default: an hour before end' },
    end: { ...DATE_TIME, description: 'default: now' },
    severity: { type: 'string', enum: SEVERITY_LEVELS },
    q: TEXT,
    trace_id: TRACE_ID,
    buckets: { type: 'integer', minimum: 1, maximum: 500, default: 120, description: 'at most this many buckets; the width is the smallest round step (1 s .. 1 day) that fits' },
  },
} as const
