// Request bodies of the webhook management routes (the contract leaves them to
// us; documented in alerting/webhooks/README.md).
import { SUBSCRIBABLE_EVENTS } from './envelope.ts'

const uuid = { type: 'string', format: 'uuid' } as const

const FIELDS = {
  url: { type: 'string', minLength: 1, maxLength: 2048 },
  description: { type: 'string', maxLength: 200 },
  board_ids: { type: 'array', items: uuid, minItems: 1, maxItems: 50, nullable: true },
  assignee_ids: { type: 'array', items: { type: 'integer', exclusiveMinimum: 0 }, minItems: 1, maxItems: 100, nullable: true },
  events: { type: 'array', items: { type: 'string', enum: SUBSCRIBABLE_EVENTS }, minItems: 1, maxItems: 2 },
} as const

export const WEBHOOK_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['url'],
  properties: FIELDS,
} as const

export const WEBHOOK_PATCH = {
  type: 'object',
  additionalProperties: false,
  required: ['generation'],
  properties: {
    ...FIELDS,
    generation: { type: 'integer', minimum: 1 },
    enabled: { type: 'boolean' },
    rotate_secret: { type: 'boolean' },
  },
} as const

export const WEBHOOK_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: uuid },
} as const

export const DELIVERY_PARAMS = {
  type: 'object',
  required: ['id', 'delivery_id'],
  properties: { id: uuid, delivery_id: uuid },
} as const

export const WORKSPACE_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { workspace_id: uuid },
} as const

export const DELIVERIES_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    workspace_id: uuid,
    cursor: { type: 'string', maxLength: 4096 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    state: { type: 'string', enum: ['queued', 'delivered', 'failed', 'cancelled'] },
  },
} as const
