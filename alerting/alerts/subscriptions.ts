// A subscriber's alert channel choices per resource (MonitorSubscription, and the
// alerts route's subscribe operation): which channels route reads for them.
import type { Sql } from '../../core/index.ts'
import { CHANNELS, DEFAULT_STATE } from './channels.ts'

/** Alert channels and their default state for a subscriber who saved nothing. */
export const DEFAULT_CHANNELS: Readonly<Record<string, 'on' | 'off'>> = Object.fromEntries(CHANNELS.map((c) => [c, DEFAULT_STATE[c]]))

export interface SubscriptionView {
  resource_id: string
  subscriber: string
  source: 'defaults' | 'saved' | 'unsubscribed'
  channels: Record<string, 'on' | 'off'>
}

export async function getSubscription(db: Sql, workspaceId: string, resourceId: string, subscriber: string): Promise<SubscriptionView> {
  const r = await db.query<{ channels: Record<string, 'on' | 'off'>; unsubscribed: boolean }>(
    'SELECT channels, unsubscribed FROM monitor_subscriptions WHERE workspace_id = $1 AND resource_id = $2 AND subscriber = $3',
    [workspaceId, resourceId, subscriber])
  const row = r.rows[0]
  if (row === undefined) return { resource_id: resourceId, subscriber, source: 'defaults', channels: { ...DEFAULT_CHANNELS } }
  return { resource_id: resourceId, subscriber, source: row.unsubscribed ? 'unsubscribed' : 'saved', channels: row.channels }
}

/** defaults: forget saved choices; save: merge the given channels over the current ones; unsubscribe: every channel off. */
export async function changeSubscription(
  db: Sql, workspaceId: string, resourceId: string, subscriber: string, action: 'defaults' | 'save' | 'unsubscribe', channels: Record<string, 'on' | 'off'>,
): Promise<SubscriptionView> {
  if (action === 'defaults') {
    await db.query('DELETE FROM monitor_subscriptions WHERE workspace_id = $1 AND resource_id = $2 AND subscriber = $3', [workspaceId, resourceId, subscriber])
    return getSubscription(db, workspaceId, resourceId, subscriber)
  }
  const current = await getSubscription(db, workspaceId, resourceId, subscriber)
  const next: Record<string, 'on' | 'off'> = action === 'save'
    ? { ...(current.source === 'unsubscribed' ? DEFAULT_CHANNELS : current.channels), ...channels }
    : Object.fromEntries(Object.keys({ ...DEFAULT_CHANNELS, ...current.channels, ...channels }).map((k) => [k, 'off' as const]))
  await db.query(
    `INSERT INTO monitor_subscriptions (workspace_id, resource_id, subscriber, channels, unsubscribed, updated_at) VALUES ($1, $2, $3, $4, $5, now())
     ON CONFLICT (workspace_id, resource_id, subscriber) DO UPDATE SET channels = EXCLUDED.channels, unsubscribed = EXCLUDED.unsubscribed, updated_at = now()`,
    [workspaceId, resourceId, subscriber, JSON.stringify(next), action === 'unsubscribe'])
  return { resource_id: resourceId, subscriber, source: action === 'unsubscribe' ? 'unsubscribed' : 'saved', channels: next }
}
