// Tasks, notes and deliverables: one row shape, their API views, and the one
// way a stored item changes: row lock, revision check, diff, conditional UPDATE,
// activity entry and outbox event, all in the caller's transaction.
import type { Sql } from '../../../core/index.ts'
import { ItemArchivedError, ItemDeletedError, StaleRevisionError } from '../../errors.ts'
import { NotFoundError } from '../../../core/index.ts'
import type { WorkState } from '../state-model.ts'
import { diff, recordActivity } from './activity.ts'
import type { Actor } from './context.ts'
import { PROJECT_EVENT_TYPES, recordEvent, type ProjectEventType } from './events.ts'

export const ITEM_TYPES = { task: 'task', note: 'note', deliverable: 'deliverable' } as const
export type ItemType = (typeof ITEM_TYPES)[keyof typeof ITEM_TYPES]

export interface ItemRow {
  id: string
  seq: string
  workspace_id: string
  item_type: ItemType
  kind: string
  board_id: string
  number: number | null
  title: string
  description: string
  acceptance: string
  body: string
  color: string | null
  visibility: string | null
  type_id: string | null
  label_ids: string[]
  status_id: string | null
  service: string | null
  deliverable: string | null
  source_ticket: string | null
  priority: string | null
  assignee: number | null
  reviewer: number | null
  owner: number | null
  starts_on: string | null
  due_on: string | null
  state: WorkState | null
  blocked_reason: string
  origin: string
  revision: number
  assignment_revision: number
  created_by: number | null
  archived_at: string | null
  deleted_at: string | null
  created_at: string
  updated_at: string
}

/**
 * A timestamp as the views send it (ISO text, UTC, milliseconds), named `as`: every time of a
 * row read or built here, with no Date round trip per row on list pages.
 */
export const isoText = (col: string, as = col) => `to_char(${col} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${as}`

export const ITEM_COLS = `id, seq::text AS seq, workspace_id, item_type, kind, board_id, number, title, description, acceptance, body,
  color, visibility, type_id, label_ids, status_id, service, deliverable, source_ticket, priority, assignee, reviewer, owner,
  starts_on::text AS starts_on, due_on::text AS due_on, state, blocked_reason, origin, revision, assignment_revision,
  created_by, ${['archived_at', 'deleted_at', 'created_at', 'updated_at'].map((c) => isoText(c)).join(', ')}`

function common(r: ItemRow) {
  return {
    archived: r.archived_at !== null,
    archived_at: r.archived_at,
    deleted: r.deleted_at !== null,
    deleted_at: r.deleted_at,
    revision: r.revision,
    created_by: r.created_by,
    created_at: r.created_at,
    updated_at: r.updated_at,
  }
}

export function toTask(r: ItemRow) {
  return {
    id: r.id, item_type: 'task' as const, workspace_id: r.workspace_id, board_id: r.board_id, number: r.number, kind: r.kind,
    title: r.title, description: r.description, acceptance: r.acceptance,
    type_id: r.type_id, label_ids: r.label_ids, status_id: r.status_id,
    service: r.service, deliverable: r.deliverable, source_ticket: r.source_ticket,
    priority: r.priority, assignee: r.assignee, reviewer: r.reviewer, starts_on: r.starts_on, due_on: r.due_on,
    state: r.state, blocked_reason: r.blocked_reason, assignment_revision: r.assignment_revision, origin: r.origin,
    ...common(r),
  }
}

export function toNote(r: ItemRow) {
  return {
    id: r.id, item_type: 'note' as const, workspace_id: r.workspace_id, board_id: r.board_id, number: null,
    title: r.title, body: r.body, color: r.color, visibility: r.visibility,
    ...common(r),
  }
}

export function toDeliverable(r: ItemRow) {
  return {
    id: r.id, item_type: 'deliverable' as const, workspace_id: r.workspace_id, board_id: r.board_id,
    title: r.title, description: r.description, acceptance: r.acceptance, owner: r.owner,
    starts_on: r.starts_on, due_on: r.due_on, state: r.state, blocked_reason: r.blocked_reason,
    ...common(r),
  }
}

