// The portal's notification feed for a connected desktop: the cloud's own inbox
// (every incident opening and recovery of the workspace, the alerts its users
// receive), whole, in a stable order, with the state of each entry, so the
// desktop can mirror it (new entries, read and archive changes, expiries).
import type { Sql } from '../../core/index.ts'
import type { NotificationView } from './store.ts'
import { toView, type NotificationRow } from './store.ts'

/** Largest page of the feed. */
export const FEED_MAX_LIMIT = 500
export const FEED_DEFAULT_LIMIT = 200

export interface FeedItem extends NotificationView {
  /** The resource as the portal knows it: the desktop maps it to its own by external_id. */
  resource: { id: string; external_id: string; name: string } | null
}

interface FeedRow extends NotificationRow {
  r_external_id: string | null
  r_name: string | null
}

/** A page of the whole inbox (archived entries included), oldest first, after the cursor (an inbox seq). */
export async function notificationFeed(db: Sql, ws: string, after: string | undefined, limit: number): Promise<{ items: FeedItem[]; next_cursor: string | null }> {
  const r = await db.query<FeedRow>(
    `SELECT n.*, n.seq::text AS seq,
       CASE WHEN n.incident_id IS NULL THEN NULL WHEN mi.closed_at IS NULL AND mi.id IS NOT NULL THEN 'open' ELSE 'closed' END AS incident_state,
       r.external_id AS r_external_id, r.name AS r_name
     FROM notifications n LEFT JOIN monitor_incidents mi ON mi.id = n.incident_id
       LEFT JOIN resources r ON r.id = n.resource_id AND r.workspace_id = n.workspace_id
     WHERE n.workspace_id = $1 AND n.seq > $2::bigint ORDER BY n.seq LIMIT $3`,
    [ws, after ?? '0', limit + 1])
  const rows = r.rows.slice(0, limit)
  const items = rows.map((n) => ({
    ...toView(n),
    resource: n.resource_id === null || n.r_external_id === null ? null : { id: n.resource_id, external_id: n.r_external_id, name: n.r_name ?? '' },
  }))
  return { items, next_cursor: r.rows.length > limit ? (rows[rows.length - 1] as FeedRow).seq : null }
}
