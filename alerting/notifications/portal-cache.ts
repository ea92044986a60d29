// The inbox's cached portal entries (source 'portal'): the desktop's portal sync
// (desktop/portal/notifications.ts) mirrors the portal's feed into them and
// mirrors its read and archive answers back; the statements on the
// notifications table are this stage's, each in the caller's transaction.
import type { Sql } from '../../core/index.ts'
import type { NotificationView } from './store.ts'

/**
 * A portal feed entry as cached here: the portal's id is the entry's id, `event_id`
 * derived from it; `resource_id` the local resource of the same external id.
 */
export type PortalEntry = Omit<NotificationView, 'source' | 'state'> & { event_id: string }

/**
 * Adds the new entries and applies the portal's state to the known ones; returns
 * how many were new. `silent`: the new ones are claimed for the toaster without a toast.
 */
export async function mirrorPortalEntries(tx: Sql, ws: string, rows: readonly PortalEntry[], silent: boolean): Promise<number> {
  if (rows.length === 0) return 0
  const r = await tx.query<{ inserted: boolean }>(
    `INSERT INTO notifications (id, workspace_id, source_event_id, kind, severity, resource_id, incident_id, title, body, created_at,
       read_at, archived_at, source, portal_incident_state, toast_claimed_at, toast_state)
     SELECT x.id, $1, x.event_id, x.kind, x.severity, x.resource_id,
       x.incident_id, x.title, x.body, x.created_at, x.read_at, x.archived_at, 'portal', x.incident_state,
       CASE WHEN $3::boolean THEN now() END, CASE WHEN $3::boolean THEN 'silent_import' END
     FROM jsonb_to_recordset($2::jsonb) AS x(id uuid, event_id uuid, kind text, severity text, incident_id uuid, incident_state text,
       title text, body text, created_at timestamptz, read_at timestamptz, archived_at timestamptz, resource_id uuid)
     ON CONFLICT (id) DO UPDATE SET read_at = EXCLUDED.read_at, archived_at = EXCLUDED.archived_at,
       portal_incident_state = EXCLUDED.portal_incident_state, resource_id = EXCLUDED.resource_id
       WHERE notifications.workspace_id = $1 AND notifications.source = 'portal'
     RETURNING (xmax = 0) AS inserted`,
    [ws, JSON.stringify(rows), silent])
  return r.rows.filter((x) => x.inserted).length
}

/** Removes the cached entries the portal no longer has; returns how many. */
export async function dropPortalEntriesExcept(tx: Sql, ws: string, keep: readonly string[]): Promise<number> {
  const removed = await tx.query(`DELETE FROM notifications WHERE workspace_id = $1 AND source = 'portal' AND NOT (id = ANY($2::uuid[]))`, [ws, [...keep]])
  return removed.rowCount
}

/** Whether an inbox entry is a cached portal entry (its actions are the portal's). */
export async function isPortalNotification(db: Sql, ws: string, id: string): Promise<boolean> {
  const r = await db.query<{ source: string }>('SELECT source FROM notifications WHERE workspace_id = $1 AND id = $2', [ws, id.toLowerCase()])
  return r.rows[0]?.source === 'portal'
}

/** The portal's read and archive state of one cached entry, as the portal answered an action. */
export async function setPortalEntryState(db: Sql, ws: string, id: string, readAt: string | null, archivedAt: string | null): Promise<void> {
  await db.query(`UPDATE notifications SET read_at = $3, archived_at = $4 WHERE workspace_id = $1 AND id = $2 AND source = 'portal'`,
    [ws, id.toLowerCase(), readAt, archivedAt])
}

/** Every unread cached portal entry read now (the portal did read_all). */
export async function readAllPortalEntries(db: Sql, ws: string): Promise<void> {
  await db.query(`UPDATE notifications SET read_at = now() WHERE workspace_id = $1 AND source = 'portal' AND read_at IS NULL`, [ws])
}

export async function countPortalEntries(db: Sql, ws: string): Promise<number> {
  return (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM notifications WHERE workspace_id = $1 AND source = 'portal'`, [ws])).rows[0]?.n ?? 0
}