export type TaskView = ReturnType<typeof toTask>
export type NoteView = ReturnType<typeof toNote>
export type DeliverableView = ReturnType<typeof toDeliverable>
export type ItemView = TaskView | NoteView | DeliverableView

export function toView(r: ItemRow): ItemView {
  if (r.item_type === 'task') return toTask(r)
  if (r.item_type === 'note') return toNote(r)
  return toDeliverable(r)
}

/** Field name → SQL cast of its parameter; the editable fields of an item. */
const FIELD_CASTS: Record<keyof ItemChanges, string> = {
  board_id: 'uuid', title: 'text', description: 'text', acceptance: 'text', body: 'text', color: 'text', visibility: 'text',
  type_id: 'uuid', label_ids: 'uuid[]', status_id: 'uuid', service: 'uuid', deliverable: 'uuid', source_ticket: 'uuid',
  priority: 'text', assignee: 'integer', reviewer: 'integer', owner: 'integer', starts_on: 'date', due_on: 'date',
  state: 'text', blocked_reason: 'text', archived: 'flag', deleted: 'flag',
}

/** The editable columns, typed as the row holds them; archived and deleted are flags over their timestamps. */
type EditableColumn =
  | 'board_id' | 'title' | 'description' | 'acceptance' | 'body' | 'color' | 'visibility' | 'type_id' | 'label_ids' | 'status_id'
  | 'service' | 'deliverable' | 'source_ticket' | 'priority' | 'assignee' | 'reviewer' | 'owner' | 'starts_on' | 'due_on'
  | 'state' | 'blocked_reason'

export type ItemChanges = Partial<Pick<ItemRow, EditableColumn> & { archived: boolean; deleted: boolean }>

/** The current value of each editable field, as compared and reported in activity. */
function fieldsOf(r: ItemRow): Record<string, unknown> {
  return {
    board_id: r.board_id, title: r.title, description: r.description, acceptance: r.acceptance, body: r.body, color: r.color,
    visibility: r.visibility, type_id: r.type_id, label_ids: r.label_ids, status_id: r.status_id, service: r.service,
    deliverable: r.deliverable, source_ticket: r.source_ticket, priority: r.priority, assignee: r.assignee, reviewer: r.reviewer,
    owner: r.owner, starts_on: r.starts_on, due_on: r.due_on, state: r.state, blocked_reason: r.blocked_reason,
    archived: r.archived_at !== null, deleted: r.deleted_at !== null,
  }
}

export interface Expect {
  itemType: ItemType | readonly ItemType[]
  /** The body's board_id: when given, the item must be on that board. */
  boardId?: string | null
}

function typeMatches(t: ItemType, want: Expect['itemType']): boolean {
  return typeof want === 'string' ? t === want : want.includes(t)
}

/**
 * Reads an item for change, holding its row lock until the transaction ends
 * (NO KEY UPDATE: rows that merely reference it, like comments, are not blocked).
 */
export async function lockItem(tx: Sql, workspaceId: string, id: string, expect: Expect): Promise<ItemRow> {
  const r = await tx.query<ItemRow>(`SELECT ${ITEM_COLS} FROM project_items WHERE workspace_id = $1 AND id = $2 FOR NO KEY UPDATE`, [workspaceId, id])
  const row = r.rows[0]
  if (row === undefined || !typeMatches(row.item_type, expect.itemType)) throw new NotFoundError(typeof expect.itemType === 'string' ? expect.itemType : 'item')
  if (expect.boardId != null && row.board_id !== expect.boardId) throw new NotFoundError(`${row.item_type} on board ${expect.boardId}`)
  return row
}

export function checkRevision(row: { revision: number }, observed: number, what = 'record'): void {
  if (row.revision !== observed) throw new StaleRevisionError(`the ${what} is at revision ${row.revision}, not ${observed}`)
}

