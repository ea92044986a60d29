// Monitor sources (collectors and heartbeat senders enrolled on a resource,
// each with its own source token) and per-subscriber alert channel choices.
import type { Sql } from '../core/index.ts'
import { CheckNotFoundError, IdTakenError } from './errors.ts'
import { iso } from './rows.ts'

export const SOURCE_KINDS = ['collector', 'heartbeat'] as const
export type SourceKind = (typeof SOURCE_KINDS)[number]

export interface SourceView {
  id: string
  name: string
  kind: SourceKind
  token_id: string
  created_at: string
  revoked_at: string | null
  /** Collectors: when it last called the API, what version it runs, from which address. */
  last_contact_at: string | null
  version: string | null
  address: string | null
  /** Collectors: since when it is declared offline (silent too long); null while it reports. */
  offline_since: string | null
}

interface SourceRow {
  id: string
  workspace_id: string
  resource_id: string
  name: string
  kind: SourceKind
  token_id: string
  created_at: Date
  revoked_at: Date | null
  last_contact_at?: Date | null
  version?: string | null
  address?: string | null
  offline_since?: Date | null
}

const view = (r: SourceRow): SourceView => ({
  id: r.id, name: r.name, kind: r.kind, token_id: r.token_id, created_at: iso(r.created_at) as string, revoked_at: iso(r.revoked_at),
  last_contact_at: iso(r.last_contact_at ?? null), version: r.version ?? null, address: r.address ?? null, offline_since: iso(r.offline_since ?? null),
})

export async function insertSource(db: Sql, s: { id: string; workspaceId: string; resourceId: string; name: string; kind: SourceKind; tokenId: string }): Promise<SourceView> {
  const r = await db.query<SourceRow>(
    `INSERT INTO monitor_sources (id, workspace_id, resource_id, name, kind, token_id) VALUES ($1, $2, $3, $4, $5, $6)
     ON CONFLICT (id) DO NOTHING RETURNING *`, [s.id, s.workspaceId, s.resourceId, s.name, s.kind, s.tokenId])
  if (r.rows[0] === undefined) throw new IdTakenError(s.id)
  return view(r.rows[0])
}

/** Whether the id is taken by any source (ids are global). */
export async function sourceExists(db: Sql, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM monitor_sources WHERE id = $1', [id])).rows.length > 0
}

/** Whether the source is enrolled (and not revoked) on this resource. */
export async function sourceOnResource(db: Sql, workspaceId: string, resourceId: string, id: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM monitor_sources WHERE id = $1 AND workspace_id = $2 AND resource_id = $3 AND revoked_at IS NULL', [id, workspaceId, resourceId])
  return r.rows.length > 0
}

/** Marks the source revoked; returns it (with the token id to revoke) or throws 404. */
export async function revokeSource(db: Sql, workspaceId: string, resourceId: string, id: string, now: number): Promise<SourceView> {
  const r = await db.query<SourceRow>(
    `UPDATE monitor_sources SET revoked_at = COALESCE(revoked_at, $4::timestamptz) WHERE id = $1 AND workspace_id = $2 AND resource_id = $3 RETURNING *`,
    [id, workspaceId, resourceId, new Date(now).toISOString()])
  if (r.rows[0] === undefined) throw new CheckNotFoundError('monitor source')
  return view(r.rows[0])
}

export async function listSources(db: Sql, workspaceId: string, resourceId: string): Promise<SourceView[]> {
  const r = await db.query<SourceRow>('SELECT * FROM monitor_sources WHERE workspace_id = $1 AND resource_id = $2 ORDER BY created_at, id LIMIT 500', [workspaceId, resourceId])
  return r.rows.map(view)
}

/** Alert channels and their default state for a subscriber who saved nothing. */
export const DEFAULT_CHANNELS: Readonly<Record<string, 'on' | 'off'>> = { email: 'on', sms: 'off', webhook: 'on', slack: 'on', discord: 'on' }

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
