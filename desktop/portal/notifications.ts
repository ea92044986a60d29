// The optional portal cache of the notification inbox. A refresh reads, with
// the connection's token (the portal's live permissions), the portal's
// incidents of every local resource that has a portal counterpart (same
// external_id) and keeps one inbox entry per incident opening and recovery,
// labelled `source: 'portal'`, next to the local ones. The portal notification
// scopes are required: a token connected without notifications:read is told to
// reconnect. The first import is silent (its entries are claimed for the
// toaster as `silent_import`); later imports toast like local alerts.
import type { Database, Sql } from '../../core/index.ts'
import { PortalReconnectError } from '../errors.ts'
import { derivedUuid } from './catalogues.ts'
import { portalCall, type PortalTarget } from './client.ts'
import { readConnection } from './connection.ts'

export const NOTIFICATION_SCOPES = ['notifications:read', 'notifications:write'] as const

interface Incident { id: string; state: 'open' | 'closed'; opened_at: string; open_reason: string; closed_at: string | null; close_reason: string | null }

export async function refreshPortalNotifications(db: Database, ws: string, target: PortalTarget, portalWs: string) {
  const me = await portalCall<{ credential: { scopes: string[] } }>(target, 'GET', '/v1/me', undefined, { retries: 0 })
  const missing = NOTIFICATION_SCOPES.filter((s) => !me.body.credential.scopes.includes(s))
  if (missing.length > 0) {
    throw new PortalReconnectError(`the portal token was connected without ${missing.join(' and ')}; reconnect (lookout portal connect) with a token that has them`)
  }
  const conn = await readConnection(db, ws)
  const first = (await db.query<{ at: string | null }>('SELECT notifications_refreshed_at AS at FROM portal_connection WHERE workspace_id = $1', [ws])).rows[0]?.at == null
  const resources = (await db.query<{ id: string; external_id: string; name: string }>('SELECT id, external_id, name FROM resources WHERE workspace_id = $1 ORDER BY id', [ws])).rows
  let imported = 0
  for (const res of resources) {
    const found = await portalCall<{ items: { id: string }[] }>(target, 'GET', `/v1/workspaces/${portalWs}/resources`, undefined, { query: { external_id: res.external_id }, retries: 0 })
    const rid = found.body.items[0]?.id
    if (rid === undefined) continue
    const page = await portalCall<{ items: Incident[] }>(target, 'GET', `/v1/workspaces/${portalWs}/resources/${rid}/monitoring`, undefined, { query: { view: 'incidents', limit: 100 }, retries: 0 })
    for (const inc of page.body.items) {
      imported += await upsert(db, ws, portalWs, res, inc, 'incident.opened', first)
      if (inc.state === 'closed') imported += await upsert(db, ws, portalWs, res, inc, 'incident.closed', first)
      await db.query(`UPDATE notifications SET portal_incident_state = $2 WHERE workspace_id = $1 AND source = 'portal' AND incident_id = $3`, [ws, inc.state, inc.id])
    }
  }
  const r = await db.query<{ at: string }>(
    `UPDATE portal_connection SET notifications_refreshed_at = now() WHERE workspace_id = $1
     RETURNING to_char(notifications_refreshed_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS at`, [ws])
  return { source: 'portal', workspace_id: conn?.portal_workspace_id ?? portalWs, imported, first_import: first, silent: first, refreshed_at: r.rows[0]?.at ?? null }
}

async function upsert(db: Sql, ws: string, portalWs: string, res: { id: string; name: string }, inc: Incident, kind: 'incident.opened' | 'incident.closed', silent: boolean): Promise<number> {
  const opened = kind === 'incident.opened'
  const r = await db.query(
    `INSERT INTO notifications (id, workspace_id, source_event_id, kind, severity, resource_id, incident_id, title, body, created_at,
       source, portal_incident_state, toast_claimed_at, toast_state)
     VALUES (gen_random_uuid(), $1, $2, $3, $4, $5, $6, $7, $8, $9, 'portal', $10,
       CASE WHEN $11::boolean THEN now() END, CASE WHEN $11::boolean THEN 'silent_import' END)
     ON CONFLICT (source_event_id) DO NOTHING RETURNING 1`,
    [ws, derivedUuid('portal-incident', portalWs, inc.id, kind), kind, opened ? 'critical' : 'info', res.id, inc.id,
      opened ? `${res.name} is down (portal)` : `${res.name} recovered (portal)`,
      opened ? `The portal opened an incident: ${inc.open_reason}` : `The portal closed the incident: ${inc.close_reason ?? 'recovered'}`,
      opened ? inc.opened_at : inc.closed_at ?? inc.opened_at, inc.state, silent])
  return r.rows.length
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
