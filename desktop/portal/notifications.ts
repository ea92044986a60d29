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
    const removed = await tx.query(`DELETE FROM notifications WHERE workspace_id = $1 AND source = 'portal' AND NOT (id = ANY($2::uuid[]))`, [ws, items.map((i) => i.id)])
    const r = await tx.query<{ at: string }>(
      `UPDATE portal_connection SET notifications_refreshed_at = now() WHERE workspace_id = $1
       RETURNING to_char(notifications_refreshed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`, [ws])
    const conn = await readConnection(tx, ws)
    return {
      source: 'portal', workspace_id: conn?.portal_workspace_id ?? portalWs, items: items.length, imported, removed: removed.rowCount,
      portal_unread_count: unread, first_import: first, silent: first, refreshed_at: r.rows[0]?.at ?? null,
    }
  })
}

/** Adds the new entries and applies the portal's state to the known ones; returns how many were new. */
async function mirror(tx: Sql, ws: string, portalWs: string, items: FeedItem[], silent: boolean): Promise<number> {
  if (items.length === 0) return 0
  const rows = items.map((i) => ({
    id: i.id, event_id: derivedUuid('portal-notification', portalWs, i.id), kind: i.kind, severity: i.severity,
    // The source in the title too: a toast shows the title, not the source field.
    title: `${i.title} (portal)`, body: i.body, incident_id: i.incident_id, incident_state: i.incident_state,
    created_at: i.created_at, read_at: i.read_at, archived_at: i.archived_at, external_id: i.resource?.external_id ?? null,
  }))
  const r = await tx.query<{ inserted: boolean }>(
    `INSERT INTO notifications (id, workspace_id, source_event_id, kind, severity, resource_id, incident_id, title, body, created_at,
       read_at, archived_at, source, portal_incident_state, toast_claimed_at, toast_state)
     SELECT x.id, $1, x.event_id, x.kind, x.severity,
       (SELECT res.id FROM resources res WHERE res.workspace_id = $1 AND res.external_id = x.external_id),
       x.incident_id, x.title, x.body, x.created_at, x.read_at, x.archived_at, 'portal', x.incident_state,
       CASE WHEN $3::boolean THEN now() END, CASE WHEN $3::boolean THEN 'silent_import' END
     FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, event_id uuid, kind text, severity text, incident_id uuid, incident_state text,
       title text, body text, created_at timestamptz, read_at timestamptz, archived_at timestamptz, external_id text)
     ON CONFLICT (id) DO UPDATE SET read_at = EXCLUDED.read_at, archived_at = EXCLUDED.archived_at,
       portal_incident_state = EXCLUDED.portal_incident_state, resource_id = EXCLUDED.resource_id
       WHERE notifications.workspace_id = $1 AND notifications.source = 'portal'
     RETURNING (xmax = 0) AS inserted`,
    [ws, JSON.stringify(rows), silent])
  return r.rows.filter((x) => x.inserted).length
}

/** Whether an inbox entry is a cached portal entry (its actions are the portal's). */
export async function isPortalNotification(db: Sql, ws: string, id: string): Promise<boolean> {
  const r = await db.query<{ source: string }>('SELECT source FROM notifications WHERE workspace_id = $1 AND id = $2', [ws, id.toLowerCase()])
  return r.rows[0]?.source === 'portal'
}

export type PortalAction = 'read' | 'unread' | 'archive' | 'restore'

/** Does the action on the portal, then mirrors the portal's answer into the cached entry. */
export async function portalNotificationAction(db: Sql, ws: string, target: PortalTarget, portalWs: string, action: PortalAction, id: string): Promise<void> {
  const r = await portalCall<{ item: FeedItem }>(target, 'POST', `${feedPath(portalWs)}/actions`, { action, id: id.toLowerCase() }, { retries: 1 })
  await db.query(`UPDATE notifications SET read_at = $3, archived_at = $4 WHERE workspace_id = $1 AND id = $2 AND source = 'portal'`,
    [ws, id.toLowerCase(), r.body.item.read_at, r.body.item.archived_at])
}

/** read_all on the portal, then every cached portal entry read here; returns how many the portal marked. */
export async function portalReadAll(db: Sql, ws: string, target: PortalTarget, portalWs: string): Promise<number> {
  const r = await portalCall<{ updated: number }>(target, 'POST', `${feedPath(portalWs)}/actions`, { action: 'read_all' }, { retries: 1 })
  await db.query(`UPDATE notifications SET read_at = now() WHERE workspace_id = $1 AND source = 'portal' AND read_at IS NULL`, [ws])
  return r.body.updated
}

/** The portal source of the owner's notification listing: connection, state, freshness and cached items. */
export async function portalNotificationSource(db: Sql, ws: string) {
  const c = (await db.query<{ state: string; at: string | null }>(
    `SELECT state, to_char(notifications_refreshed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at FROM portal_connection WHERE workspace_id = $1`, [ws])).rows[0]
  const n = (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notifications WHERE workspace_id = $1 AND source = 'portal'`, [ws])).rows[0]?.n ?? 0
  // Without a connection the portal source is simply not available (offline), as before any connection existed.
  if (c === undefined) return { connected: false, state: 'offline', refreshed_at: null, items: n }
  return { connected: true, state: c.state, refreshed_at: c.at, items: n }
}
