// Tasks: create (idempotent, numbered), edit, move between boards, soft delete.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { ItemDeletedError } from '../../errors.ts'
import { NotFoundError } from '../../../core/index.ts'
import type { WorkState } from '../state-model.ts'
import { recordActivity, type ActivityEntry } from './activity.ts'
import { seesInternal, type ProjectCtx } from './context.ts'
import { ensureProject } from './defaults.ts'
import { PROJECT_EVENT_TYPES, recordEvent } from './events.ts'
import { idempotent, type Outcome } from './idempotency.ts'
import {
  ITEM_COLS, applyChanges, checkEditable, checkRevision, lockItem, toTask, type ItemChanges, type ItemRow, type TaskView,
} from './items.ts'
import {
  Problems, boardStatus, checkDates, checkDeliverable, checkTaxonomy, defaultLabels, defaultType, placementBoard, statusCategory, unique,
} from './refs.ts'

export interface TaskCreateInput {
  board_id?: string | null
  type_id?: string | null
  label_ids?: string[] | null
  status_id?: string | null
  service?: string | null
  idempotency_key: string
  title: string
  description?: string
  acceptance?: string
  deliverable?: string | null
  source_ticket?: string | null
  priority?: string
  assignee?: number | null
  reviewer?: number | null
  starts_on?: string | null
  due_on?: string | null
}

export type TaskUpdateInput = { revision: number } & {
  [K in Exclude<keyof TaskCreateInput, 'idempotency_key'>]?: TaskCreateInput[K] | null
}

export const CATEGORY_STATE: Record<string, WorkState> = { todo: 'open', doing: 'in_progress', done: 'done' }
/** The idempotency scope of a task creation (one by one or in a batch: a key is the same creation either way). */
export const TASK_CREATE_SCOPE = 'task.create'

/**
 * Allocates the workspace's next task number; the counter row stays locked until commit, so numbers have no gaps.
 * A workspace shared with a portal numbers nothing itself: the task has no number until the portal supplies one.
 */
async function nextNumber(tx: Sql, workspaceId: string): Promise<number | null> {
  const r = await tx.query<{ n: number | null }>(
    `UPDATE project_workspaces SET next_number = next_number + CASE WHEN portal_shared THEN 0 ELSE 1 END WHERE workspace_id = $1
     RETURNING CASE WHEN portal_shared THEN NULL ELSE next_number - 1 END AS n`, [workspaceId])
  return (r.rows[0] as { n: number | null }).n
}

/** Inserts a task (inside the caller's transaction) and records its creation. */
export async function insertTask(
  tx: Sql, ctx: ProjectCtx, defaultBoard: string, input: Omit<TaskCreateInput, 'idempotency_key'>, loc: (string | number)[], id: string = randomUUID(),
): Promise<ItemRow> {
  const ws = ctx.workspaceId
  const boardId = await placementBoard(tx, ws, input.board_id, defaultBoard, [...loc, 'board_id'])
  const p = new Problems()
  const statusId = await boardStatus(tx, boardId, input.status_id, [...loc, 'status_id'], p)
  const labels = input.label_ids == null ? undefined : unique(input.label_ids)
  await checkTaxonomy(tx, ws, input.type_id, labels, { type_id: null, label_ids: [] }, loc, p)
  await checkDeliverable(tx, ws, input.deliverable, null, [...loc, 'deliverable'], p)
  checkDates(input.starts_on, input.due_on, loc, p)
  p.throwIfAny()
  const typeId = input.type_id === undefined ? await defaultType(tx, ws) : input.type_id
  const labelIds = labels ?? await defaultLabels(tx, ws)
  const state = CATEGORY_STATE[(await statusCategory(tx, statusId)) ?? 'todo'] ?? 'open'
  const number = await nextNumber(tx, ws)
  const r = await tx.query<ItemRow>(
    `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, number, title, description, acceptance, type_id, label_ids,
       status_id, service, deliverable, source_ticket, priority, assignee, reviewer, starts_on, due_on, state, created_by)
     VALUES ($1, $2, 'task', $3, $4, $5, $6, $7, $8, $9, $10::uuid[], $11, $12, $13, $14, $15, $16, $17, $18::date, $19::date, $20, $21)
     RETURNING ${ITEM_COLS}`,
    [id, ws, input.source_ticket == null ? 'task' : 'service_ticket', boardId, number, input.title, input.description ?? '',
      input.acceptance ?? '', typeId, labelIds, statusId, input.service ?? null, input.deliverable ?? null, input.source_ticket ?? null,
      input.priority ?? 'normal', input.assignee ?? null, input.reviewer ?? null, input.starts_on ?? null, input.due_on ?? null,
      state, ctx.actor.userId])
  const row = r.rows[0] as ItemRow
  await recordActivity(tx, ws, ctx.actor, creationEntry(row))
  // Creating an assigned task counts as an assignment change.
  if (row.assignee !== null) await recordEvent(tx, ws, ctx.actor, PROJECT_EVENT_TYPES.assignmentChanged, row, null, row.assignee)
  return row
}

