// Read models over the project: overview counts, the timeline, the assignee
// (member) list, single-item reads and the desktop assignment view.
import type { Sql } from '../../../core/index.ts'
import { NotFoundError } from '../../../core/index.ts'
import { serverSecret } from '../../../core/index.ts'
import { seesInternal, type ProjectCtx } from './context.ts'
import { ensureProject } from './defaults.ts'
import { ITEM_COLS, toView, type ItemRow, type ItemType, type ItemView } from './items.ts'
import { Params, itemConditions, listItems, type ItemFilters, type Page } from './lists.ts'

/** Reads one item; the filter set narrows it like a list would (board, trash), else 404. */
export async function getItem(ctx: ProjectCtx, itemTypes: readonly ItemType[], id: string, f: { board_id?: string; deleted?: boolean; kind?: string }): Promise<ItemView> {
  const r = await ctx.db.query<ItemRow>(`SELECT ${ITEM_COLS} FROM project_items WHERE workspace_id = $1 AND id = $2`, [ctx.workspaceId, id])
  const row = r.rows[0]
  const name = itemTypes.length === 1 ? (itemTypes[0] as string) : 'item'
  if (row === undefined || !itemTypes.includes(row.item_type)) throw new NotFoundError(name)
  if (row.item_type === 'note' && row.visibility === 'internal' && !seesInternal(ctx.actor)) throw new NotFoundError(name)
  if (f.board_id !== undefined && row.board_id !== f.board_id) throw new NotFoundError(`${name} on board ${f.board_id}`)
  if ((row.deleted_at !== null) !== (f.deleted === true)) throw new NotFoundError(row.deleted_at !== null ? `${name} (it is deleted: ask with deleted=true)` : name)
  if (f.kind !== undefined && row.kind !== f.kind) throw new NotFoundError(`${name} of kind ${f.kind}`)
  return toView(row)
}

const COUNT_STATES = ['open', 'in_progress', 'review', 'changes_requested', 'blocked', 'done', 'cancelled']

/** Counts over the tasks the filter set selects, plus the workspace's catalogues. */
export async function overview(ctx: ProjectCtx, f: ItemFilters) {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  const p = new Params()
  const w = itemConditions(ctx.workspaceId, ['task'], f, seesInternal(ctx.actor), p)
  const t = await ctx.db.query<Record<string, number>>(
    `SELECT count(*)::int AS total,
       ${COUNT_STATES.map((s) => `count(*) FILTER (WHERE state = '${s}')::int AS "${s}"`).join(', ')},
       count(*) FILTER (WHERE assignee IS NULL)::int AS unassigned,
       count(*) FILTER (WHERE due_on < current_date AND state NOT IN ('done', 'cancelled'))::int AS overdue,
       count(*) FILTER (WHERE priority = 'urgent')::int AS urgent,
       count(*) FILTER (WHERE priority = 'high')::int AS high
     FROM project_items WHERE ${w.join(' AND ')}`, p.values)
  const row = t.rows[0] ?? {}
  const other = await ctx.db.query<{ item_type: string; n: number }>(
    `SELECT item_type, count(*)::int AS n FROM project_items WHERE workspace_id = $1 AND item_type <> 'task' AND deleted_at IS NULL AND archived_at IS NULL
       ${f.board_id === undefined ? '' : 'AND board_id = $2'} GROUP BY item_type`,
    f.board_id === undefined ? [ctx.workspaceId] : [ctx.workspaceId, f.board_id])
  const boards = await ctx.db.query<{ active: number; archived: number }>(
    'SELECT count(*) FILTER (WHERE archived_at IS NULL)::int AS active, count(*) FILTER (WHERE archived_at IS NOT NULL)::int AS archived FROM project_boards WHERE workspace_id = $1',
    [ctx.workspaceId])
  const tax = await ctx.db.query<{ taxonomy_token: string }>('SELECT taxonomy_token FROM project_workspaces WHERE workspace_id = $1', [ctx.workspaceId])
  return {
    workspace_id: ctx.workspaceId,
    default_board_id: defaultBoard,
    taxonomy_revision: tax.rows[0]?.taxonomy_token ?? null,
    boards: boards.rows[0] ?? { active: 0, archived: 0 },
    tasks: {
      total: row.total ?? 0,
      by_state: Object.fromEntries(COUNT_STATES.map((s) => [s, row[s] ?? 0])),
      unassigned: row.unassigned ?? 0,
      overdue: row.overdue ?? 0,
      by_priority: { urgent: row.urgent ?? 0, high: row.high ?? 0 },
    },
    deliverables: other.rows.find((x) => x.item_type === 'deliverable')?.n ?? 0,
    notes: other.rows.find((x) => x.item_type === 'note')?.n ?? 0,
  }
}

