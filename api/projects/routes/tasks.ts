// Cloud tasks: list, create, read, edit, move, delete, actions; and the tickets list.
import type { FastifyInstance } from 'fastify'
import { ACTION, FILTER_QUERY, REVISION_INPUT, TASK_CREATE, TASK_MOVE, TASK_UPDATE } from '../../../workspace/index.ts'
import { ITEM_PARAMS, WORKSPACE_PARAMS } from '../../../workspace/index.ts'
import { applyAction, type ActionInput } from '../../../workspace/index.ts'
import { seesInternal } from '../../../workspace/index.ts'
import { toTask } from '../../../workspace/index.ts'
import { listItemDocs, type ItemFilters } from '../../../workspace/index.ts'
import { createTask, deleteItem, moveTask, updateTask, type TaskCreateInput, type TaskMoveInput, type TaskUpdateInput } from '../../../workspace/index.ts'
import { getItem } from '../../../workspace/index.ts'
import type { FilterQuery } from './boards.ts'
import { tracePoint } from './trace.ts'
import { CLOUD_READ, CLOUD_WRITE, P, afterKey, ctxOf, parts, sendDocPage, type ProjectRouteOptions } from './common.ts'

type ItemParams = { item_id: string }

export function filtersOf(q: FilterQuery): ItemFilters {
  const { cursor: _c, limit: _l, ...f } = q
  return f
}

export async function taskRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  const list = { config: CLOUD_READ, schema: { params: WORKSPACE_PARAMS, querystring: FILTER_QUERY } }
  const get = { config: CLOUD_READ, schema: { params: ITEM_PARAMS, querystring: FILTER_QUERY } }

  app.get(`${P}/tasks`, list, async (req, reply) => {
    const { query: q } = parts<never, FilterQuery>(req)
    const ctx = ctxOf(req, db)
    const page = await listItemDocs(db, ctx.workspaceId, ['task'], filtersOf(q), seesInternal(ctx.actor), q.limit, afterKey(cursors, 'tasks', q.cursor))
    return sendDocPage(reply, cursors, 'tasks', page)
  })

  // Tickets are the tasks of kind service_ticket (tasks created from a source ticket).
  app.get(`${P}/tickets`, list, async (req, reply) => {
    const { query: q } = parts<never, FilterQuery>(req)
    const ctx = ctxOf(req, db)
    const after = afterKey(cursors, 'tickets', q.cursor)
    if (q.kind === 'task') return { items: [], next_cursor: null }
    const page = await listItemDocs(db, ctx.workspaceId, ['task'], { ...filtersOf(q), kind: 'service_ticket' }, seesInternal(ctx.actor), q.limit, after)
    return sendDocPage(reply, cursors, 'tickets', page)
  })

  app.post(`${P}/tasks`, { config: CLOUD_WRITE, schema: { params: WORKSPACE_PARAMS, body: TASK_CREATE } }, async (req, reply) => {
    const body = parts<TaskCreateInput>(req).body
    await tracePoint('begin', body.idempotency_key)
    const out = await createTask(ctxOf(req, db), body)
    if (!out.replay) await tracePoint('committed', body.idempotency_key)
    reply.code(out.status)
    return out.body
  })

  app.get(`${P}/tasks/:item_id`, get, async (req) => {
    const { query: q, params } = parts<never, FilterQuery, ItemParams>(req)
    return getItem(ctxOf(req, db), ['task'], params.item_id, q)
  })

  app.patch(`${P}/tasks/:item_id`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: TASK_UPDATE } }, async (req) => {
    const { body, params } = parts<TaskUpdateInput, never, ItemParams>(req)
    return updateTask(ctxOf(req, db), params.item_id, body)
  })

  app.delete(`${P}/tasks/:item_id`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: REVISION_INPUT } }, async (req) => {
    const { body, params } = parts<{ board_id?: string | null; revision: number }, never, ItemParams>(req)
    return toTask(await deleteItem(ctxOf(req, db), 'task', params.item_id, body))
  })

  app.post(`${P}/tasks/:item_id/actions`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: ACTION } }, async (req) => {
    const { body, params } = parts<ActionInput, never, ItemParams>(req)
    return applyAction(ctxOf(req, db), 'task', params.item_id, body)
  })

  app.post(`${P}/tasks/:item_id/move`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: TASK_MOVE } }, async (req) => {
    const { body, params } = parts<TaskMoveInput, never, ItemParams>(req)
    return moveTask(ctxOf(req, db), params.item_id, body)
  })
}
