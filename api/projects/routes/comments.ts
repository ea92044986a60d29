// Cloud task comments: list, create, edit, delete.
import type { FastifyInstance } from 'fastify'
import { COMMENT_CREATE, COMMENT_UPDATE, FILTER_QUERY, REVISION_INPUT } from '../../../workspace/index.ts'
import { COMMENT_PARAMS, ITEM_PARAMS } from '../../../workspace/index.ts'
import { commentedTask, createComment, deleteComment, updateComment, type CommentCreateInput } from '../../../workspace/index.ts'
import { seesInternal } from '../../../workspace/index.ts'
import { listComments } from '../../../workspace/index.ts'
import type { FilterQuery } from './boards.ts'
import { tracePoint } from './trace.ts'
import { CLOUD_READ, CLOUD_WRITE, P, afterKey, ctxOf, pageBody, parts, type ProjectRouteOptions } from './common.ts'

type CommentParams = { item_id: string; comment_id: string }

export async function commentRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  app.get(`${P}/tasks/:item_id/comments`, { config: CLOUD_READ, schema: { params: ITEM_PARAMS, querystring: FILTER_QUERY } }, async (req) => {
    const { query: q, params } = parts<never, FilterQuery, { item_id: string }>(req)
    const ctx = ctxOf(req, db)
    await commentedTask(db, ctx.workspaceId, params.item_id, q.board_id)
    const page = await listComments(db, ctx.workspaceId, params.item_id, q, seesInternal(ctx.actor), q.limit, afterKey(cursors, 'comments', q.cursor))
    return pageBody(cursors, 'comments', page)
  })

  app.post(`${P}/tasks/:item_id/comments`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: COMMENT_CREATE } }, async (req, reply) => {
    const { body, params } = parts<CommentCreateInput, never, { item_id: string }>(req)
    await tracePoint('begin', body.idempotency_key, 'comment.create')
    const out = await createComment(ctxOf(req, db), params.item_id, body)
    if (!out.replay) await tracePoint('committed', body.idempotency_key, 'comment.create')
    reply.code(out.status)
    return out.body
  })

  app.patch(`${P}/tasks/:item_id/comments/:comment_id`, { config: CLOUD_WRITE, schema: { params: COMMENT_PARAMS, body: COMMENT_UPDATE } }, async (req) => {
    const { body, params } = parts<{ board_id?: string | null; revision: number; body: string }, never, CommentParams>(req)
    return updateComment(ctxOf(req, db), params.item_id, params.comment_id, body)
  })

  app.delete(`${P}/tasks/:item_id/comments/:comment_id`, { config: CLOUD_WRITE, schema: { params: COMMENT_PARAMS, body: REVISION_INPUT } }, async (req) => {
    const { body, params } = parts<{ board_id?: string | null; revision: number }, never, CommentParams>(req)
    return deleteComment(ctxOf(req, db), params.item_id, params.comment_id, body)
  })
}
