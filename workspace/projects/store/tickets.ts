// Service tickets: a request raised against a resource or service, with a
// conversation of replies. Each ticket is created with its work task (kind
// service_ticket) under the same id, so the tickets list (tasks of that kind)
// shows it and the board tracks its work; the ticket keeps what the task has
// no field for (the full body, category, resource) and the replies.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { ForbiddenError, NotFoundError } from '../../../core/index.ts'
import { ItemDeletedError } from '../../errors.ts'
import { recordActivity } from './activity.ts'
import { seesInternal, type ProjectCtx } from './context.ts'
import { ensureProject } from './defaults.ts'
import { idempotent, type Outcome } from './idempotency.ts'
import { ITEM_COLS, toTask, type ItemRow, type TaskView } from './items.ts'
import { Params, likePattern, page, type Page } from './lists.ts'
import { REF_TYPES, invalid } from './refs.ts'
import { insertTask } from './tasks.ts'

/** The work task's description holds what of the body fits its own bound (TaskCreate: 6000). */
const TASK_DESCRIPTION_MAX = 6000

export interface TicketCreateInput {
  board_id?: string | null
  idempotency_key: string
  subject: string
  body: string
  category?: string
  resource?: string | null
  service?: string | null
}

export interface ReplyInput {
  board_id?: string | null
  idempotency_key: string
  body: string
  visibility?: string | null
}

interface TicketRow {
  id: string
  subject: string
  body: string
  category: string
  resource: string | null
  service: string | null
  created_by: number | null
  created_at: Date
}

const TICKET_COLS = 'id, subject, body, category, resource, service, created_by, created_at'

export interface TicketView {
  id: string
  workspace_id: string
  subject: string
  body: string
  category: string
  resource: string | null
  service: string | null
  created_by: number | null
  created_at: string
  /** The ticket's work task (same id): board, number, status, state, assignee, revision. */
  task: TaskView
}

function toTicket(workspaceId: string, t: TicketRow, task: ItemRow): TicketView {
  return {
    id: t.id, workspace_id: workspaceId, subject: t.subject, body: t.body, category: t.category, resource: t.resource, service: t.service,
    created_by: t.created_by, created_at: new Date(t.created_at).toISOString(), task: toTask(task),
  }
}

interface ReplyRow {
  id: string
  seq: string
  ticket_id: string
  body: string
  visibility: string
  author: number | null
  created_at: Date
}

const REPLY_COLS = 'id, seq::text AS seq, ticket_id, body, visibility, author, created_at'

export interface ReplyView {
  id: string
  ticket_id: string
  body: string
  visibility: string
  author: number | null
  created_at: string
}

function toReply(r: ReplyRow): ReplyView {
  return { id: r.id, ticket_id: r.ticket_id, body: r.body, visibility: r.visibility, author: r.author, created_at: new Date(r.created_at).toISOString() }
}

function cut(text: string, max: number): string {
  const chars = Array.from(text)
  return chars.length <= max ? text : chars.slice(0, max).join('')
}

async function checkResource(tx: Sql, workspaceId: string, resource: string | null | undefined): Promise<void> {
  if (resource == null) return
  const r = await tx.query('SELECT 1 FROM resources WHERE workspace_id = $1 AND id = $2', [workspaceId, resource])
  if (r.rows.length === 0) throw invalid(['body', 'resource'], 'Resource not found in this workspace', REF_TYPES.notFound, resource)
}

export async function createTicket(ctx: ProjectCtx, input: TicketCreateInput): Promise<Outcome<TicketView>> {
  const defaultBoard = await ensureProject(ctx.db, ctx.workspaceId)
  const { idempotency_key: key, ...fields } = input
  return idempotent(ctx.db, ctx.workspaceId, key, 'ticket.create', fields, async (tx) => {
    await checkResource(tx, ctx.workspaceId, fields.resource)
    const id = randomUUID()
    const task = await insertTask(tx, ctx, defaultBoard, {
      board_id: fields.board_id, title: fields.subject, description: cut(fields.body, TASK_DESCRIPTION_MAX), service: fields.service, source_ticket: id,
    }, ['body'], id)
    const r = await tx.query<TicketRow>(
      `INSERT INTO project_tickets (id, workspace_id, subject, body, category, resource, service, created_by)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${TICKET_COLS}`,
      [id, ctx.workspaceId, fields.subject, fields.body, fields.category ?? 'general', fields.resource ?? null, fields.service ?? null, ctx.actor.userId])
    const row = r.rows[0] as TicketRow
    await recordActivity(tx, ctx.workspaceId, ctx.actor, {
      boardId: task.board_id, itemId: id, entity: 'ticket', action: 'create', summary: `ticket #${task.number} ${JSON.stringify(row.subject)}: create`,
      before: null, after: { subject: row.subject, category: row.category, resource: row.resource, service: row.service },
    })
    return { status: 201, body: toTicket(ctx.workspaceId, row, task) }
  })
}

