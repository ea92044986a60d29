// Cloud deliverables: list, create, read (with progress and a page of its tasks), edit, actions.
import type { FastifyInstance } from 'fastify'
import { ACTION, DELIVERABLE_CREATE, DELIVERABLE_UPDATE, FILTER_QUERY } from '../../../workspace/index.ts'
import { ITEM_PARAMS, WORKSPACE_PARAMS } from '../../../workspace/index.ts'
import { applyAction, type ActionInput } from '../../../workspace/index.ts'
import { seesInternal } from '../../../workspace/index.ts'
import { createDeliverable, updateDeliverable, type DeliverableCreateInput, type DeliverableUpdateInput } from '../../../workspace/index.ts'
import { listItemDocs } from '../../../workspace/index.ts'
import { deliverableWithTasks } from '../../../workspace/index.ts'
import type { FilterQuery } from './boards.ts'
import { CLOUD_READ, CLOUD_WRITE, P, afterKey, ctxOf, pageBody, parts, sendDocPage, type ProjectRouteOptions } from './common.ts'
import { filtersOf } from './tasks.ts'

type ItemParams = { item_id: string }

export async function deliverableRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  app.get(`${P}/deliverables`, { config: CLOUD_READ, schema: { params: WORKSPACE_PARAMS, querystring: FILTER_QUERY } }, async (req, reply) => {
    const { query: q } = parts<never, FilterQuery>(req)
    const ctx = ctxOf(req, db)
    const page = await listItemDocs(db, ctx.workspaceId, ['deliverable'], filtersOf(q), seesInternal(ctx.actor), q.limit, afterKey(cursors, 'deliverables', q.cursor))
    return sendDocPage(reply, cursors, 'deliverables', page)
  })

  app.post(`${P}/deliverables`, { config: CLOUD_WRITE, schema: { params: WORKSPACE_PARAMS, body: DELIVERABLE_CREATE } }, async (req, reply) => {
    const out = await createDeliverable(ctxOf(req, db), parts<DeliverableCreateInput>(req).body)
    reply.code(out.status)
    return out.body
  })

  app.get(`${P}/deliverables/:item_id`, { config: CLOUD_READ, schema: { params: ITEM_PARAMS, querystring: FILTER_QUERY } }, async (req) => {
    const { query: q, params } = parts<never, FilterQuery, ItemParams>(req)
    const r = await deliverableWithTasks(ctxOf(req, db), params.item_id, filtersOf(q), q.limit, afterKey(cursors, 'deliverable-tasks', q.cursor))
    return { ...r.deliverable, progress: r.progress, tasks: pageBody(cursors, 'deliverable-tasks', r.tasks) }
  })

  app.patch(`${P}/deliverables/:item_id`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: DELIVERABLE_UPDATE } }, async (req) => {
    const { body, params } = parts<DeliverableUpdateInput, never, ItemParams>(req)
    return updateDeliverable(ctxOf(req, db), params.item_id, body)
  })

  app.post(`${P}/deliverables/:item_id/actions`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: ACTION } }, async (req) => {
    const { body, params } = parts<ActionInput, never, ItemParams>(req)
    return applyAction(ctxOf(req, db), 'deliverable', params.item_id, body)
  })
}