/** Edits (not actions) need a live item: not in the trash, not archived. */
export function checkEditable(row: ItemRow): void {
  if (row.deleted_at !== null) throw new ItemDeletedError(`${row.item_type} ${row.id}: restore it first`)
  if (row.archived_at !== null) throw new ItemArchivedError(`${row.item_type} ${row.id}: restore it first`)
}

export interface ChangeOptions {
  /** Activity action name (update, move, delete, or the action's name). */
  action: string
  note?: string
  /** The item's revision as observed by the caller; checked against the locked row. */
  revision: number
}

function summaryOf(row: ItemRow, action: string): string {
  const label = row.item_type === 'task' && row.number !== null ? `task #${row.number}` : row.item_type
  return `${label} ${JSON.stringify(row.title)}: ${action}`
}

/**
 * Applies `changes` to a locked row: only fields whose value differs are
 * written; no difference is no change (no new revision, no activity). A change
 * bumps `revision`; an assignment change, a delete or an undelete of a task also
 * bumps `assignment_revision` and writes an outbox event.
 */
export async function applyChanges(tx: Sql, actor: Actor, row: ItemRow, changes: ItemChanges, opts: ChangeOptions): Promise<ItemRow> {
  checkRevision(row, opts.revision, row.item_type)
  const d = diff(fieldsOf(row), changes as Record<string, unknown>)
  if (d === null) {
    if (opts.note !== undefined && opts.note !== '') {
      // An action with only a note (e.g. changes requested with a message) still leaves a trace.
      await recordActivity(tx, row.workspace_id, actor, {
        boardId: row.board_id, itemId: row.id, entity: row.item_type, action: opts.action, summary: summaryOf(row, opts.action),
        before: null, after: null, note: opts.note,
      })
    }
    return row
  }
  const params: unknown[] = [row.workspace_id, row.id, opts.revision]
  const sets: string[] = []
  for (const [k, v] of Object.entries(d.after)) {
    const cast = (FIELD_CASTS as Partial<Record<string, string>>)[k]
    if (cast === undefined) throw new Error(`not an item field: ${k}`)
    params.push(v)
    if (cast === 'flag') sets.push(`${k}_at = CASE WHEN $${params.length}::boolean THEN now() ELSE NULL END`)
    else sets.push(`${k} = $${params.length}::${cast}`)
  }
  const isTask = row.item_type === 'task'
  const assignmentChanged = isTask && 'assignee' in d.after
  const deletedChanged = isTask && 'deleted' in d.after
  if (assignmentChanged || deletedChanged) sets.push('assignment_revision = assignment_revision + 1')
  const r = await tx.query<ItemRow>(
    `UPDATE project_items SET ${sets.join(', ')}, revision = revision + 1, updated_at = now()
     WHERE workspace_id = $1 AND id = $2 AND revision = $3 RETURNING ${ITEM_COLS}`, params)
  const next = r.rows[0]
  // The row is locked, so this only fires if a caller forgot lockItem.
  if (next === undefined) throw new StaleRevisionError(`the ${row.item_type} changed concurrently`)
  await recordActivity(tx, row.workspace_id, actor, {
    boardId: next.board_id, itemId: next.id, entity: next.item_type, action: opts.action, summary: summaryOf(next, opts.action),
    before: d.before, after: d.after, note: opts.note,
  })
  if (isTask && next.origin === 'local') {
    let type: ProjectEventType | null = null
    if (deletedChanged) type = next.deleted_at !== null ? PROJECT_EVENT_TYPES.deleted : PROJECT_EVENT_TYPES.restored
    else if (assignmentChanged) type = PROJECT_EVENT_TYPES.assignmentChanged
    if (type !== null) await recordEvent(tx, next.workspace_id, actor, type, next, row.assignee, next.assignee)
    // A delete that also unassigns is reported as the delete (the event carries both assignees).
  }
  return next
}

export async function getItemRow(db: Sql, workspaceId: string, id: string): Promise<ItemRow | undefined> {
  const r = await db.query<ItemRow>(`SELECT ${ITEM_COLS} FROM project_items WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])
  return r.rows[0]
}
