// Request and response schemas of the on-call reads (Lookout extensions): the
// workspace overview, the incident page and the principal's inbox. Response
// schemas document the bodies in the OpenAPI document; nested views that other
// routes also return (check, delivery) allow their further fields.
import { INBOX_ACTIONS, INBOX_FILTERS, INBOX_MAX_LIMIT } from '../../alerting/index.ts'

const uuid = { type: 'string', format: 'uuid' } as const
const time = { type: 'string', format: 'date-time' } as const
const nTime = { type: ['string', 'null'], format: 'date-time' } as const
const str = { type: 'string' } as const
const nStr = { type: ['string', 'null'] } as const
const int = { type: 'integer' } as const
const bool = { type: 'boolean' } as const

export const OVERVIEW_QUERY = {
  type: 'object', additionalProperties: false,
  properties: { limit: { type: 'integer', minimum: 1, maximum: 100, default: 50, description: 'most notifications listed (newest first)' } },
} as const

export const INCIDENT_PARAMS = {
  type: 'object', required: ['workspace_id', 'resource_id', 'incident_id'],
  properties: { workspace_id: uuid, resource_id: uuid, incident_id: uuid },
} as const

const RESOURCE_REF = {
  type: 'object', additionalProperties: false, required: ['id', 'name', 'external_id'],
  properties: { id: uuid, name: str, external_id: str },
} as const

/** The check view of the monitoring routes (monitor/README.md "check"), plus why it is listed. */
const CHECK = {
  type: 'object', additionalProperties: true,
  required: ['id', 'resource_id', 'name', 'kind', 'state', 'health', 'stale', 'confirmation', 'last_result'],
  properties: {
    id: uuid, resource_id: uuid, name: str, kind: str, location: str, required: bool, state: { enum: ['enabled', 'paused', 'maintenance'] },
    maintenance_until: nTime, health: { enum: ['healthy', 'unhealthy', 'unknown'] }, health_since: time, stale: bool,
    confirmation: { type: 'object', additionalProperties: true },
    last_result: { type: ['object', 'null'], additionalProperties: true, description: '{status, code, reason, latency_ms (null when down), observed_at, details}' },
    open_incident_id: { type: ['string', 'null'], format: 'uuid' },
  },
} as const

const ATTENTION_CHECK = {
  ...CHECK,
  required: [...CHECK.required, 'attention', 'resource'],
  properties: {
    ...CHECK.properties,
    attention: { enum: ['down', 'failing', 'unknown', 'maintenance'], description: 'down: confirmed; failing: the last observation failed, not confirmed yet' },
    resource: RESOURCE_REF,
  },
} as const

const ALERT_STATE = {
  severity: { type: ['string', 'null'] }, acknowledged: bool, acknowledged_at: nTime, acknowledged_by: { ...nStr, description: 'staff:<id> or token:<id>' },
  repeats: int, escalation_level: int, next_repeat_at: nTime, next_escalation_at: nTime,
} as const

const INCIDENT = {
  type: 'object', additionalProperties: false,
  required: ['id', 'kind', 'resource', 'check', 'state', 'opened_at', 'age_seconds', 'open_reason', 'acknowledged'],
  properties: {
    id: uuid, kind: { enum: ['check', 'collector_offline'] }, resource: RESOURCE_REF, check_id: { type: ['string', 'null'], format: 'uuid' },
    check: { type: ['object', 'null'], additionalProperties: false, properties: { id: uuid, name: str, kind: str, required: bool } },
    source_id: { type: ['string', 'null'], format: 'uuid' }, state: { enum: ['open', 'closed'] },
    opened_at: time, age_seconds: { type: 'number', description: 'seconds open (until closed_at for a closed one)' }, open_reason: str,
    closed_at: nTime, close_reason: nStr, notified: bool, seq: { type: 'number' }, ...ALERT_STATE,
  },
} as const

const ATTEMPT = {
  type: 'object', additionalProperties: false,
  properties: { attempt: int, at: time, outcome: str, status: { type: ['integer', 'null'] }, error: nStr, duration_ms: { type: ['number', 'null'] } },
} as const

/** An alert delivery (alerting/alerts/README.md, `view=deliveries`). */
const DELIVERY = {
  type: 'object', additionalProperties: true,
  required: ['id', 'incident_id', 'channel', 'destination', 'state', 'created_at'],
  properties: {
    id: uuid, incident_id: { type: ['string', 'null'], format: 'uuid' }, resource_id: { type: ['string', 'null'], format: 'uuid' },
    event_type: str, reason: { enum: ['initial', 'repeat', 'escalation', 'test', 'verification'] },
    channel: { enum: ['email', 'sms', 'webhook', 'slack', 'discord'] }, destination_id: uuid,
    destination: { ...str, description: 'address hint, never the address' }, destination_label: str, escalation_level: { type: ['integer', 'null'] },
    state: { enum: ['queued', 'delivered', 'failed', 'cancelled'] }, attempts: int, next_attempt_at: nTime, last_attempt_at: nTime,
    last_status: { type: ['integer', 'null'] }, last_error: nStr, delivered_at: nTime, created_at: time, attempt_history: { type: 'array', items: ATTEMPT },
  },
} as const

