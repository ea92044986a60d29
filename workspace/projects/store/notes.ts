// Notes: short texts on a board, shared or internal (staff only).
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { ForbiddenError, NotFoundError } from '../../../core/index.ts'
import { recordActivity } from './activity.ts'
import { seesInternal, type ProjectCtx } from './context.ts'
import { ensureProject } from './defaults.ts'
import { idempotent, type Outcome } from './idempotency.ts'
import { ITEM_COLS, applyChanges, checkEditable, checkRevision, lockItem, toNote, type ItemChanges, type ItemRow, type NoteView } from './items.ts'
import { placementBoard } from './refs.ts'

export interface NoteCreateInput {
  board_id?: string | null
  idempotency_key: string
  title?: string
  body: string
  color?: string
  visibility?: string | null
}

export interface NoteUpdateInput {
  board_id?: string | null
  revision: number
  title?: string | null
  body?: string | null
  color?: string | null
  visibility?: string | null
}

function checkVisibility(ctx: ProjectCtx, visibility: string | null | undefined): void {
  if (visibility === 'internal' && !seesInternal(ctx.actor)) throw new ForbiddenError('internal content needs a credential bound to a staff user')
}

export async function insertNote(tx: Sql, ctx: ProjectCtx, defaultBoard: string, input: Omit<NoteCreateInput, 'idempotency_key'>, loc: (string | number)[]): Promise<ItemRow> {
  checkVisibility(ctx, input.visibility)
  const boardId = await placementBoard(tx, ctx.workspaceId, input.board_id, defaultBoard, [...loc, 'board_id'])
  const r = await tx.query<ItemRow>(
    `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, title, body, color, visibility, created_by)
     VALUES ($1, $2, 'note', 'note', $3, $4, $5, $6, $7, $8) RETURNING ${ITEM_COLS}`,
    [randomUUID(), ctx.workspaceId, boardId, input.title ?? '', input.body, input.color ?? 'yellow', input.visibility ?? 'shared', ctx.actor.userId])
  const row = r.rows[0] as ItemRow
  await recordActivity(tx, ctx.workspaceId, ctx.actor, {
    boardId, itemId: row.id, entity: 'note', action: 'create', summary: `note ${JSON.stringify(row.title)}: create`,
    before: null, after: { title: row.title, board_id: boardId, color: row.color, visibility: row.visibility },
  })
  return row
}

export async function createNote(ctx: ProjectCtx, input: NoteCreateInput): Promise<Outcome<NoteView>> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  const { idempotency_key: key, ...fields } = input
  return idempotent(ctx.db, ctx.workspaceId, key, 'note.create', fields, async (tx) => {
    return { status: 201, body: toNote(await insertNote(tx, ctx, defaultBoard, fields, ['body'])) }
  })
}

/** Null leaves a note field unchanged, except the title, which null empties. */
export function noteChanges(ctx: ProjectCtx, input: Omit<NoteUpdateInput, 'revision' | 'board_id'>): ItemChanges {
  const c: ItemChanges = {}
  if (input.title !== undefined) c.title = input.title ?? ''
  if (input.body != null) c.body = input.body
  if (input.color != null) c.color = input.color
  if (input.visibility != null) {
    checkVisibility(ctx, input.visibility)
    c.visibility = input.visibility
  }
  return c
}

/** A locked note the actor may see. */
export async function lockVisibleNote(tx: Sql, ctx: ProjectCtx, id: string, boardId: string | null | undefined): Promise<ItemRow> {
  const row = await lockItem(tx, ctx.workspaceId, id, { itemType: 'note', boardId })
  if (row.visibility === 'internal' && !seesInternal(ctx.actor)) throw new NotFoundError('note')
  return row
}

export async function updateNote(ctx: ProjectCtx, id: string, input: NoteUpdateInput): Promise<NoteView> {
  return ctx.db.transaction(async (tx) => {
    const row = await lockVisibleNote(tx, ctx, id, input.board_id)
    checkRevision(row, input.revision, 'note')
    checkEditable(row)
    const { revision, board_id: _b, ...fields } = input
    return toNote(await applyChanges(tx, ctx.actor, row, noteChanges(ctx, fields), { action: 'update', revision }))
  })
}
