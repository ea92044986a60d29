// Desktop project items (/v1/projects/items): tasks and notes in one listing,
// idempotent mutations, history and the assignment view.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { ValidateFunction } from 'ajv'
import { createAjv } from '../../../core/index.ts'
import { principalOf } from '../../auth/plugin.ts'
import type { Database, Sql } from '../../../core/index.ts'
import { RequestInvalid } from '../../../core/index.ts'
import { toDetails } from '../../../core/index.ts'
import { ForbiddenError, NotFoundError } from '../../../core/index.ts'
import { ItemDeletedError, NotApplicableError } from '../../../workspace/index.ts'
import { ID_PARAMS } from '../../../workspace/index.ts'
import {
  HISTORY_QUERY, ITEM_ACTION, ITEM_CREATE, ITEM_LIST_QUERY, ITEM_PATCH_ENVELOPE, NOTE_PATCH, REVISION_MUTATION, TASK_PATCH, WS_QUERY,
} from '../../../workspace/index.ts'
import { applyActionAny, type ActionInput } from '../../../workspace/index.ts'
import { seesInternal, type ProjectCtx } from '../../../workspace/index.ts'
import { ensureProject, listWorkspaces } from '../../../workspace/index.ts'
import { projectIdempotent as idempotent } from '../../../workspace/index.ts'
import {
  applyChanges, checkEditable, checkRevision, getItemRow, lockItem, toView, type ItemRow,
} from '../../../workspace/index.ts'
import { listActivity, listItemDocs, type ItemFilters } from '../../../workspace/index.ts'
import { insertNote, noteChanges, type NoteCreateInput } from '../../../workspace/index.ts'
import { insertTask, taskChanges, type TaskCreateInput } from '../../../workspace/index.ts'
import { assignmentView } from '../../../workspace/index.ts'
import { DESKTOP_READ, DESKTOP_WRITE, afterKey, ctxOf, foldIds, pageBody, parts, sendDocPage, type ProjectRouteOptions } from './common.ts'

/**
 * The workspace a desktop request acts on: the one it names (query or body)
 * when the credential belongs to it, any existing one for the local owner.
 */
export async function desktopCtx(req: FastifyRequest, db: Database, named: string | undefined): Promise<ProjectCtx> {
  const p = principalOf(req)
  // A shared workspace id was already translated to the local one (api/edge/shared-workspace.ts).
  if (named === undefined || named === p.workspaceId) return ctxOf(req, db)
  if (!req.isOwner) throw new ForbiddenError('the token belongs to another workspace')
  if ((await listWorkspaces(db, [named])).length === 0) throw new NotFoundError('workspace')
  return ctxOf(req, db, named)
}

function splitIds(csv: string | undefined): string[] | undefined {
  if (csv === undefined || csv === '') return undefined
  return csv.split(',').map((s) => s.toLowerCase())
}

type ListQuery = Omit<ItemFilters, 'type_ids' | 'label_ids'> & {
  workspace_id?: string
  cursor?: string
  limit: number
  type_ids?: string
  label_ids?: string
  item_type?: 'task' | 'note'
}

type Mutation = { workspace_id?: string; idempotency_key: string; revision: number }

/** The stored item a desktop route names, with the caller allowed to see it. */
async function visibleItem(ctx: ProjectCtx, id: string): Promise<ItemRow> {
  const row = await getItemRow(ctx.db, ctx.workspaceId, id)
  if (row === undefined || row.item_type === 'deliverable') throw new NotFoundError('item')
  if (row.item_type === 'note' && row.visibility === 'internal' && !seesInternal(ctx.actor)) throw new NotFoundError('item')
  return row
}

function check(validate: ValidateFunction, body: unknown): void {
  if (!validate(body)) throw new RequestInvalid(toDetails(validate.errors ?? [], 'body'), 400)
}

