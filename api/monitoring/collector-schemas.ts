// Request schemas of the collector routes (a Lookout extension: the contract
// names the collector location and its enrollment, not how a collector talks).
import { MAX_OBSERVATIONS_PER_PUSH, PROBE_REASONS } from '../../monitor/index.ts'

/** Longest hold of a long poll. The watch's default silence (60 s) is three of them. */
export const MAX_WAIT_SECONDS = 20

export const COLLECTOR_CHECKS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    wait: { type: 'integer', minimum: 0, maximum: MAX_WAIT_SECONDS, default: 0, description: 'seconds to hold the request while If-None-Match still matches (long poll)' },
  },
} as const

const OBSERVATION = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'check_id', 'revision', 'observed_at', 'status', 'code', 'reason'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'chosen by the collector: a resend with the same id is a duplicate' },
    check_id: { type: 'string', format: 'uuid' },
    revision: { type: 'integer', minimum: 1, description: 'the check revision the probe ran with (fence)' },
    observed_at: { type: 'string', format: 'date-time' },
    status: { type: 'string', enum: ['up', 'down', 'unknown'] },
    code: { type: 'string', enum: Object.values(PROBE_REASONS) },
    reason: { type: 'string', maxLength: 1000 },
    latency_ms: { type: 'number', minimum: 0, nullable: true },
    details: { type: 'object', nullable: true, maxProperties: 30 },
  },
} as const

export const COLLECTOR_OBSERVATIONS = {
  type: 'object',
  additionalProperties: false,
  required: ['observations'],
  properties: {
    observations: { type: 'array', minItems: 1, maxItems: MAX_OBSERVATIONS_PER_PUSH, items: OBSERVATION },
  },
} as const
