// The request schemas the stdio tool server (deploy/mcp) offers as tool
// inputs: the routes' own schemas, so a tool accepts exactly what its route does.
import { COMMENT_CREATE, FILTER_PROPERTIES } from '../projects/schemas/cloud.ts'
import {
  BOARDS_QUERY, EDGES_QUERY, HISTORY_QUERY, ITEM_ACTION, ITEM_CREATE, ITEM_LIST_QUERY, NOTE_PATCH, STATUSES_QUERY, TASK_PATCH,
  TAXONOMY_QUERY, TAXONOMY_WRITE, WS_QUERY,
} from '../projects/schemas/desktop.ts'
import { DESKTOP_MONITORING_QUERY } from '../monitoring/schemas.ts'
import { RESOURCE_LIST_QUERY } from '../resources/schemas.ts'
import { FILTERS } from '../notifications/store.ts'
import { MAX_LIMIT as NOTIFICATIONS_MAX_LIMIT } from '../notifications/routes.ts'

const uuid = { type: 'string', format: 'uuid' } as const

/** The notification listing's query (local-desktop-api.md, Notification routes). */
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

/** Task comments, read side: the filter set's parameters that a comment listing uses. */
export const COMMENTS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: { cursor: FILTER_PROPERTIES.cursor, limit: FILTER_PROPERTIES.limit, q: FILTER_PROPERTIES.q, deleted: FILTER_PROPERTIES.deleted },
} as const

export const TOOL_SCHEMAS = {
  ITEM_LIST_QUERY, ITEM_CREATE, TASK_PATCH, NOTE_PATCH, ITEM_ACTION, HISTORY_QUERY, WS_QUERY, BOARDS_QUERY, STATUSES_QUERY,
  TAXONOMY_QUERY, TAXONOMY_WRITE, EDGES_QUERY, COMMENT_CREATE, COMMENTS_QUERY, DESKTOP_MONITORING_QUERY, RESOURCE_LIST_QUERY,
  NOTIFICATIONS_QUERY,
} as const
