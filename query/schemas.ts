// Query-string schemas of the log routes, as the contracts give them. Ajv
// judges them (with coercion: query strings are text); params.ts does the rest.
import { SEVERITY_LEVELS } from './filters.ts'
import { ATTR_PARAM_PATTERN, ATTR_PARAM_SCHEMA, MAX_ATTR_FILTERS, MAX_ATTR_KEY, MAX_ATTR_VALUE } from './attrs.ts'
import { FACET_DEFAULT_LIMIT, FACET_FIELD_PATTERN, FACET_MAX_LIMIT } from './facets.ts'

const TRACE_ID = { type: 'string', pattern: '^[0-9a-fA-F]{32}$', description: '32 hexadecimal digits, any case' } as const
const CURSOR = { type: 'string', maxLength: 4096 } as const
const DATE_TIME = { type: 'string', format: 'date-time' } as const
const TEXT = {
  type: 'string', maxLength: 500,
  description: 'words (all must match), "a phrase", -word (exclude), a OR b; case-insensitive, in the message or any attribute value. Other syntax (field:value, *, regular expressions) is refused: filter fields with attr.<key>=<value> / resource.<key>=<value>',
} as const
// attr.<key>=<value>, resource.<key>=<value> and their negations (attrs.ts).
const ATTRS = { [ATTR_PARAM_PATTERN]: ATTR_PARAM_SCHEMA } as const
const UUID = { type: 'string', format: 'uuid' } as const
// The desktop takes level names in any case, and its own aliases (warning, critical).
const DESKTOP_SEVERITY = { type: 'string', minLength: 1, maxLength: 20 } as const

/** Cloud GET P/resources/{resource_id}/logs. */
export const CLOUD_LOGS_QUERY = {
  type: 'object',
  additionalProperties: false,
  patternProperties: ATTRS,
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
  patternProperties: ATTRS,
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
  patternProperties: ATTRS,
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
  patternProperties: ATTRS,
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
  patternProperties: ATTRS,
  properties: {
    start: { ...DATE_TIME, description: 'default: an hour before end' },
    end: { ...DATE_TIME, description: 'default: now' },
    severity: { type: 'string', enum: SEVERITY_LEVELS },
    q: TEXT,
    trace_id: TRACE_ID,
    buckets: { type: 'integer', minimum: 1, maximum: 500, default: 120, description: 'at most this many buckets; the width is the smallest round step (1 s .. 1 day) that fits' },
  },
} as const

/** Cloud GET P/logs (Lookout extension): the search across resources; resource_id repeatable (default: every one the token reads). */
export const CLOUD_WORKSPACE_LOGS_QUERY = {
  ...CLOUD_LOGS_QUERY,
  properties: {
    ...CLOUD_LOGS_QUERY.properties,
    resource_id: { type: 'array', items: UUID, maxItems: 100, description: 'repeatable; default: every resource the token may read' },
  },
} as const

/** Cloud GET P/resources/{resource_id}/logs/{event_id}/context (Lookout extension). */
export const CLOUD_CONTEXT_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    before: { type: 'integer', minimum: 0, maximum: 200, default: 20, description: 'lines before the event, at most' },
    after: { type: 'integer', minimum: 0, maximum: 200, default: 20, description: 'lines after the event, at most' },
    same_service: { type: 'boolean', default: false, description: 'only lines with the event\'s resource.service.name' },
    at: { ...DATE_TIME, description: 'the event\'s timestamp as a search listed it (optional; an id Lookout derived names it already): the event is looked up at that time, and over the whole retention only when it is not there' },
  },
} as const

export const CONTEXT_PARAMS = {
  type: 'object',
  additionalProperties: false,
  required: ['workspace_id', 'resource_id', 'event_id'],
  properties: { workspace_id: UUID, resource_id: UUID, event_id: { type: 'string', minLength: 1, maxLength: 512, description: 'the event\'s id as a search listed it: the sender\'s own, or one Lookout derived (48 hex digits, the first 16 its time)' } },
} as const

const FACETS_PROPERTIES = {
  field: { type: 'string', pattern: FACET_FIELD_PATTERN, maxLength: 263, description: 'severity, attr.<key> or resource.<key>' },
  limit: { type: 'integer', minimum: 1, maximum: FACET_MAX_LIMIT, default: FACET_DEFAULT_LIMIT },
  start: { ...DATE_TIME, description: 'default: an hour before end' },
  end: { ...DATE_TIME, description: 'default: now' },
  severity: { type: 'string', enum: SEVERITY_LEVELS },
  q: TEXT,
  trace_id: TRACE_ID,
} as const

/** Cloud GET P/resources/{resource_id}/logs/facets (Lookout extension). */
export const CLOUD_FACETS_QUERY = {
  type: 'object',
  additionalProperties: false,
  required: ['field'],
  patternProperties: ATTRS,
  properties: FACETS_PROPERTIES,
} as const

/** Cloud GET P/logs/facets (Lookout extension). */
export const CLOUD_WORKSPACE_FACETS_QUERY = {
  ...CLOUD_FACETS_QUERY,
  properties: { ...FACETS_PROPERTIES, resource_id: CLOUD_WORKSPACE_LOGS_QUERY.properties.resource_id },
} as const

const SAVED_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    q: TEXT,
    severity: { type: 'string', enum: SEVERITY_LEVELS },
    trace_id: TRACE_ID,
    filters: {
      type: 'array', maxItems: MAX_ATTR_FILTERS,
      items: {
        type: 'object', additionalProperties: false, required: ['scope', 'key', 'value'],
        properties: {
          scope: { type: 'string', enum: ['attr', 'resource'] },
          key: { type: 'string', minLength: 1, maxLength: MAX_ATTR_KEY },
          value: { type: 'string', minLength: 1, maxLength: MAX_ATTR_VALUE },
          negate: { type: 'boolean', default: false },
        },
      },
    },
    range: {
      type: 'object', additionalProperties: false,
      description: 'a relative range (last: 15m, 1h, 7d …) or an absolute one (start, end)',
      properties: { last: { type: 'string', pattern: '^[1-9][0-9]{0,3}[mhd]$' }, start: DATE_TIME, end: DATE_TIME },
    },
  },
} as const

const NAME = { type: 'string', minLength: 1, maxLength: 200 } as const

/** Body of POST P/saved-searches. */
export const SAVED_SEARCH_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'query'],
  properties: { name: NAME, resource_id: { ...UUID, nullable: true, default: null }, query: SAVED_QUERY },
} as const

/** Body of PATCH P/saved-searches/{id}: the revision read, and the fields to change. */
export const SAVED_SEARCH_PATCH = {
  type: 'object',
  additionalProperties: false,
  required: ['revision'],
  properties: { revision: { type: 'integer', minimum: 1 }, name: NAME, resource_id: { ...UUID, nullable: true }, query: SAVED_QUERY },
} as const

export const SAVED_SEARCH_PARAMS = {
  type: 'object',
  additionalProperties: false,
  required: ['workspace_id', 'id'],
  properties: { workspace_id: UUID, id: UUID },
} as const
