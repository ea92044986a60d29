// Monitor sources (collectors and heartbeat senders enrolled on a resource,
// each with its own source token). Per-subscriber alert channel choices are alerting's
// (alerting/alerts/subscriptions.ts).
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