/** A ticket and its task; the filter set's board_id and deleted narrow the read like any item's (else 404). */
async function readTicket(tx: Sql, workspaceId: string, id: string, f: { board_id?: string | null; deleted?: boolean }): Promise<{ ticket: TicketRow; task: ItemRow }> {
  const t = await tx.query<TicketRow>(`SELECT ${TICKET_COLS} FROM project_tickets WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])
  const ticket = t.rows[0]
  if (ticket === undefined) throw new NotFoundError('ticket')
  const i = await tx.query<ItemRow>(`SELECT ${ITEM_COLS} FROM project_items WHERE workspace_id = $1 AND id = $2`, [workspaceId, id])
  const task = i.rows[0] as ItemRow
  if (f.board_id != null && task.board_id !== f.board_id) throw new NotFoundError(`ticket on board ${f.board_id}`)
  if (f.deleted !== undefined && (task.deleted_at !== null) !== f.deleted) {
    throw new NotFoundError(task.deleted_at !== null ? 'ticket (its task is deleted: ask with deleted=true)' : 'ticket')
  }
  return { ticket, task }
}

/** The ticket with one page of its replies, oldest first (internal ones for staff only). */
export async function getTicket(
  ctx: ProjectCtx, id: string, f: { board_id?: string; deleted?: boolean; q?: string }, limit: number, after: string | null,
): Promise<{ ticket: TicketView; replies: Page<ReplyView> }> {
  const { ticket, task } = await readTicket(ctx.db, ctx.workspaceId, id, { board_id: f.board_id, deleted: f.deleted ?? false })
  const p = new Params()
  const w = [`workspace_id = ${p.add(ctx.workspaceId, 'uuid')}`, `ticket_id = ${p.add(id, 'uuid')}`]
  if (!seesInternal(ctx.actor)) w.push(`visibility <> 'internal'`)
  if (f.q !== undefined && f.q !== '') w.push(`body ILIKE ${p.add(likePattern(f.q))}`)
  if (after !== null) w.push(`seq > ${p.add(after, 'bigint')}`)
  const r = await ctx.db.query<ReplyRow>(
    `SELECT ${REPLY_COLS} FROM project_ticket_replies WHERE ${w.join(' AND ')} ORDER BY seq LIMIT ${p.add(limit + 1, 'integer')}`, p.values)
  return { ticket: toTicket(ctx.workspaceId, ticket, task), replies: page(r.rows, limit, toReply) }
}

export async function replyToTicket(ctx: ProjectCtx, id: string, input: ReplyInput): Promise<Outcome<ReplyView>> {
  const { idempotency_key: key, ...fields } = input
  const visibility = fields.visibility ?? 'shared'
  if (visibility === 'internal' && !seesInternal(ctx.actor)) throw new ForbiddenError('internal replies need a credential bound to a staff user')
  return idempotent(ctx.db, ctx.workspaceId, key, `ticket.reply:${id}`, fields, async (tx) => {
    const { task } = await readTicket(tx, ctx.workspaceId, id, { board_id: fields.board_id })
    if (task.deleted_at !== null) throw new ItemDeletedError(`ticket ${id}: restore its task before replying`)
    const r = await tx.query<ReplyRow>(
      `INSERT INTO project_ticket_replies (id, workspace_id, ticket_id, body, visibility, author) VALUES ($1, $2, $3, $4, $5, $6) RETURNING ${REPLY_COLS}`,
      [randomUUID(), ctx.workspaceId, id, fields.body, visibility, ctx.actor.userId])
    const row = r.rows[0] as ReplyRow
    await recordActivity(tx, ctx.workspaceId, ctx.actor, {
      boardId: task.board_id, itemId: id, entity: 'reply', action: 'create', summary: `reply on ticket #${task.number}: create`,
      before: null, after: { reply_id: row.id, visibility },
    })
    return { status: 201, body: toReply(row) }
  })
}
