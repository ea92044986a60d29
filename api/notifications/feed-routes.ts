// The cloud's desktop notification path: a connected desktop mirrors the
// portal's own inbox (every alert of the workspace) and marks entries read or
// archived there. Scopes notifications:read / notifications:write on a personal
// token, on their own path next to the public tool routes (local-desktop-api.md,
// Notification routes). Only the cloud serves it (not the desktop service).
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../core/index.ts'
import { ForbiddenError, RequestInvalid, detail } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { SCOPES, WORKSPACE_PARAMS } from '../../workspace/index.ts'
import {
  ACTIONS, FEED_DEFAULT_LIMIT, FEED_MAX_LIMIT, notificationAction, notificationFeed, readAll, unreadCount, type NotificationAction,
} from '../../alerting/index.ts'

const P = '/v1/workspaces/:workspace_id/desktop/notifications'

export const FEED_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    after: { type: 'string', pattern: '^[0-9]{1,19}$', description: 'the next_cursor of the previous page' },
    limit: { type: 'integer', minimum: 1, maximum: FEED_MAX_LIMIT, default: FEED_DEFAULT_LIMIT },
  },
} as const

export const FEED_ACTION_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: { action: { type: 'string', enum: ACTIONS }, id: { type: 'string', format: 'uuid' } },
} as const

function personal(resourceIds: readonly string[] | null): void {
  if (resourceIds !== null) throw new ForbiddenError('the notification feed needs a personal token (every resource); a resource-scoped token cannot read it')
}

export async function notificationFeedRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts

  app.get(P, {
    config: { auth: { contract: 'cloud', scope: SCOPES.notificationsRead } },
    schema: { summary: 'The workspace\'s notification inbox for a connected desktop, oldest first, archived entries included', params: WORKSPACE_PARAMS, querystring: FEED_QUERY },
  }, async (req) => {
    const p = principalOf(req)
    personal(p.resourceIds)
    const q = req.query as { after?: string; limit: number }
    const page = await notificationFeed(db, p.workspaceId, q.after, q.limit)
    return { workspace_id: p.workspaceId, ...page, unread_count: await unreadCount(db, p.workspaceId) }
  })

  app.post(`${P}/actions`, {
    config: { auth: { contract: 'cloud', scope: SCOPES.notificationsWrite } },
    schema: { summary: 'Mark a notification read, unread, archived or restored (or every one read) from a connected desktop', params: WORKSPACE_PARAMS, body: FEED_ACTION_BODY },
  }, async (req) => {
    const p = principalOf(req)
    personal(p.resourceIds)
    const b = req.body as { action: NotificationAction; id?: string }
    if (b.action === 'read_all') {
      if (b.id !== undefined) throw new RequestInvalid([detail(['body', 'id'], 'read_all takes no id', 'value_error', b.id)])
      return { action: 'read_all', updated: await readAll(db, p.workspaceId, Date.now()), unread_count: await unreadCount(db, p.workspaceId) }
    }
    if (b.id === undefined) throw new RequestInvalid([detail(['body', 'id'], `${b.action} needs the notification id`, 'missing')])
    const item = await notificationAction(db, p.workspaceId, b.action, b.id, Date.now())
    return { action: b.action, item, unread_count: await unreadCount(db, p.workspaceId) }
  })
}