/**
 * Tasks and deliverables that carry a date, earliest first (by due date, else
 * start date). Keyset over (date, seq).
 */
export async function timeline(ctx: ProjectCtx, f: ItemFilters, limit: number, after: [string, string] | null): Promise<{ items: (ItemView & { timeline_date: string })[]; last: [string, string] | null }> {
  const p = new Params()
  const w = itemConditions(ctx.workspaceId, ['task', 'deliverable'], f, seesInternal(ctx.actor), p)
  w.push('coalesce(due_on, starts_on) IS NOT NULL')
  if (after !== null) w.push(`(coalesce(due_on, starts_on), seq) > (${p.add(after[0], 'date')}, ${p.add(after[1], 'bigint')})`)
  const r = await ctx.db.query<ItemRow & { tl: string }>(
    `SELECT ${ITEM_COLS}, coalesce(due_on, starts_on)::text AS tl FROM project_items WHERE ${w.join(' AND ')}
     ORDER BY coalesce(due_on, starts_on), project_items.seq LIMIT ${p.add(limit + 1, 'integer')}`, p.values)
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  return {
    items: rows.map((x) => ({ ...toView(x), timeline_date: x.tl })),
    last: r.rows.length > limit && last !== undefined ? [last.tl, last.seq] : null,
  }
}

export interface MemberView {
  user_id: number
  /** profile:<id>, the identity form the assignment webhooks use. */
  id: string
  /** A live (unrevoked) credential of the workspace is bound to this user. */
  active: boolean
  open_tasks: number
  tasks: number
}

/**
 * Members: users bound to the workspace's credentials plus every user a record
 * names (assignee, reviewer, owner), with counts of the tasks the filters select
 * that are assigned to them. Keyset over the user id.
 */
export async function members(ctx: ProjectCtx, f: ItemFilters, limit: number, after: number | null): Promise<Page<MemberView>> {
  await ensureProject(ctx.db, ctx.workspaceId)
  const p = new Params()
  const ws = p.add(ctx.workspaceId, 'uuid')
  const w = itemConditions(ctx.workspaceId, ['task'], { ...f, assignee_id: undefined, unassigned: undefined }, seesInternal(ctx.actor), p)
  const cond: string[] = []
  if (after !== null) cond.push(`u.user_id > ${p.add(after, 'integer')}`)
  if (f.assignee_id !== undefined) cond.push(`u.user_id = ${p.add(f.assignee_id, 'integer')}`)
  const r = await ctx.db.query<{ user_id: number; active: boolean; open_tasks: number; tasks: number }>(
    `WITH users AS (
       SELECT staff_id AS user_id FROM tokens WHERE workspace_id = ${ws} AND staff_id IS NOT NULL
       UNION SELECT assignee FROM project_items WHERE workspace_id = ${ws} AND assignee IS NOT NULL
       UNION SELECT reviewer FROM project_items WHERE workspace_id = ${ws} AND reviewer IS NOT NULL
       UNION SELECT owner FROM project_items WHERE workspace_id = ${ws} AND owner IS NOT NULL
     ), counted AS (
       SELECT assignee, count(*)::int AS tasks, count(*) FILTER (WHERE state NOT IN ('done', 'cancelled'))::int AS open_tasks
       FROM project_items WHERE ${w.join(' AND ')} AND assignee IS NOT NULL GROUP BY assignee
     )
     SELECT u.user_id,
       EXISTS (SELECT 1 FROM tokens t WHERE t.workspace_id = ${ws} AND t.staff_id = u.user_id AND t.revoked_at IS NULL) AS active,
       coalesce(c.open_tasks, 0) AS open_tasks, coalesce(c.tasks, 0) AS tasks
     FROM users u LEFT JOIN counted c ON c.assignee = u.user_id
     ${cond.length === 0 ? '' : `WHERE ${cond.join(' AND ')}`}
     ORDER BY u.user_id LIMIT ${p.add(limit + 1, 'integer')}`, p.values)
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  return {
    items: rows.map((m) => ({ user_id: m.user_id, id: `profile:${m.user_id}`, active: m.active, open_tasks: m.open_tasks, tasks: m.tasks })),
    last: r.rows.length > limit && last !== undefined ? String(last.user_id) : null,
  }
}

