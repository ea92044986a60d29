// Relationships between items (desktop /v1/projects/edges). Deleting one leaves
// a tombstone (deleted_at set, revision bumped) so synchronisation can carry the
// deletion; `deleted=true` lists the tombstones.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { DuplicateError, ItemDeletedError } from '../../errors.ts'
import { NotFoundError } from '../../../core/index.ts'
import { recordActivity } from './activity.ts'
import type { ProjectCtx } from './context.ts'
import { checkRevision } from './items.ts'
import { Params, type Page } from './lists.ts'
import { Problems, REF_TYPES } from './refs.ts'

interface EdgeRow {
  id: string
  seq: string
  workspace_id: string
  from_id: string
  to_id: string
  relation: string
  revision: number
  deleted_at: Date | null
  created_at: Date
  updated_at: Date
}

const EDGE_COLS = 'id, seq::text AS seq, workspace_id, from_id, to_id, relation, revision, deleted_at, created_at, updated_at'

export function toEdge(e: EdgeRow) {
  return {
    id: e.id, workspace_id: e.workspace_id, from_id: e.from_id, to_id: e.to_id, relation: e.relation, revision: e.revision,
    deleted: e.deleted_at !== null, deleted_at: e.deleted_at === null ? null : new Date(e.deleted_at).toISOString(),
    created_at: new Date(e.created_at).toISOString(), updated_at: new Date(e.updated_at).toISOString(),
  }
}
export type EdgeView = ReturnType<typeof toEdge>

export async function listEdges(db: Sql, workspaceId: string, f: { item_id?: string; deleted?: boolean }, limit: number, after: string | null): Promise<Page<EdgeView>> {
  const p = new Params()
  const w = [`workspace_id = ${p.add(workspaceId, 'uuid')}`, f.deleted === true ? 'deleted_at IS NOT NULL' : 'deleted_at IS NULL']
  if (f.item_id !== undefined) {
    const id = p.add(f.item_id, 'uuid')
    w.push(`(from_id = ${id} OR to_id = ${id})`)
  }
  if (after !== null) w.push(`seq > ${p.add(after, 'bigint')}`)
  const r = await db.query<EdgeRow>(`SELECT ${EDGE_COLS} FROM project_edges WHERE ${w.join(' AND ')} ORDER BY project_edges.seq LIMIT ${p.add(limit + 1, 'integer')}`, p.values)
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  return { items: rows.map(toEdge), last: r.rows.length > limit && last !== undefined ? last.seq : null }
}

export interface EdgeInput {
  from_id: string
  to_id: string
  relation: string
}

export async function insertEdge(tx: Sql, ctx: ProjectCtx, input: EdgeInput): Promise<EdgeView> {
  const p = new Problems()
  if (input.from_id === input.to_id) p.add(['body', 'to_id'], 'An item cannot be related to itself', REF_TYPES.invalid, input.to_id)
  const items = await tx.query<{ id: string; board_id: string; deleted: boolean }>(
    `SELECT id, board_id, deleted_at IS NOT NULL AS deleted FROM project_items WHERE workspace_id = $1 AND id = ANY($2::uuid[])`,
    [ctx.workspaceId, [input.from_id, input.to_id]])
  for (const f of ['from_id', 'to_id'] as const) {
    const it = items.rows.find((x) => x.id === input[f])
    if (it === undefined) p.add(['body', f], 'Item not found', REF_TYPES.notFound, input[f])
    else if (it.deleted) p.add(['body', f], 'The item is deleted', REF_TYPES.archived, input[f])
  }
  p.throwIfAny()
  const dup = await tx.query('SELECT 1 FROM project_edges WHERE workspace_id = $1 AND from_id = $2 AND to_id = $3 AND relation = $4 AND deleted_at IS NULL',
    [ctx.workspaceId, input.from_id, input.to_id, input.relation])
  if (dup.rows.length > 0) throw new DuplicateError(`a live ${input.relation} edge between these items`)
  const r = await tx.query<EdgeRow>(
    `INSERT INTO project_edges (id, workspace_id, from_id, to_id, relation) VALUES ($1, $2, $3, $4, $5) RETURNING ${EDGE_COLS}`,
    [randomUUID(), ctx.workspaceId, input.from_id, input.to_id, input.relation]).catch((err: { code?: string }) => {
    // Two concurrent creations of the same edge: the unique index lets one through.
    if (err.code === '23505') throw new DuplicateError(`a live ${input.relation} edge between these items`)
    throw err
  })
  const e = r.rows[0] as EdgeRow
  await recordActivity(tx, ctx.workspaceId, ctx.actor, {
    boardId: items.rows.find((x) => x.id === input.from_id)?.board_id ?? null, itemId: input.from_id, entity: 'edge', action: 'create',
    summary: `edge ${input.relation}: create`, before: null, after: { edge_id: e.id, from_id: e.from_id, to_id: e.to_id, relation: e.relation },
  })
  return toEdge(e)
}

export async function tombstoneEdge(tx: Sql, ctx: ProjectCtx, id: string, revision: number): Promise<EdgeView> {
  const r = await tx.query<EdgeRow>(`SELECT ${EDGE_COLS} FROM project_edges WHERE workspace_id = $1 AND id = $2 FOR NO KEY UPDATE`, [ctx.workspaceId, id])
  const e = r.rows[0]
  if (e === undefined) throw new NotFoundError('edge')
  checkRevision(e, revision, 'edge')
  if (e.deleted_at !== null) throw new ItemDeletedError(`edge ${id} is already deleted`)
  const u = await tx.query<EdgeRow>(
    `UPDATE project_edges SET deleted_at = now(), revision = revision + 1, updated_at = now() WHERE id = $1 AND revision = $2 RETURNING ${EDGE_COLS}`, [id, revision])
  await recordActivity(tx, ctx.workspaceId, ctx.actor, {
    boardId: null, itemId: e.from_id, entity: 'edge', action: 'delete', summary: `edge ${e.relation}: delete`,
    before: { edge_id: id, deleted: false }, after: { edge_id: id, deleted: true },
  })
  return toEdge(u.rows[0] as EdgeRow)
}
