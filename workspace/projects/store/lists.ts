// The filter set as SQL, and keyset pages over items, comments and activity.
// Pages are newest first by the row's sequence number, so items added while a
// client pages land before its first page: no page repeats or skips a row.
import type { Sql } from '../../../core/index.ts'
import { ACTIVITY_COLS, toActivity, type ActivityRow, type ActivityView } from './activity.ts'
import { COMMENT_COLS, toComment, type CommentRow, type CommentView } from './comments.ts'
import { ITEM_TYPES, type ItemType, type ItemView } from './items.ts'
import { PRIORITIES, TASK_KINDS } from '../schemas/fields.ts'
import { WORK_STATE_VALUES } from '../state-model.ts'

export interface ItemFilters {
  board_id?: string
  q?: string
  state?: string
  status_id?: string
  type_ids?: readonly string[]
  label_ids?: readonly string[]
  archived?: boolean
  deleted?: boolean
  assignee_id?: number
  unassigned?: boolean
  priority?: string
  due_before?: string
  due_after?: string
  kind?: string
  deliverable_id?: string
}

export interface Page<T> {
  items: T[]
  /** The key to continue after, or null when this is the last page. */
  last: string | null
}

/** `%text%` for ILIKE with the pattern characters of the text escaped. */
export function likePattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`
}

/** A growing parameter list: `p.add(v)` returns its placeholder. */
export class Params {
  readonly values: unknown[] = []

  add(v: unknown, cast = ''): string {
    this.values.push(v)
    return `$${this.values.length}${cast === '' ? '' : `::${cast}`}`
  }

  /**
   * A value of a closed set (or the caller's workspace id) written into the text.
   * A page statement's plan is kept per text: with these as literals, the planner's
   * one generic plan knows the workspace's share of rows and which partial index a
   * kind or state can use, so PostgreSQL keeps it instead of planning every call
   * (bench/projects README, "Plans kept"). Anything outside the set stays a parameter.
   */
  known(v: string, set: ReadonlySet<string> | RegExp, cast = ''): string {
    const closed = set instanceof RegExp ? set.test(v) : set.has(v)
    return closed ? `'${v}'${cast === '' ? '' : `::${cast}`}` : this.add(v, cast)
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/
const ITEM_TYPE_SET: ReadonlySet<string> = new Set<string>(Object.values(ITEM_TYPES))
const PRIORITY_SET: ReadonlySet<string> = new Set(PRIORITIES)
const KIND_SET: ReadonlySet<string> = new Set(TASK_KINDS)
const STATE_SET: ReadonlySet<string> = new Set(WORK_STATE_VALUES)
/** LIMIT values written into page texts: a page fetches the smallest that covers it, so odd page sizes add no texts. */
const FETCH_SIZES = [11, 26, 51, 101] as const

/**
 * Conditions of the filter set over project_items (alias-free). `archived` and
 * `deleted` select the archive and the trash: false (the default) shows live
 * records only, true only archived / only deleted ones.
 */
export function itemConditions(workspaceId: string, itemTypes: readonly ItemType[], f: ItemFilters, seesInternal: boolean, p: Params): string[] {
  const w: string[] = [`workspace_id = ${p.known(workspaceId, UUID, 'uuid')}`]
  const oneType = itemTypes.length === 1 ? itemTypes[0] : undefined
  w.push(oneType !== undefined ? `item_type = ${p.known(oneType, ITEM_TYPE_SET)}` : `item_type = ANY(${p.add(itemTypes, 'text[]')})`)
  w.push(f.deleted === true ? 'deleted_at IS NOT NULL' : 'deleted_at IS NULL')
  w.push(f.archived === true ? 'archived_at IS NOT NULL' : 'archived_at IS NULL')
  if (!seesInternal && itemTypes.includes('note')) w.push(`visibility IS DISTINCT FROM 'internal'`)
  if (f.board_id !== undefined) w.push(`board_id = ${p.add(f.board_id, 'uuid')}`)
  if (f.q !== undefined && f.q !== '') {
    const q = p.add(likePattern(f.q))
    w.push(`(title ILIKE ${q} OR description ILIKE ${q} OR body ILIKE ${q})`)
  }
  if (f.state !== undefined) w.push(`state = ${p.known(f.state, STATE_SET)}`)
  if (f.status_id !== undefined) w.push(`status_id = ${p.add(f.status_id, 'uuid')}`)
  if (f.type_ids !== undefined && f.type_ids.length > 0) w.push(`type_id = ANY(${p.add(f.type_ids, 'uuid[]')})`)
  if (f.label_ids !== undefined && f.label_ids.length > 0) w.push(`label_ids && ${p.add(f.label_ids, 'uuid[]')}`)
  // Deliverables are "assigned" to their owner.
  const person = itemTypes.length === 1 && itemTypes[0] === 'deliverable' ? 'owner' : 'assignee'
  if (f.assignee_id !== undefined) w.push(`${person} = ${p.add(f.assignee_id, 'integer')}`)
  if (f.unassigned === true) w.push(`${person} IS NULL`)
  if (f.priority !== undefined) w.push(`priority = ${p.known(f.priority, PRIORITY_SET)}`)
  if (f.due_before !== undefined) w.push(`due_on < ${p.add(f.due_before, 'date')}`)
  if (f.due_after !== undefined) w.push(`due_on > ${p.add(f.due_after, 'date')}`)
  if (f.kind !== undefined) w.push(`kind = ${p.known(f.kind, KIND_SET)}`)
  if (f.deliverable_id !== undefined) w.push(`deliverable = ${p.add(f.deliverable_id, 'uuid')}`)
  return w
}

/** The SQL of an item page: exposed so the benchmark can run the same text straight through the driver. */
export function itemPageQuery(workspaceId: string, itemTypes: readonly ItemType[], f: ItemFilters, seesInternal: boolean, limit: number, after: string | null): { text: string; values: unknown[] } {
  const p = new Params()
  const w = itemConditions(workspaceId, itemTypes, f, seesInternal, p)
  if (after !== null) w.push(`seq < ${p.add(after, 'bigint')}`)
  // A due-date page keeps its LIMIT a parameter: PostgreSQL then finds its generic plan
  // dearer than planning with the dates, and goes on planning it each call. A kept generic
  // plan guesses the range's share of rows and reads the newest tasks until the page is
  // full (360 against 240 µs a page).
  const dated = f.due_before !== undefined || f.due_after !== undefined
  const fetch = dated ? undefined : FETCH_SIZES.find((n) => n > limit)
  // The item's list document (list-doc.ts), ready to send: one text column per row.
  const text = `SELECT seq::text AS seq, list_doc FROM project_items WHERE ${w.join(' AND ')} ORDER BY project_items.seq DESC LIMIT ${fetch ?? p.add(limit + 1, 'integer')}`
  return { text, values: p.values }
}

export function page<R extends { seq: string }, T>(rows: R[], limit: number, view: (r: R) => T): Page<T> {
  const kept = rows.slice(0, limit)
  const lastRow = kept[kept.length - 1]
  return { items: kept.map(view), last: rows.length > limit && lastRow !== undefined ? lastRow.seq : null }
}

interface DocRow {
  seq: string
  list_doc: string
}

/** A page of items as their JSON texts (each exactly the item's view as the routes send it). */
export async function listItemDocs(db: Sql, workspaceId: string, itemTypes: readonly ItemType[], f: ItemFilters, seesInternal: boolean, limit: number, after: string | null): Promise<Page<string>> {
  const q = itemPageQuery(workspaceId, itemTypes, f, seesInternal, limit, after)
  const r = await db.query<DocRow>(q.text, q.values, { prepared: true })
  return page(r.rows, limit, (row) => row.list_doc)
}

/** A page of items as objects, for answers that embed one (a deliverable's tasks). */
export async function listItems(db: Sql, workspaceId: string, itemTypes: readonly ItemType[], f: ItemFilters, seesInternal: boolean, limit: number, after: string | null): Promise<Page<ItemView>> {
  const docs = await listItemDocs(db, workspaceId, itemTypes, f, seesInternal, limit, after)
  return { items: docs.items.map((d) => JSON.parse(d) as ItemView), last: docs.last }
}

export async function listComments(
  db: Sql, workspaceId: string, taskId: string, f: { q?: string; deleted?: boolean }, seesInternal: boolean, limit: number, after: string | null,
): Promise<Page<CommentView>> {
  const p = new Params()
  const w = [`workspace_id = ${p.add(workspaceId, 'uuid')}`, `item_id = ${p.add(taskId, 'uuid')}`]
  w.push(f.deleted === true ? 'deleted_at IS NOT NULL' : 'deleted_at IS NULL')
  if (!seesInternal) w.push(`visibility <> 'internal'`)
  if (f.q !== undefined && f.q !== '') w.push(`body ILIKE ${p.add(likePattern(f.q))}`)
  // A conversation reads oldest first.
  if (after !== null) w.push(`seq > ${p.add(after, 'bigint')}`)
  const r = await db.query<CommentRow>(
    `SELECT ${COMMENT_COLS} FROM project_comments WHERE ${w.join(' AND ')} ORDER BY project_comments.seq LIMIT ${p.add(limit + 1, 'integer')}`, p.values)
  return page(r.rows, limit, toComment)
}

export interface ActivityFilters {
  board_id?: string
  item_id?: string
  q?: string
  /** Only entries about items matching these (the task filters of the feed). */
  deliverable_id?: string
}

export async function listActivity(db: Sql, workspaceId: string, f: ActivityFilters, limit: number, after: string | null): Promise<Page<ActivityView>> {
  const p = new Params()
  const w = [`workspace_id = ${p.add(workspaceId, 'uuid')}`]
  if (f.board_id !== undefined) w.push(`board_id = ${p.add(f.board_id, 'uuid')}`)
  if (f.item_id !== undefined) w.push(`item_id = ${p.add(f.item_id, 'uuid')}`)
  if (f.q !== undefined && f.q !== '') {
    const q = p.add(likePattern(f.q))
    w.push(`(summary ILIKE ${q} OR note ILIKE ${q})`)
  }
  if (f.deliverable_id !== undefined) {
    const d = p.add(f.deliverable_id, 'uuid')
    w.push(`(item_id = ${d} OR item_id IN (SELECT id FROM project_items WHERE deliverable = ${d}))`)
  }
  if (after !== null) w.push(`seq < ${p.add(after, 'bigint')}`)
  const r = await db.query<ActivityRow>(
    `SELECT ${ACTIVITY_COLS} FROM project_activity WHERE ${w.join(' AND ')} ORDER BY project_activity.seq DESC LIMIT ${p.add(limit + 1, 'integer')}`, p.values)
  return page(r.rows, limit, toActivity)
}
