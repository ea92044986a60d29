// Cloud notes: list, create, read, edit, actions (archive, restore).
import type { FastifyInstance } from 'fastify'
import { ACTION, FILTER_QUERY, NOTE_CREATE, NOTE_UPDATE } from '../../../workspace/index.ts'
import { ITEM_PARAMS, WORKSPACE_PARAMS } from '../../../workspace/index.ts'
import { applyAction, type ActionInput } from '../../../workspace/index.ts'
import { seesInternal } from '../../../workspace/index.ts'
import { listItemDocs } from '../../../workspace/index.ts'
import { createNote, updateNote, type NoteCreateInput, type NoteUpdateInput } from '../../../workspace/index.ts'
import { getItem } from '../../../workspace/index.ts'
import type { FilterQuery } from './boards.ts'
import { CLOUD_READ, CLOUD_WRITE, P, afterKey, ctxOf, parts, sendDocPage, type ProjectRouteOptions } from './common.ts'
import { filtersOf } from './tasks.ts'

type ItemParams = { item_id: string }

export async function noteRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  app.get(`${P}/notes`, { config: CLOUD_READ, schema: { params: WORKSPACE_PARAMS, querystring: FILTER_QUERY } }, async (req, reply) => {
    const { query: q } = parts<never, FilterQuery>(req)
    const ctx = ctxOf(req, db)
    const page = await listItemDocs(db, ctx.workspaceId, ['note'], filtersOf(q), seesInternal(ctx.actor), q.limit, afterKey(cursors, 'notes', q.cursor))
    return sendDocPage(reply, cursors, 'notes', page)
  })

  app.post(`${P}/notes`, { config: CLOUD_WRITE, schema: { params: WORKSPACE_PARAMS, body: NOTE_CREATE } }, async (req, reply) => {
    const out = await createNote(ctxOf(req, db), parts<NoteCreateInput>(req).body)
    reply.code(out.status)
    return out.body
  })

  app.get(`${P}/notes/:item_id`, { config: CLOUD_READ, schema: { params: ITEM_PARAMS, querystring: FILTER_QUERY } }, async (req) => {
    const { query: q, params } = parts<never, FilterQuery, ItemParams>(req)
    return getItem(ctxOf(req, db), ['note'], params.item_id, { board_id: q.board_id, deleted: q.deleted })
  })

  app.patch(`${P}/notes/:item_id`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: NOTE_UPDATE } }, async (req) => {
    const { body, params } = parts<NoteUpdateInput, never, ItemParams>(req)
    return updateNote(ctxOf(req, db), params.item_id, body)
  })

  app.post(`${P}/notes/:item_id/actions`, { config: CLOUD_WRITE, schema: { params: ITEM_PARAMS, body: ACTION } }, async (req) => {
    const { body, params } = parts<ActionInput, never, ItemParams>(req)
    return applyAction(ctxOf(req, db), 'note', params.item_id, body)
  })
}