export const OVERVIEW_RESPONSE = {
  200: {
    description: 'every check needing attention, open incidents and recent alert deliveries on the resources the token may read',
    type: 'object', additionalProperties: false,
    required: ['generated_at', 'summary', 'checks', 'incidents', 'notifications', 'truncated'],
    properties: {
      generated_at: time,
      summary: {
        type: 'object', additionalProperties: false,
        properties: { down: int, failing: int, unknown: int, maintenance: int, open_incidents: int, unacknowledged: int },
      },
      checks: { type: 'array', items: ATTENTION_CHECK, description: 'down, then failing, unknown, maintenance' },
      incidents: { type: 'array', items: INCIDENT, description: 'open incidents, oldest first' },
      notifications: { type: 'array', items: { ...DELIVERY, properties: { ...DELIVERY.properties, resource: RESOURCE_REF } }, description: 'alert deliveries of incidents, newest first' },
      truncated: {
        type: 'object', additionalProperties: false, description: 'true where a list was cut at its bound (500 checks, 500 incidents, `limit` notifications)',
        properties: { checks: bool, incidents: bool, notifications: bool },
      },
    },
  },
} as const

const OBSERVATION = {
  type: 'object', additionalProperties: false,
  properties: { observed_at: time, status: str, code: str, reason: str, latency_ms: { type: ['number', 'null'] }, details: { type: ['object', 'null'], additionalProperties: true } },
} as const

const TIMELINE_ENTRY = {
  type: 'object', additionalProperties: true, required: ['type', 'at'],
  description: 'opened {reason}; observation {status, code, reason, latency_ms}; notification {delivery_id, event_type, reason, channel, destination, destination_label, state, attempts, delivered_at, last_status, last_error}; escalated {level}; acknowledged {by}; resolved {reason}',
  properties: { type: { enum: ['opened', 'observation', 'notification', 'escalated', 'acknowledged', 'resolved'] }, at: time },
} as const

export const INCIDENT_RESPONSE = {
  200: {
    description: 'one incident with its timeline, the check, its recent observations and, for a log check, the matching lines',
    type: 'object', additionalProperties: false,
    required: ['incident', 'check', 'timeline', 'observations', 'deliveries', 'log'],
    properties: {
      incident: INCIDENT,
      check: { ...CHECK, type: ['object', 'null'] },
      timeline: { type: 'array', items: TIMELINE_ENTRY, description: 'oldest first' },
      observations: { type: 'array', items: OBSERVATION, description: 'the check\'s latest 50 observations, newest first' },
      deliveries: { type: 'array', items: DELIVERY, description: 'every alert delivery of the incident, oldest first' },
      log: {
        type: ['object', 'null'], additionalProperties: true,
        description: 'log checks: {query, comparison, threshold, window_seconds, count, window_start, window_end, samples [{time, severity, message}], explorer} of the observation that confirmed the incident (else the latest)',
      },
    },
  },
} as const

export const INBOX_QUERY = {
  type: 'object', additionalProperties: false,
  properties: {
    filter: { type: 'string', enum: INBOX_FILTERS, default: 'all' },
    limit: { type: 'integer', minimum: 1, maximum: INBOX_MAX_LIMIT, default: 20 },
    cursor: { type: 'string', maxLength: 4096 },
  },
} as const

export const INBOX_ACTION = {
  type: 'object', additionalProperties: false, required: ['action'],
  properties: { action: { type: 'string', enum: INBOX_ACTIONS }, id: uuid },
} as const

const NOTIFICATION = {
  type: 'object', additionalProperties: false,
  properties: {
    id: uuid, source: str, kind: str, severity: str, state: { enum: ['unread', 'read'] }, title: str, body: str,
    resource_id: { type: ['string', 'null'], format: 'uuid' }, incident_id: { type: ['string', 'null'], format: 'uuid' },
    incident_state: { type: ['string', 'null'], enum: ['open', 'closed', null] }, created_at: time, read_at: nTime, archived_at: nTime,
  },
} as const

export const INBOX_RESPONSE = {
  200: {
    description: 'the caller\'s inbox, newest first, with its own read marks',
    type: 'object', additionalProperties: false, required: ['items', 'next_cursor', 'unread_count'],
    properties: { items: { type: 'array', items: NOTIFICATION }, next_cursor: nStr, unread_count: int },
  },
} as const

export const INBOX_ACTION_RESPONSE = {
  200: {
    description: 'read / unread: the notification as the caller now sees it; read_all: how many became read',
    type: 'object', additionalProperties: false, required: ['action', 'unread_count'],
    properties: { action: { type: 'string', enum: INBOX_ACTIONS }, item: NOTIFICATION, updated: int, unread_count: int },
  },
} as const
