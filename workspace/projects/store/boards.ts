// Boards: create (idempotent), rename, archive, restore; the default board is
// the one every body without a board_id lands on, and it cannot be archived.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { CatalogueRuleError, DuplicateError, TransitionError } from '../../errors.ts'
import { NotFoundError } from '../../../core/index.ts'
import { recordActivity } from './activity.ts'
import type { ProjectCtx } from './context.ts'
import { ensureProject, insertBoard } from './defaults.ts'
import { idempotent, type Outcome } from './idempotency.ts'
import { checkRevision } from './items.ts'
import { Params, likePattern, type Page } from './lists.ts'
import { invalid } from './refs.ts'

export interface BoardRow {
  id: string
  seq: string
  workspace_id: string
  name: string
  revision: number
  statuses_token: string
  archived_at: Date | null
  created_at: Date
  updated_at: Date
}

const BOARD_COLS = 'id, seq::text AS seq, workspace_id, name, revision, statuses_token, archived_at, created_at, updated_at'

export function toBoard(r: BoardRow, defaultBoard: string) {
  return {
    id: r.id, workspace_id: r.workspace_id, name: r.name, is_default: r.id === defaultBoard, revision: r.revision,
    statuses_revision: r.statuses_token, archived: r.archived_at !== null,
    archived_at: r.archived_at === null ? null : new Date(r.archived_at).toISOString(),
    created_at: new Date(r.created_at).toISOString(), updated_at: new Date(r.updated_at).toISOString(),
  }
}
export type BoardView = ReturnType<typeof toBoard>

export async function listBoards(ctx: ProjectCtx, f: { board_id?: string; q?: string; archived?: boolean }, limit: number, after: string | null): Promise<Page<BoardView>> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  const p = new Params()
  const w = [`workspace_id = ${p.add(ctx.workspaceId, 'uuid')}`, f.archived === true ? 'archived_at IS NOT NULL' : 'archived_at IS NULL']
  if (f.board_id !== undefined) w.push(`id = ${p.add(f.board_id, 'uuid')}`)
  if (f.q !== undefined && f.q !== '') w.push(`name ILIKE ${p.add(likePattern(f.q))}`)
  if (after !== null) w.push(`seq > ${p.add(after, 'bigint')}`)
  const r = await ctx.db.query<BoardRow>(`SELECT ${BOARD_COLS} FROM project_boards WHERE ${w.join(' AND ')} ORDER BY project_boards.seq LIMIT ${p.add(limit + 1, 'integer')}`, p.values)
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  return { items: rows.map((b) => toBoard(b, defaultBoard)), last: r.rows.length > limit && last !== undefined ? last.seq : null }
}

export async function getBoard(db: Sql, workspaceId: string, id: string): Promise<BoardRow> {
  const r = await db.query<BoardRow>(`SELECT ${BOARD_COLS} FROM project_boards WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])
  if (r.rows[0] === undefined) throw new NotFoundError('board')
  return r.rows[0]
}

/** Board creation. The contract answers 200 for it (not 201); a replay is 200 with the same body too. */
export async function createBoard(ctx: ProjectCtx, input: { board_id?: string | null; idempotency_key: string; name: string }, successStatus = 200): Promise<Outcome<BoardView>> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  const { idempotency_key: key, ...fields } = input
  return idempotent(ctx.db, ctx.workspaceId, key, 'board.create', fields, async (tx) => {
    // A client may choose the new board's id (offline records carry provisional ids).
    const id = fields.board_id ?? randomUUID()
    const exists = await tx.query('SELECT 1 FROM project_boards WHERE id = $1', [id])
    if (exists.rows.length > 0) throw new DuplicateError(`board ${id}`)
    await insertBoard(tx, ctx.workspaceId, id, fields.name)
    await recordActivity(tx, ctx.workspaceId, ctx.actor, {
      boardId: id, itemId: null, entity: 'board', action: 'create', summary: `board ${JSON.stringify(fields.name)}: create`,
      before: null, after: { name: fields.name },
    })
    return { status: successStatus, body: toBoard(await getBoard(tx, ctx.workspaceId, id), defaultBoard) }
  })
}

export interface BoardActionInput {
  board_id?: string | null
  revision: number
  action: 'rename' | 'archive' | 'restore'
  name?: string | null
}

export async function boardAction(ctx: ProjectCtx, id: string, input: BoardActionInput): Promise<BoardView> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  return ctx.db.transaction(async (tx) => {
    if (input.board_id != null && input.board_id !== id) throw new NotFoundError(`board ${input.board_id}`)
    const r = await tx.query<BoardRow>(`SELECT ${BOARD_COLS} FROM project_boards WHERE workspace_id = $1 AND id = $2 FOR NO KEY UPDATE`, [ctx.workspaceId, id])
    const row = r.rows[0]
    if (row === undefined) throw new NotFoundError('board')
    checkRevision(row, input.revision, 'board')
    let set: string
    let before: Record<string, unknown>
    let after: Record<string, unknown>
    const params: unknown[] = [ctx.workspaceId, id, input.revision]
    if (input.action === 'rename') {
      if (input.name == null) throw invalid(['body', 'name'], 'Field required for rename', 'missing')
      if (input.name === row.name) return toBoard(row, defaultBoard)
      params.push(input.name)
      set = 'name = $4'
      before = { name: row.name }
      after = { name: input.name }
    } else if (input.action === 'archive') {
      if (id === defaultBoard) throw new CatalogueRuleError('the default board cannot be archived')
      if (row.archived_at !== null) throw new TransitionError('the board is already archived')
      set = 'archived_at = now()'
      before = { archived: false }
      after = { archived: true }
    } else {
      if (row.archived_at === null) throw new TransitionError('the board is not archived')
      set = 'archived_at = NULL'
      before = { archived: true }
      after = { archived: false }
    }
    const u = await tx.query<BoardRow>(
      `UPDATE project_boards SET ${set}, revision = revision + 1, updated_at = now() WHERE workspace_id = $1 AND id = $2 AND revision = $3 RETURNING ${BOARD_COLS}`, params)
    const next = u.rows[0] as BoardRow
    await recordActivity(tx, ctx.workspaceId, ctx.actor, {
      boardId: id, itemId: null, entity: 'board', action: input.action, summary: `board ${JSON.stringify(next.name)}: ${input.action}`, before, after,
    })
    return toBoard(next, defaultBoard)
  })
}
