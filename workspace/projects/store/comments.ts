// Task comments: shared with everyone who reads the task, or internal (staff only).
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { ForbiddenError, NotFoundError } from '../../../core/index.ts'
import { ItemDeletedError } from '../../errors.ts'
import { recordActivity } from './activity.ts'
import { seesInternal, type ProjectCtx } from './context.ts'
import { idempotent, type Outcome } from './idempotency.ts'
import { checkRevision } from './items.ts'

export interface CommentView {
  id: string
  item_id: string
  body: string
  visibility: string
  author: number | null
  revision: number
  deleted: boolean
  deleted_at: string | null
  created_at: string
  updated_at: string
}

export interface CommentRow {
  id: string
  seq: string
  item_id: string
  body: string
  visibility: string
  author: number | null
  revision: number
  deleted_at: Date | null
  created_at: Date
  updated_at: Date
}

export const COMMENT_COLS = 'id, seq::text AS seq, item_id, body, visibility, author, revision, deleted_at, created_at, updated_at'

export function toComment(r: CommentRow): CommentView {
  return {
    id: r.id, item_id: r.item_id, body: r.body, visibility: r.visibility, author: r.author, revision: r.revision,
    deleted: r.deleted_at !== null, deleted_at: r.deleted_at === null ? null : new Date(r.deleted_at).toISOString(),
    created_at: new Date(r.created_at).toISOString(), updated_at: new Date(r.updated_at).toISOString(),
  }
}

interface TaskRef {
  board_id: string
  number: number | null
  deleted: boolean
}

/** The task a comment route names; a board_id in the body or query must match it. */
export async function commentedTask(db: Sql, workspaceId: string, taskId: string, boardId?: string | null): Promise<TaskRef> {
  const r = await db.query<TaskRef>(
    `SELECT board_id, number, deleted_at IS NOT NULL AS deleted FROM project_items WHERE workspace_id = $1 AND id = $2 AND item_type = 'task'`,
    [workspaceId, taskId])
  const t = r.rows[0]
  if (t === undefined || (boardId != null && t.board_id !== boardId)) throw new NotFoundError('task')
  return t
}

export interface CommentCreateInput {
  board_id?: string | null
  idempotency_key: string
  body: string
  visibility?: string | null
}

export async function createComment(ctx: ProjectCtx, taskId: string, input: CommentCreateInput): Promise<Outcome<CommentView>> {
  const { idempotency_key: key, ...fields } = input
  const visibility = fields.visibility ?? 'shared'
  if (visibility === 'internal' && !seesInternal(ctx.actor)) throw new ForbiddenError('internal comments need a credential bound to a staff user')
  return idempotent(ctx.db, ctx.workspaceId, key, `comment.create:${taskId}`, fields, async (tx) => {
    const task = await commentedTask(tx, ctx.workspaceId, taskId, fields.board_id)
    if (task.deleted) throw new ItemDeletedError(`task ${taskId}: restore it before commenting`)
    const r = await tx.query<CommentRow>(
      `INSERT INTO project_comments (id, workspace_id, item_id, body, visibility, author) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${COMMENT_COLS}`,
      [randomUUID(), ctx.workspaceId, taskId, fields.body, visibility, ctx.actor.userId])
    const row = r.rows[0] as CommentRow
    await recordActivity(tx, ctx.workspaceId, ctx.actor, {
      boardId: task.board_id, itemId: taskId, entity: 'comment', action: 'create', summary: `comment on task #${task.number}: create`,
      before: null, after: { comment_id: row.id, visibility, body: row.body },
    })
    return { status: 201, body: toComment(row) }
  })
}

async function lockComment(tx: Sql, ctx: ProjectCtx, taskId: string, commentId: string, boardId: string | null | undefined): Promise<{ row: CommentRow; task: TaskRef }> {
  const task = await commentedTask(tx, ctx.workspaceId, taskId, boardId)
  const r = await tx.query<CommentRow>(`SELECT ${COMMENT_COLS} FROM project_comments WHERE workspace_id = $1 AND item_id = $2 AND id = $3 FOR NO KEY UPDATE`,
    [ctx.workspaceId, taskId, commentId])
  const row = r.rows[0]
  if (row === undefined || (row.visibility === 'internal' && !seesInternal(ctx.actor))) throw new NotFoundError('comment')
  return { row, task }
}

export async function updateComment(ctx: ProjectCtx, taskId: string, commentId: string, input: { board_id?: string | null; revision: number; body: string }): Promise<CommentView> {
  return ctx.db.transaction(async (tx) => {
    const { row, task } = await lockComment(tx, ctx, taskId, commentId, input.board_id)
    checkRevision(row, input.revision, 'comment')
    if (row.deleted_at !== null) throw new ItemDeletedError(`comment ${commentId}`)
    if (row.body === input.body) return toComment(row)
    const r = await tx.query<CommentRow>(
      `UPDATE project_comments SET body = $4, revision = revision + 1, updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND revision = $3 RETURNING ${COMMENT_COLS}`, [ctx.workspaceId, commentId, input.revision, input.body])
    const next = r.rows[0] as CommentRow
    await recordActivity(tx, ctx.workspaceId, ctx.actor, {
      boardId: task.board_id, itemId: taskId, entity: 'comment', action: 'update', summary: `comment on task #${task.number}: update`,
      before: { comment_id: commentId, body: row.body }, after: { comment_id: commentId, body: next.body },
    })
    return toComment(next)
  })
}

export async function deleteComment(ctx: ProjectCtx, taskId: string, commentId: string, input: { board_id?: string | null; revision: number }): Promise<CommentView> {
  return ctx.db.transaction(async (tx) => {
    const { row, task } = await lockComment(tx, ctx, taskId, commentId, input.board_id)
    checkRevision(row, input.revision, 'comment')
    if (row.deleted_at !== null) throw new ItemDeletedError(`comment ${commentId} is already deleted`)
    const r = await tx.query<CommentRow>(
      `UPDATE project_comments SET deleted_at = now(), revision = revision + 1, updated_at = now()
       WHERE workspace_id = $1 AND id = $2 AND revision = $3 RETURNING ${COMMENT_COLS}`, [ctx.workspaceId, commentId, input.revision])
    await recordActivity(tx, ctx.workspaceId, ctx.actor, {
      boardId: task.board_id, itemId: taskId, entity: 'comment', action: 'delete', summary: `comment on task #${task.number}: delete`,
      before: { comment_id: commentId, deleted: false }, after: { comment_id: commentId, deleted: true },
    })
    return toComment(r.rows[0] as CommentRow)
  })
}
