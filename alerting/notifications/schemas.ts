// The notification listing's query (local-desktop-api.md, Notification routes):
// the route and the stdio tool server validate the same shape.
import { FILTERS, NOTIFICATIONS_MAX_LIMIT } from './store.ts'

const uuid = { type: 'string', format: 'uuid' } as const

export const NOTIFICATIONS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    query: { type: 'string', maxLength: 200 },
    notification_id: uuid,
    filter: { type: 'string', enum: FILTERS, default: 'all' },
    page: { type: 'integer', minimum: 1, maximum: 100_000, default: 1 },
    limit: { type: 'integer', minimum: 1, maximum: NOTIFICATIONS_MAX_LIMIT, default: 20 },
    workspace_id: uuid,
  },
} as const