/** The activity entry of a task's creation. */
export function creationEntry(row: ItemRow): ActivityEntry {
  return {
    boardId: row.board_id, itemId: row.id, entity: 'task', action: 'create', summary: `${row.number === null ? 'task' : `task #${row.number}`} ${JSON.stringify(row.title)}: create`,
    before: null,
    after: { title: row.title, board_id: row.board_id, status_id: row.status_id, state: row.state, type_id: row.type_id, label_ids: row.label_ids,
      priority: row.priority, assignee: row.assignee, reviewer: row.reviewer },
  }
}

export async function createTask(ctx: ProjectCtx, input: TaskCreateInput, loc: (string | number)[] = ['body']): Promise<Outcome<TaskView>> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  const { idempotency_key: key, ...fields } = input
  return idempotent(ctx.db, ctx.workspaceId, key, TASK_CREATE_SCOPE, fields, async (tx) => {
    const row = await insertTask(tx, ctx, defaultBoard, fields, loc)
    return { status: 201, body: toTask(row) }
  })
}

/**
 * The changes a TaskUpdate asks for. Omitted: unchanged. Null: cleared where the
 * field can be empty (type, labels, references, people, dates, texts), unchanged
 * where it cannot (title, priority, status).
 */
export async function taskChanges(tx: Sql, ctx: ProjectCtx, row: ItemRow, input: Omit<TaskUpdateInput, 'revision'>, loc: (string | number)[]): Promise<ItemChanges> {
  const c: ItemChanges = {}
  const p = new Problems()
  if (input.title != null) c.title = input.title
  if (input.description !== undefined) c.description = input.description ?? ''
  if (input.acceptance !== undefined) c.acceptance = input.acceptance ?? ''
  if (input.priority != null) c.priority = input.priority
  if (input.status_id != null && input.status_id !== row.status_id) c.status_id = await boardStatus(tx, row.board_id, input.status_id, [...loc, 'status_id'], p)
  if (input.type_id !== undefined) c.type_id = input.type_id
  if (input.label_ids !== undefined) c.label_ids = unique(input.label_ids ?? [])
  await checkTaxonomy(tx, ctx.workspaceId, c.type_id, c.label_ids, row, loc, p)
  if (input.service !== undefined) c.service = input.service
  if (input.source_ticket !== undefined) c.source_ticket = input.source_ticket
  if (input.deliverable !== undefined) {
    await checkDeliverable(tx, ctx.workspaceId, input.deliverable, row.deliverable, [...loc, 'deliverable'], p)
    c.deliverable = input.deliverable
  }
  if (input.assignee !== undefined) c.assignee = input.assignee
  if (input.reviewer !== undefined) c.reviewer = input.reviewer
  if (input.starts_on !== undefined) c.starts_on = input.starts_on
  if (input.due_on !== undefined) c.due_on = input.due_on
  const starts = c.starts_on === undefined ? row.starts_on : c.starts_on
  const due = c.due_on === undefined ? row.due_on : c.due_on
  if (c.starts_on !== undefined || c.due_on !== undefined) checkDates(starts, due, loc, p)
  p.throwIfAny()
  return c
}

export async function updateTask(ctx: ProjectCtx, id: string, input: TaskUpdateInput, loc: (string | number)[] = ['body']): Promise<TaskView> {
  return ctx.db.transaction(async (tx) => {
    const row = await lockItem(tx, ctx.workspaceId, id, { itemType: 'task', boardId: input.board_id })
    checkRevision(row, input.revision, 'task')
    checkEditable(row)
    const { revision, board_id: _board, ...fields } = input
    const changes = await taskChanges(tx, ctx, row, fields, loc)
    return toTask(await applyChanges(tx, ctx.actor, row, changes, { action: 'update', revision }))
  })
}

export interface TaskMoveInput {
  board_id?: string | null
  revision: number
  target_board_id: string
  target_status_id: string
}

export async function moveTask(ctx: ProjectCtx, id: string, input: TaskMoveInput): Promise<TaskView> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  return ctx.db.transaction(async (tx) => {
    const row = await lockItem(tx, ctx.workspaceId, id, { itemType: 'task', boardId: input.board_id })
    checkRevision(row, input.revision, 'task')
    checkEditable(row)
    const boardId = await placementBoard(tx, ctx.workspaceId, input.target_board_id, defaultBoard, ['body', 'target_board_id'])
    const p = new Problems()
    await boardStatus(tx, boardId, input.target_status_id, ['body', 'target_status_id'], p)
    p.throwIfAny()
    return toTask(await applyChanges(tx, ctx.actor, row, { board_id: boardId, status_id: input.target_status_id }, { action: 'move', revision: input.revision }))
  })
}

/** Soft delete of a task or note: it leaves every list but the `deleted=true` one and can be restored. */
export async function deleteItem(ctx: ProjectCtx, itemType: 'task' | 'note', id: string, input: { board_id?: string | null; revision: number }, tx?: Sql) {
  const run = async (t: Sql) => {
    const row = await lockItem(t, ctx.workspaceId, id, { itemType, boardId: input.board_id })
    if (row.item_type === 'note' && row.visibility === 'internal' && !seesInternal(ctx.actor)) throw new NotFoundError('note')
    checkRevision(row, input.revision, itemType)
    if (row.deleted_at !== null) throw new ItemDeletedError(`${itemType} ${id} is already deleted`)
    return applyChanges(t, ctx.actor, row, { deleted: true }, { action: 'delete', revision: input.revision })
  }
  return tx === undefined ? ctx.db.transaction(run) : run(tx)
}

