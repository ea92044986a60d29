// Desktop notification routes. Listing needs a personal grant (every
// resource) with notifications:read and never marks anything read; actions,
// settings and the portal refresh are owner-only socket operations.
import type { FastifyInstance } from 'fastify'
import { principalOf } from '../auth/plugin.ts'
import type { Database } from '../../core/index.ts'
import { BadRequestError, ForbiddenError } from '../../core/index.ts'
import { PortalOfflineError } from '../../desktop/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { portalNotificationSource } from '../../desktop/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'
import {
  ACTIONS, listNotifications, notificationAction, readAll, readSettings, saveSettings, unreadCount,
  type ListQuery, type NotificationAction, NOTIFICATIONS_QUERY } from '../../alerting/index.ts'

const uuid = { type: 'string', format: 'uuid' } as const

const ACTION_BODY = {
  type: 'object',
  additionalProperties: false,
  required: ['action'],
  properties: { action: { type: 'string', enum: ACTIONS }, id: uuid },
} as const

const SETTINGS_BODY = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  properties: { notification_toasts: { type: 'boolean' } },
} as const

const WS_QUERY = { type: 'object', additionalProperties: false, properties: { workspace_id: uuid } } as const
const OWNER = { auth: { contract: 'desktop', scope: null, ownerOnly: true }, access: OWNER_ONLY } as const


export interface NotificationRouteOptions {
  db: Database
  /** The desktop service's portal cache (desktop/portal/notifications.ts); absent: refresh always fails offline. */
  portal?: PortalNotifications
}

export interface PortalNotifications {
  refresh(workspaceId: string): Promise<unknown>
  /** Does the action on the portal when the entry is a cached portal one (true); false: a local entry. */
  action(workspaceId: string, action: Exclude<NotificationAction, 'read_all'>, id: string): Promise<boolean>
  /** read_all on the portal; null without a connection. */
  readAll(workspaceId: string): Promise<number | null>
}

export async function notificationRoutes(app: FastifyInstance, opts: NotificationRouteOptions): Promise<void> {
  const { db } = opts

  app.get('/v1/notifications', {
    config: { auth: { contract: 'desktop', scope: SCOPES.notificationsRead }, access: [SCOPES.notificationsRead] }, schema: { querystring: NOTIFICATIONS_QUERY },
  }, async (req) => {
    const p = principalOf(req)
    if (p.resourceIds !== null) throw new ForbiddenError('notifications need a personal grant; a resource-scoped grant cannot read them')
    const q = req.query as ListQuery & { workspace_id?: string }
    if (q.workspace_id !== undefined && q.workspace_id.toLowerCase() !== p.workspaceId) throw new ForbiddenError('the token belongs to another workspace')
    const page = await listNotifications(db, p.workspaceId, q)
    if (!req.isOwner) return page
    return {
      ...page,
      unread_count: await unreadCount(db, p.workspaceId),
      sources: { local: { state: 'current' }, portal: await portalNotificationSource(db, p.workspaceId) },
    }
  })

  app.post('/v1/notifications/actions', { config: OWNER, schema: { querystring: WS_QUERY, body: ACTION_BODY } }, async (req) => {
    const ws = principalOf(req).workspaceId
    const b = req.body as { action: NotificationAction; id?: string }
    if (b.action === 'read_all') {
      if (b.id !== undefined) throw new BadRequestError('read_all takes no id')
      // Local entries here; the portal's on the portal. Offline, the local ones are still marked and the answer says the portal's were not.
      const updated = await readAll(db, ws, Date.now(), opts.portal !== undefined)
      let portal: { updated: number | null } | { error: { message: string; code: string } } = { updated: null }
      try {
        portal = { updated: opts.portal === undefined ? null : await opts.portal.readAll(ws) }
      } catch (err) {
        const e = err as { message: string; code?: string }
        portal = { error: { message: e.message, code: e.code ?? 'LOOKOUT_PORTAL_OFFLINE' } }
      }
      return { action: 'read_all', updated, portal, unread_count: await unreadCount(db, ws) }
    }
    if (b.id === undefined) throw new BadRequestError(`${b.action} needs the notification id`)
    // A portal entry is marked on the portal (offline: 503, unchanged here), then read back like a local one.
    if (opts.portal !== undefined) await opts.portal.action(ws, b.action, b.id)
    const item = await notificationAction(db, ws, b.action, b.id, Date.now())
    return { action: b.action, item, unread_count: await unreadCount(db, ws) }
  })

  app.post('/v1/notifications/refresh', { config: OWNER, schema: { querystring: WS_QUERY } }, async (req) => {
    // Portal-backed reads fail offline; local notifications are never offered in their place.
    if (opts.portal === undefined) throw new PortalOfflineError('no portal connection is configured, so the portal notification cache cannot be refreshed')
    return opts.portal.refresh(principalOf(req).workspaceId)
  })

  app.get('/v1/notifications/settings', { config: OWNER, schema: { querystring: WS_QUERY } }, async (req) => readSettings(db, principalOf(req).workspaceId))

  app.put('/v1/notifications/settings', { config: OWNER, schema: { querystring: WS_QUERY, body: SETTINGS_BODY } }, async (req) =>
    saveSettings(db, principalOf(req).workspaceId, req.body as { notification_toasts?: boolean }))
}
