// Comments and edges as the portal sync (desktop/portal/records.ts) reads and
// writes them: their revisions (to find what changed since the last capture),
// their synced fields, the portal's canonical id taken over, and a portal
// version written locally. The sync's writes bypass the routes on purpose: no
// idempotency record, no assignment event; the caller records the activity.
import type { Sql } from '../../../core/index.ts'

export type SyncRecordKind = 'comment' | 'edge'

/** A comment's or an edge's synced fields. `item_id` is the commented task, or the edge's from item. */
export interface SyncRecord {
  id: string
  kind: SyncRecordKind
  item_id: string
  to_id: string | null
  relation: string | null
  body: string | null
  visibility: string | null
  author: number | null
  revision: number
  deleted: boolean
}

const TABLE: Record<SyncRecordKind, string> = { comment: 'project_comments', edge: 'project_edges' }
const COLS: Record<SyncRecordKind, string> = {
  comment: `id, 'comment' AS kind, item_id, NULL::uuid AS to_id, NULL::text AS relation, body, visibility, author, revision, deleted_at IS NOT NULL AS deleted`,
  edge: `id, 'edge' AS kind, from_id AS item_id, to_id, relation, NULL::text AS body, NULL::text AS visibility, NULL::integer AS author, revision, deleted_at IS NOT NULL AS deleted`,
}

/** Every comment's or edge's id and revision in the workspace (light: compared with what the sync captured). */
export async function recordRevisions(db: Sql, ws: string, kind: SyncRecordKind): Promise<{ id: string; revision: number }[]> {
  return (await db.query<{ id: string; revision: number }>(`SELECT id, revision FROM ${TABLE[kind]} WHERE workspace_id = $1 ORDER BY seq`, [ws])).rows
}

export async function recordsByIds(db: Sql, ws: string, kind: SyncRecordKind, ids: string[]): Promise<SyncRecord[]> {
  if (ids.length === 0) return []
  return (await db.query<SyncRecord>(`SELECT ${COLS[kind]} FROM ${TABLE[kind]} WHERE workspace_id = $1 AND id = ANY($2::uuid[]) ORDER BY seq`, [ws, ids])).rows
}

/** The record takes the portal's canonical id (nothing references a comment or an edge by id). */
export async function adoptRecordId(tx: Sql, ws: string, kind: SyncRecordKind, oldId: string, canonical: string): Promise<void> {
  if (oldId === canonical) return
  await tx.query(`UPDATE ${TABLE[kind]} SET id = $3 WHERE workspace_id = $1 AND id = $2`, [ws, oldId, canonical])
}

/** A portal record not known here, inserted with the portal's id; its revision, or null when the id is taken or an item is missing. */
export async function insertPortalRecord(tx: Sql, ws: string, r: SyncRecord): Promise<number | null> {
  const items = [r.item_id, ...(r.to_id === null ? [] : [r.to_id])]
  const have = await tx.query('SELECT id FROM project_items WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [ws, items])
  if (have.rows.length !== new Set(items).size) return null
  const out = r.kind === 'comment'
    ? await tx.query<{ revision: number }>(
      `INSERT INTO project_comments (id, workspace_id, item_id, body, visibility, author, deleted_at)
       VALUES ($1, $2, $3, $4, $5, $6, CASE WHEN $7::boolean THEN now() END) ON CONFLICT (id) DO NOTHING RETURNING revision`,
      [r.id, ws, r.item_id, r.body, r.visibility ?? 'shared', r.author, r.deleted])
    : await tx.query<{ revision: number }>(
      `INSERT INTO project_edges (id, workspace_id, from_id, to_id, relation, deleted_at)
       SELECT $1, $2, $3, $4, $5, CASE WHEN $6::boolean THEN now() END
       WHERE $6::boolean OR NOT EXISTS (SELECT 1 FROM project_edges WHERE workspace_id = $2 AND from_id = $3 AND to_id = $4 AND relation = $5 AND deleted_at IS NULL)
       ON CONFLICT (id) DO NOTHING RETURNING revision`,
      [r.id, ws, r.item_id, r.to_id, r.relation, r.deleted])
  return out.rows[0]?.revision ?? null
}

/** Writes a portal version's changed fields (a comment's body, deletion) into the local record; its new revision. */
export async function writeRecord(tx: Sql, ws: string, kind: SyncRecordKind, id: string, changes: { body?: unknown; deleted?: unknown }): Promise<number | null> {
  const sets: string[] = []
  const params: unknown[] = [ws, id]
  if (kind === 'comment' && typeof changes.body === 'string') {
    params.push(changes.body)
    sets.push(`body = $${params.length}`)
  }
  if (typeof changes.deleted === 'boolean') {
    params.push(changes.deleted)
    sets.push(`deleted_at = CASE WHEN $${params.length}::boolean THEN coalesce(deleted_at, now()) END`)
  }
  const r = await tx.query<{ revision: number }>(
    `UPDATE ${TABLE[kind]} SET ${[...sets, 'revision = revision + 1', 'updated_at = now()'].join(', ')} WHERE workspace_id = $1 AND id = $2 RETURNING revision`, params)
  return r.rows[0]?.revision ?? null
}
