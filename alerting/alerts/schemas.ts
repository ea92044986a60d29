// AlertChange / AlertValues exactly as the contract gives them, and the shape
// of the free-form `configuration` for the policy operation.
import { CHANNELS } from './channels.ts'

export const OPERATIONS = [
  'subscribe', 'policy', 'save_destination', 'request_verification', 'verify_destination', 'pause_destination',
  'remove_destination', 'test', 'save_route', 'pause_route', 'acknowledge',
] as const
export type Operation = (typeof OPERATIONS)[number]

const nullable = <T extends object>(s: T) => ({ ...s, nullable: true }) as const
const nullableEnum = <T extends readonly string[]>(values: T) => ({ type: 'string', enum: [...values, null], nullable: true }) as const

export const ALERT_VALUES = {
  type: 'object',
  additionalProperties: false,
  required: ['operation_id'],
  properties: {
    operation_id: { type: 'string', format: 'uuid' },
    id: nullable({ type: 'string', format: 'uuid' }),
    incident_id: nullable({ type: 'string', format: 'uuid' }),
    revision: nullable({ type: 'integer', minimum: 0 }),
    label: nullable({ type: 'string', maxLength: 100 }),
    channel: nullableEnum(CHANNELS),
    address: nullable({ type: 'string', maxLength: 2048 }),
    shared: nullable({ type: 'boolean' }),
    enabled: nullable({ type: 'boolean' }),
    paused: nullable({ type: 'boolean' }),
    consent: nullable({ type: 'boolean' }),
    code: nullable({ type: 'string', maxLength: 64 }),
    action: nullableEnum(['subscribe', 'defaults', 'unsubscribe'] as const),
    channels: nullable({ type: 'object', additionalProperties: { type: 'string', enum: ['on', 'off', ''] } }),
    configuration: nullable({ type: 'object' }),
  },
} as const

export const ALERT_CHANGE = {
  type: 'object',
  additionalProperties: false,
  required: ['operation', 'values'],
  properties: {
    operation: { type: 'string', enum: OPERATIONS },
    values: ALERT_VALUES,
  },
} as const

export interface AlertValues {
  operation_id: string
  id?: string | null
  incident_id?: string | null
  revision?: number | null
  label?: string | null
  channel?: (typeof CHANNELS)[number] | null
  address?: string | null
  shared?: boolean | null
  enabled?: boolean | null
  paused?: boolean | null
  consent?: boolean | null
  code?: string | null
  action?: 'subscribe' | 'defaults' | 'unsubscribe' | null
  channels?: Record<string, 'on' | 'off' | ''> | null
  configuration?: Record<string, unknown> | null
}

export const SEVERITIES = ['critical', 'warning'] as const
export type Severity = (typeof SEVERITIES)[number]
export const POLICY_EVENTS = ['opened', 'closed'] as const

const uuid = { type: 'string', format: 'uuid' } as const

/** `configuration` of the policy operation; every field optional, defaults below. */
export const POLICY_CONFIGURATION = {
  type: 'object',
  additionalProperties: false,
  properties: {
    events: { type: 'array', items: { type: 'string', enum: POLICY_EVENTS }, uniqueItems: true, maxItems: 2 },
    severities: { type: 'array', items: { type: 'string', enum: SEVERITIES }, uniqueItems: true, maxItems: 2 },
    repeat_minutes: { type: 'integer', minimum: 0, maximum: 1440 },
    max_repeats: { type: 'integer', minimum: 0, maximum: 100 },
    escalation: {
      type: 'array',
      maxItems: 5,
      items: {
        type: 'object',
        additionalProperties: false,
        required: ['after_minutes', 'destination_ids'],
        properties: {
          after_minutes: { type: 'integer', minimum: 1, maximum: 10080 },
          destination_ids: { type: 'array', items: uuid, minItems: 1, maxItems: 20, uniqueItems: true },
        },
      },
    },
  },
} as const

export interface PolicyConfiguration {
  events: ('opened' | 'closed')[]
  severities: Severity[]
  /** Re-alert an open, unacknowledged incident this often; 0: never. */
  repeat_minutes: number
  /** At most this many repeats per incident. */
  max_repeats: number
  /** Levels by ascending after_minutes: unacknowledged that long, the level's destinations are alerted too. */
  escalation: { after_minutes: number; destination_ids: string[] }[]
}

export const DEFAULT_POLICY: PolicyConfiguration = { events: ['opened', 'closed'], severities: ['critical', 'warning'], repeat_minutes: 0, max_repeats: 12, escalation: [] }

export function policyOf(stored: Partial<PolicyConfiguration> | null | undefined): PolicyConfiguration {
  const c = { ...DEFAULT_POLICY, ...(stored ?? {}) }
  return { ...c, escalation: [...c.escalation].sort((a, b) => a.after_minutes - b.after_minutes) }
}
