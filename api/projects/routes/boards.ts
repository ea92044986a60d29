// Cloud boards: list, create, rename / archive / restore.
import type { FastifyInstance } from 'fastify'
import { BOARD_ACTION, BOARD_CREATE, FILTER_QUERY } from '../../../workspace/index.ts'
import { ITEM_PARAMS, WORKSPACE_PARAMS } from '../../../workspace/index.ts'
import { boardAction, createBoard, listBoards, type BoardActionInput } from '../../../workspace/index.ts'
import type { ItemFilters } from '../../../workspace/index.ts'
import { CLOUD_READ, CLOUD_WRITE, P, afterKey, ctxOf, pageBody, parts, type ProjectRouteOptions } from './common.ts'

export type FilterQuery = ItemFilters & { cursor?: string; limit: number }

export async function boardRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  app.get(`${P}/project/boards`, { config: CLOUD_READ, schema: { params: WORKSPACE_PARAMS, querystring: FILTER_QUERY } }, async (req) => {
    const { query: q } = parts<never, FilterQuery>(req)
    const page = await listBoards(ctxOf(req, db), q, q.limit, afterKey(cursors, 'boards', q.cursor))
    return pageBody(cursors, 'boards', page)
  })

  app.post(`${P}/project/boards`, { config: CLOUD_WRITE, schema: { params: WORKSPACE_PARAMS, body: BOARD_CREATE } }, async (req, reply) => {
    const { body } = parts<{ board_id?: string | null; idempotency_key: string; name: string }>(req)
    const out = await createBoard(ctxOf(req, db), body)
    reply.code(out.status)
    return out.body
  })

  app.post(`${P}/project/boards/:item_id`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: BOARD_ACTION } }, async (req) => {
    const { body, params } = parts<BoardActionInput, never, { item_id: string }>(req)
    return boardAction(ctxOf(req, db), params.item_id, body)
  })
}
