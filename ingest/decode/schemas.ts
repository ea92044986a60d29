// Request schemas of the log ingestion bodies (JSON Schema, compiled by Ajv in
// the decoder workers and published in the API's route documentation).
import { SEVERITY_NAMES } from '../severity.ts'

export const LIMITS = {
  batchEvents: 1000,
  messageLength: 65536,
  sourceLength: 256,
  legacyEvents: 100,
  legacyBatchBytes: 1024 * 1024,
  legacyMessageLength: 16000,
  legacyEventBytes: 32000,
  /** Tolerance for timestamps in the future, all routes. */
  futureToleranceMs: 5 * 60 * 1000,
} as const

export const EVENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['message'],
  properties: {
    message: { type: 'string', maxLength: LIMITS.messageLength },
    timestamp: { type: ['string', 'null'], format: 'date-time', default: null },
    severity: { type: 'string', default: 'INFO' },
    source: { type: 'string', maxLength: LIMITS.sourceLength, default: '' },
    attributes: { type: 'object', additionalProperties: true },
    trace_id: { type: 'string', pattern: '^([0-9a-fA-F]{32})?$', default: '' },
    span_id: { type: 'string', pattern: '^([0-9a-fA-F]{16})?$', default: '' },
  },
} as const

export const BATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['events'],
  properties: {
    events: { type: 'array', minItems: 1, maxItems: LIMITS.batchEvents, items: EVENT_SCHEMA },
  },
} as const

export const LEGACY_SEVERITIES = ['debug', 'info', 'warning', 'error', 'critical'] as const

export const LEGACY_EVENT_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'timestamp', 'severity', 'message'],
  properties: {
    id: { type: 'string', minLength: 1, maxLength: 200 },
    timestamp: { type: 'string', format: 'date-time' },
    severity: { type: 'string', enum: LEGACY_SEVERITIES },
    message: { type: 'string', maxLength: LIMITS.legacyMessageLength },
    attributes: { type: 'object', additionalProperties: true },
  },
} as const

export const LEGACY_BATCH_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['resource_id', 'events'],
  properties: {
    resource_id: { type: 'string', format: 'uuid' },
    workspace_id: { type: 'string', format: 'uuid' },
    events: { type: 'array', minItems: 1, items: LEGACY_EVENT_SCHEMA },
  },
} as const

export { SEVERITY_NAMES }