export async function desktopItemRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  // The item's own edit schema is known only once the item is read: compiled once here.
  const ajv = createAjv()
  const taskPatch = ajv.compile(TASK_PATCH)
  const notePatch = ajv.compile(NOTE_PATCH)

  app.get('/v1/projects/items', { config: DESKTOP_READ, schema: { querystring: ITEM_LIST_QUERY } }, async (req, reply) => {
    const { query: q } = parts<never, ListQuery>(req)
    const ctx = await desktopCtx(req, db, q.workspace_id)
    const { workspace_id: _w, cursor, limit, item_type, type_ids, label_ids, ...rest } = q
    const f: ItemFilters = { ...rest, type_ids: splitIds(type_ids), label_ids: splitIds(label_ids) }
    const types = item_type === undefined ? (['task', 'note'] as const) : [item_type]
    const page = await listItemDocs(db, ctx.workspaceId, types, f, seesInternal(ctx.actor), limit, afterKey(cursors, 'items', cursor))
    return sendDocPage(reply, cursors, 'items', page)
  })

  app.post('/v1/projects/items', { config: DESKTOP_WRITE, schema: { body: ITEM_CREATE } }, async (req, reply) => {
    const body = foldIds(req.body as (TaskCreateInput | NoteCreateInput) & { workspace_id?: string; item_type?: 'task' | 'note' })
    const ctx = await desktopCtx(req, db, body.workspace_id)
    const defaultBoard = await ensureProject(db, ctx.workspaceId)
    const { workspace_id: _w, idempotency_key: key, item_type: type = 'task', ...fields } = body
    const out = await idempotent(db, ctx.workspaceId, key, 'item.create', { type, ...fields }, async (tx) => {
      const row = type === 'note'
        ? await insertNote(tx, ctx, defaultBoard, fields as Omit<NoteCreateInput, 'idempotency_key'>, ['body'])
        : await insertTask(tx, ctx, defaultBoard, fields as Omit<TaskCreateInput, 'idempotency_key'>, ['body'])
      return { status: 201, body: toView(row) }
    })
    reply.code(out.status)
    return out.body
  })

  app.get('/v1/projects/items/:id', { config: DESKTOP_READ, schema: { params: ID_PARAMS, querystring: WS_QUERY } }, async (req) => {
    const { query: q, params } = parts<never, { workspace_id?: string }, { id: string }>(req)
    const ctx = await desktopCtx(req, db, q.workspace_id)
    return toView(await visibleItem(ctx, params.id))
  })

  app.patch('/v1/projects/items/:id', { config: DESKTOP_WRITE, schema: { params: ID_PARAMS, body: ITEM_PATCH_ENVELOPE } }, async (req) => {
    const { body, params } = parts<Mutation & Record<string, unknown>, never, { id: string }>(req)
    const ctx = await desktopCtx(req, db, body.workspace_id)
    // An item's type never changes, so reading it before the transaction is safe.
    const current = await visibleItem(ctx, params.id)
    check(current.item_type === 'task' ? taskPatch : notePatch, body)
    const { workspace_id: _w, idempotency_key: key, revision, ...fields } = body
    const out = await idempotent(db, ctx.workspaceId, key, `item.patch:${params.id}`, { revision, ...fields }, async (tx) => {
      const row = await lockItem(tx, ctx.workspaceId, params.id, { itemType: current.item_type, boardId: fields.board_id as string | null | undefined })
      checkRevision(row, revision, row.item_type)
      checkEditable(row)
      const { board_id: _b, ...edit } = fields
      const changes = row.item_type === 'task' ? await taskChanges(tx, ctx, row, edit, ['body']) : noteChanges(ctx, edit)
      return { status: 200, body: toView(await applyChanges(tx, ctx.actor, row, changes, { action: 'update', revision })) }
    })
    return out.body
  })

  const mutate = async (ctx: ProjectCtx, id: string, body: Mutation, scope: string, request: unknown, act: (row: ItemRow, tx: Sql) => Promise<ItemRow>) => {
    const current = await visibleItem(ctx, id)
    const out = await idempotent(db, ctx.workspaceId, body.idempotency_key, `${scope}:${id}`, request, async (tx) => {
      const row = await lockItem(tx, ctx.workspaceId, id, { itemType: current.item_type })
      return { status: 200, body: toView(await act(row, tx)) }
    })
    return out.body
  }

  const trash = (ctx: ProjectCtx, revision: number) => async (row: ItemRow, tx: Sql) => {
    checkRevision(row, revision, row.item_type)
    if (row.deleted_at !== null) throw new ItemDeletedError(`the ${row.item_type} is already in the trash`)
    return applyChanges(tx, ctx.actor, row, { deleted: true }, { action: 'delete', revision })
  }

  app.post('/v1/projects/items/:id/actions', { config: DESKTOP_WRITE, schema: { params: ID_PARAMS, body: ITEM_ACTION } }, async (req) => {
    const { body, params } = parts<Mutation & { action: 'archive' | 'trash' | 'restore' | 'approval'; decision?: 'approve' | 'changes'; body?: string }, never, { id: string }>(req)
    const ctx = await desktopCtx(req, db, body.workspace_id)
    const { workspace_id: _w, idempotency_key: _k, ...request } = body
    return mutate(ctx, params.id, body, 'item.action', request, async (row, tx) => {
      if (body.action === 'trash') return trash(ctx, body.revision)(row, tx)
      let action: ActionInput['action'] = body.action === 'approval' ? 'approve' : body.action
      if (body.action === 'approval') {
        if (row.item_type !== 'task') throw new NotApplicableError('only tasks go through approval')
        if (body.decision === undefined) throw new RequestInvalid([{ loc: ['body', 'decision'], msg: 'Field required for approval', type: 'missing' }], 400)
        action = body.decision === 'approve' ? 'approve' : 'changes'
      } else if (body.decision !== undefined) {
        throw new RequestInvalid([{ loc: ['body', 'decision'], msg: 'decision applies to approval only', type: 'not_applicable' }], 400)
      }
      return applyActionAny(tx, ctx, row, { revision: body.revision, action, body: body.body ?? '' }, ['body'])
    })
  })

  app.delete('/v1/projects/items/:id', { config: DESKTOP_WRITE, schema: { params: ID_PARAMS, body: REVISION_MUTATION } }, async (req) => {
    const { body, params } = parts<Mutation, never, { id: string }>(req)
    const ctx = await desktopCtx(req, db, body.workspace_id)
    return mutate(ctx, params.id, body, 'item.action', { action: 'trash', revision: body.revision }, (row, tx) => trash(ctx, body.revision)(row, tx))
  })

  app.get('/v1/projects/items/:id/history', { config: DESKTOP_READ, schema: { params: ID_PARAMS, querystring: HISTORY_QUERY } }, async (req) => {
    const { query: q, params } = parts<never, { workspace_id?: string; cursor?: string; limit: number }, { id: string }>(req)
    const ctx = await desktopCtx(req, db, q.workspace_id)
    await visibleItem(ctx, params.id)
    const page = await listActivity(db, ctx.workspaceId, { item_id: params.id }, q.limit, afterKey(cursors, 'history', q.cursor))
    return pageBody(cursors, 'history', page)
  })

  app.get('/v1/projects/items/:id/assignment', { config: DESKTOP_READ, schema: { params: ID_PARAMS, querystring: WS_QUERY } }, async (req) => {
    const { query: q, params } = parts<never, { workspace_id?: string }, { id: string }>(req)
    const ctx = await desktopCtx(req, db, q.workspace_id)
    return assignmentView(ctx, params.id)
  })
}