/** This installation's id: stable per deployment (derived from a stored server secret). */
export async function instanceId(db: Sql): Promise<string> {
  const h = (await serverSecret(db, 'instance-id')).subarray(0, 16)
  h[6] = ((h[6] as number) & 0x0f) | 0x40
  h[8] = ((h[8] as number) & 0x3f) | 0x80
  const x = h.toString('hex')
  return `${x.slice(0, 8)}-${x.slice(8, 12)}-${x.slice(12, 16)}-${x.slice(16, 20)}-${x.slice(20)}`
}

/** The desktop assignment view: what an assignment-webhook receiver needs to check a task's current assignment. */
export async function assignmentView(ctx: ProjectCtx, id: string) {
  const r = await ctx.db.query<ItemRow & { assignee_active: boolean | null }>(
    `SELECT ${ITEM_COLS}, (SELECT EXISTS (SELECT 1 FROM tokens t WHERE t.workspace_id = i.workspace_id AND t.staff_id = i.assignee AND t.revoked_at IS NULL)) AS assignee_active
     FROM project_items i WHERE workspace_id = $1 AND id = $2 AND item_type = 'task'`, [ctx.workspaceId, id])
  const t = r.rows[0]
  if (t === undefined) throw new NotFoundError('task')
  return {
    instance_id: await instanceId(ctx.db),
    workspace_id: t.workspace_id,
    task_id: t.id,
    board_id: t.board_id,
    number: t.number,
    revision: t.revision,
    assignment_revision: t.assignment_revision,
    assignee: t.assignee === null ? null : { id: `profile:${t.assignee}`, user_id: t.assignee, active: t.assignee_active === true },
    deleted: t.deleted_at !== null,
    deleted_at: t.deleted_at,
  }
}

/** A deliverable with its progress and a page of its tasks (the filter set, except board and trash, applies to the tasks). */
export async function deliverableWithTasks(ctx: ProjectCtx, id: string, f: ItemFilters, limit: number, after: string | null) {
  const d = await getItem(ctx, ['deliverable'], id, { board_id: f.board_id, deleted: f.deleted })
  const progress = await ctx.db.query<{ total: number; done: number }>(
    `SELECT count(*)::int AS total, count(*) FILTER (WHERE state = 'done')::int AS done FROM project_items
     WHERE workspace_id = $1 AND deliverable = $2 AND item_type = 'task' AND deleted_at IS NULL AND archived_at IS NULL AND state <> 'cancelled'`,
    [ctx.workspaceId, id])
  const tasks = await listItems(ctx.db, ctx.workspaceId, ['task'], { ...f, board_id: undefined, deleted: false, deliverable_id: id }, seesInternal(ctx.actor), limit, after)
  return { deliverable: d, progress: progress.rows[0] ?? { total: 0, done: 0 }, tasks }
}
