// Saved searches: a named log query (text, severity, trace id, attribute
// filters, range) for one resource or for every resource the reader may see,
// shared in its workspace. Edits name the revision they saw; a stale one is a
// conflict, never a silent overwrite.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../core/index.ts'
import { ConflictError, NotFoundError } from '../core/index.ts'

export interface SavedQuery {
  q?: string
  severity?: string
  trace_id?: string
  filters?: { scope: 'attr' | 'resource'; key: string; value: string; negate?: boolean }[]
  range?: { last?: string; start?: string; end?: string }
}

export interface SavedSearch {
  id: string
  name: string
  resource_id: string | null
  query: SavedQuery
  /** The staff member who saved it (null for a token without one). */
  created_by: number | null
  revision: number
  created_at: string
  updated_at: string
}

export interface SavedSearchPatch {
  name?: string
  resource_id?: string | null
  query?: SavedQuery
}

/** Saved searches a workspace may hold, at most. */
export const SAVED_SEARCHES_MAX = 1000

const COLS = 'id, name, resource_id, query, created_by, revision, created_at, updated_at'

interface Row {
  id: string
  name: string
  resource_id: string | null
  query: SavedQuery | string
  created_by: number | null
  revision: number
  created_at: Date | string
  updated_at: Date | string
}

function view(r: Row): SavedSearch {
  return {
    id: r.id, name: r.name, resource_id: r.resource_id,
    query: typeof r.query === 'string' ? JSON.parse(r.query) as SavedQuery : r.query,
    created_by: r.created_by, revision: r.revision,
    created_at: new Date(r.created_at).toISOString(), updated_at: new Date(r.updated_at).toISOString(),
  }
}

/** The workspace's saved searches, by name (the route keeps those the reader's grant reaches). */
export async function listSavedSearches(db: Sql, workspaceId: string): Promise<SavedSearch[]> {
  const r = await db.query<Row>(`SELECT ${COLS} FROM saved_searches WHERE workspace_id = $1 ORDER BY name, id LIMIT ${SAVED_SEARCHES_MAX}`, [workspaceId])
  return r.rows.map(view)
}

export async function getSavedSearch(db: Sql, workspaceId: string, id: string): Promise<SavedSearch> {
  const r = await db.query<Row>(`SELECT ${COLS} FROM saved_searches WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])
  const row = r.rows[0]
  if (row === undefined) throw new NotFoundError('saved search')
  return view(row)
}

export async function createSavedSearch(db: Sql, workspaceId: string, input: { name: string; resource_id: string | null; query: SavedQuery }, createdBy: number | null): Promise<SavedSearch> {
  const count = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM saved_searches WHERE workspace_id = $1', [workspaceId])
  if ((count.rows[0]?.n ?? 0) >= SAVED_SEARCHES_MAX) throw new ConflictError(`the workspace already holds ${SAVED_SEARCHES_MAX} saved searches; delete one first`)
  const r = await db.query<Row>(
    `INSERT INTO saved_searches (id, workspace_id, name, resource_id, query, created_by) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COLS}`,
    [randomUUID(), workspaceId, input.name, input.resource_id, JSON.stringify(input.query), createdBy])
  return view(r.rows[0] as Row)
}

/** Applies the fields given, if `revision` is still the current one (409 otherwise). */
export async function updateSavedSearch(db: Sql, workspaceId: string, id: string, revision: number, patch: SavedSearchPatch): Promise<SavedSearch> {
  const r = await db.query<Row>(
    `UPDATE saved_searches SET
       name = COALESCE($4, name),
       resource_id = CASE WHEN $5::boolean THEN $6::uuid ELSE resource_id END,
       query = COALESCE($7::jsonb, query),
       revision = revision + 1, updated_at = now()
     WHERE workspace_id = $1 AND id = $2 AND revision = $3 RETURNING ${COLS}`,
    [workspaceId, id, revision, patch.name ?? null, patch.resource_id !== undefined, patch.resource_id ?? null,
      patch.query === undefined ? null : JSON.stringify(patch.query)])
  const row = r.rows[0]
  if (row !== undefined) return view(row)
  const now = await getSavedSearch(db, workspaceId, id) // 404 when it is gone
  throw new ConflictError(`the saved search is at revision ${now.revision}, not ${revision}: reload it and apply the change again`)
}

export async function deleteSavedSearch(db: Sql, workspaceId: string, id: string): Promise<void> {
  const r = await db.query('DELETE FROM saved_searches WHERE workspace_id = $1 AND id = $2', [workspaceId, id])
  if (r.rowCount === 0) throw new NotFoundError('saved search')
}
