// The portal's own notifications, cached in the desktop inbox. A refresh reads
// the portal's notification feed (GET /v1/workspaces/{ws}/desktop/notifications,
// scope notifications:read: the portal user's whole inbox, every alert of the
// portal workspace, not only resources this desktop also has) and mirrors it:
// new entries are added with `source: 'portal'` (the portal's id is the entry's
// id here), read and archive changes made on the portal are applied, entries the
// portal no longer has are removed. Marking a portal entry read, unread,
// archived or restored here is done on the portal first (scope
// notifications:write) and mirrored back; offline it fails and nothing changes.
// The first import is silent (claimed for the toaster as `silent_import`); later
// imports toast like local alerts.
import type { Database, Sql } from '../../core/index.ts'
import { countPortalEntries, dropPortalEntriesExcept, mirrorPortalEntries, readAllPortalEntries, setPortalEntryState } from '../../alerting/index.ts'
import { resourceIdsByExternalId } from '../../workspace/index.ts'
import { PortalReconnectError } from '../errors.ts'
import { derivedUuid } from './catalogues.ts'
import { portalCall, type PortalTarget } from './client.ts'
import { readConnection } from './connection.ts'

export const NOTIFICATION_SCOPES = ['notifications:read', 'notifications:write'] as const
/** Entries per feed page (the portal's maximum). */
const FEED_PAGE = 500

/** A feed entry as the portal serves it (alerting/notifications/feed.ts). */
interface FeedItem {
  id: string
  kind: string
  severity: string
  title: string
  body: string
  incident_id: string | null
  incident_state: 'open' | 'closed' | null
  created_at: string
  read_at: string | null
  archived_at: string | null
  resource: { id: string; external_id: string; name: string } | null
}

const feedPath = (portalWs: string) => `/v1/workspaces/${portalWs}/desktop/notifications`

/** The token's live scopes on the portal (GET /v1/me): a token connected before the scopes existed is told to reconnect. */
async function requireScopes(target: PortalTarget): Promise<void> {
  const me = await portalCall<{ credential: { scopes: string[] } }>(target, 'GET', '/v1/me', undefined, { retries: 0 })
  const missing = NOTIFICATION_SCOPES.filter((s) => !me.body.credential.scopes.includes(s))
  if (missing.length > 0) {
    throw new PortalReconnectError(`the portal token was connected without ${missing.join(' and ')}; reconnect (lookout portal connect) with a token that has them`)
  }
}

export async function refreshPortalNotifications(db: Database, ws: string, target: PortalTarget, portalWs: string) {
  await requireScopes(target)
  const items: FeedItem[] = []
  let after: string | undefined
  let unread = 0
  // The whole inbox, page by page (the portal keeps 90 days): mirrored in one transaction below.
  for (;;) {
    const page = await portalCall<{ items: FeedItem[]; next_cursor: string | null; unread_count: number }>(
      target, 'GET', feedPath(portalWs), undefined, { query: { after, limit: FEED_PAGE }, retries: 1 })
    for (const it of page.body.items) items.push(it)
    unread = page.body.unread_count
    if (page.body.next_cursor === null) break
    after = page.body.next_cursor
  }
  return db.transaction(async (tx) => {
    const first = (await tx.query<{ at: string | null }>('SELECT notifications_refreshed_at AS at FROM portal_connection WHERE workspace_id = $1', [ws])).rows[0]?.at == null
    const imported = await mirror(tx, ws, portalWs, items, first)
    const removed = await dropPortalEntriesExcept(tx, ws, items.map((i) => i.id))
    const r = await tx.query<{ at: string }>(
      `UPDATE portal_connection SET notifications_refreshed_at = now() WHERE workspace_id = $1
       RETURNING to_char(notifications_refreshed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`, [ws])
    const conn = await readConnection(tx, ws)
    return {
      source: 'portal', workspace_id: conn?.portal_workspace_id ?? portalWs, items: items.length, imported, removed,
      portal_unread_count: unread, first_import: first, silent: first, refreshed_at: r.rows[0]?.at ?? null,
    }
  })
}

/** Adds the new entries and applies the portal's state to the known ones; returns how many were new. */
async function mirror(tx: Sql, ws: string, portalWs: string, items: FeedItem[], silent: boolean): Promise<number> {
  if (items.length === 0) return 0
  // The portal names a resource by its external id; the entry is about the local resource of the same one.
  const local = await resourceIdsByExternalId(tx, ws, [...new Set(items.flatMap((i) => (i.resource === null ? [] : [i.resource.external_id])))])
  return mirrorPortalEntries(tx, ws, items.map((i) => ({
    id: i.id, event_id: derivedUuid('portal-notification', portalWs, i.id), kind: i.kind, severity: i.severity,
    // The source in the title too: a toast shows the title, not the source field.
    title: `${i.title} (portal)`, body: i.body, incident_id: i.incident_id, incident_state: i.incident_state,
    created_at: i.created_at, read_at: i.read_at, archived_at: i.archived_at,
    resource_id: i.resource === null ? null : local.get(i.resource.external_id) ?? null,
  })), silent)
}

export type PortalAction = 'read' | 'unread' | 'archive' | 'restore'

/** Does the action on the portal, then mirrors the portal's answer into the cached entry. */
export async function portalNotificationAction(db: Sql, ws: string, target: PortalTarget, portalWs: string, action: PortalAction, id: string): Promise<void> {
  const r = await portalCall<{ item: FeedItem }>(target, 'POST', `${feedPath(portalWs)}/actions`, { action, id: id.toLowerCase() }, { retries: 1 })
  await setPortalEntryState(db, ws, id, r.body.item.read_at, r.body.item.archived_at)
}

/** read_all on the portal, then every cached portal entry read here; returns how many the portal marked. */
export async function portalReadAll(db: Sql, ws: string, target: PortalTarget, portalWs: string): Promise<number> {
  const r = await portalCall<{ updated: number }>(target, 'POST', `${feedPath(portalWs)}/actions`, { action: 'read_all' }, { retries: 1 })
  await readAllPortalEntries(db, ws)
  return r.body.updated
}

/** The portal source of the owner's notification listing: connection, state, freshness and cached items. */
export async function portalNotificationSource(db: Sql, ws: string) {
  const c = (await db.query<{ state: string; at: string | null }>(
    `SELECT state, to_char(notifications_refreshed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM portal_connection WHERE workspace_id = $1`, [ws])).rows[0]
  const n = await countPortalEntries(db, ws)
  // Without a connection the portal source is simply not available (offline), as before any connection existed.
  if (c === undefined) return { connected: false, state: 'offline', refreshed_at: null, items: n }
  return { connected: true, state: c.state, refreshed_at: c.at, items: n }
}
