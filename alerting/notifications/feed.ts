// The portal's notification feed for a connected desktop: the cloud's own inbox
// (every incident opening and recovery of the workspace, the alerts its users
// receive), whole, in a stable order, with the state of each entry, so the
// desktop can mirror it (new entries, read and archive changes, expiries).
import type { Sql } from '../../core/index.ts'
import type { NotificationView } from './store.ts'
import { toView, withIncidentState, type NotificationRow } from './store.ts'
import { resourceSummaries } from '../../workspace/index.ts'

/** Largest page of the feed. */
export const FEED_MAX_LIMIT = 500
export const FEED_DEFAULT_LIMIT = 200

export interface FeedItem extends NotificationView {
  /** The resource as the portal knows it: the desktop maps it to its own by external_id. */
  resource: { id: string; external_id: string; name: string } | null
}

/** A page of the whole inbox (archived entries included), oldest first, after the cursor (an inbox seq). */
export async function notificationFeed(db: Sql, ws: string, after: string | undefined, limit: number): Promise<{ items: FeedItem[]; next_cursor: string | null }> {
  const r = await db.query<NotificationRow>(
    'SELECT n.*, n.seq::text AS seq FROM notifications n WHERE n.workspace_id = $1 AND n.seq > $2::bigint ORDER BY n.seq LIMIT $3',
    [ws, after ?? '0', limit + 1])
  const rows = await withIncidentState(db, r.rows.slice(0, limit))
  // The resources' names are the workspace's: asked of it for the page.
  const resources = await resourceSummaries(db, ws, [...new Set(rows.flatMap((n) => (n.resource_id === null ? [] : [n.resource_id])))])
  const items = rows.map((n) => {
    const res = n.resource_id === null ? undefined : resources.get(n.resource_id)
    return {
      ...toView(n),
      resource: n.resource_id === null || res === undefined ? null : { id: n.resource_id, external_id: res.external_id, name: res.name },
    }
  })
  return { items, next_cursor: r.rows.length > limit ? (rows[rows.length - 1] as NotificationRow).seq : null }
}
