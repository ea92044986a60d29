// Desktop catalogues: boards, members, statuses, taxonomy and edges.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Database } from '../../../core/index.ts'
import { ForbiddenError } from '../../../core/index.ts'
import { ID_PARAMS } from '../../../workspace/index.ts'
import {
  BOARDS_QUERY, EDGE_CREATE, EDGES_QUERY, REVISION_MUTATION, STATUSES_QUERY, STATUS_CONFIGURE, TAXONOMY_QUERY, TAXONOMY_WRITE, HISTORY_QUERY,
} from '../../../workspace/index.ts'
import { listBoards } from '../../../workspace/index.ts'
import { ensureProject } from '../../../workspace/index.ts'
import { insertEdge, listEdges, tombstoneEdge, type EdgeInput } from '../../../workspace/index.ts'
import { projectIdempotent as idempotent } from '../../../workspace/index.ts'
import { configureStatusesIn, statusCatalogue, type BoardConfigureInput } from '../../../workspace/index.ts'
import { configureTaxonomyIn, taxonomyCatalogue, type TaxonomyInput } from '../../../workspace/index.ts'
import { members } from '../../../workspace/index.ts'
import { portalConnected } from '../../../desktop/index.ts'
import { DESKTOP_READ, DESKTOP_WRITE, afterKey, pageBody, parts, type ProjectRouteOptions } from './common.ts'
import { desktopCtx } from './desktop-items.ts'

type Ws = { workspace_id?: string }

/**
 * A workspace connected to its portal shares its catalogues with the portal's
 * other users: writing them needs workspace management permission (spec), which
 * on the desktop is the owner's; a grant with project:write alone gets 403.
 */
async function checkCatalogueWrite(req: FastifyRequest, db: Database, workspaceId: string): Promise<void> {
  if (req.isOwner) return
  if (await portalConnected(db, workspaceId)) {
    throw new ForbiddenError('the workspace is connected to its portal: catalogue changes need workspace management permission (the owner)')
  }
}
type PageQuery = Ws & { cursor?: string; limit: number }

export async function desktopCatalogueRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  app.get('/v1/projects/boards', { config: DESKTOP_READ, schema: { querystring: BOARDS_QUERY } }, async (req) => {
    const { query: q } = parts<never, PageQuery & { q?: string; archived: boolean }>(req)
    const page = await listBoards(await desktopCtx(req, db, q.workspace_id), q, q.limit, afterKey(cursors, 'boards', q.cursor))
    return pageBody(cursors, 'boards', page)
  })

  app.get('/v1/projects/members', { config: DESKTOP_READ, schema: { querystring: HISTORY_QUERY } }, async (req) => {
    const { query: q } = parts<never, PageQuery>(req)
    const after = afterKey(cursors, 'members', q.cursor)
    const page = await members(await desktopCtx(req, db, q.workspace_id), {}, q.limit, after === null ? null : Number(after))
    return pageBody(cursors, 'members', page)
  })

  app.get('/v1/projects/statuses', { config: DESKTOP_READ, schema: { querystring: STATUSES_QUERY } }, async (req) => {
    const { query: q } = parts<never, Ws & { board_id?: string; archived: boolean }>(req)
    return statusCatalogue(await desktopCtx(req, db, q.workspace_id), q.board_id, q.archived)
  })

  app.post('/v1/projects/statuses', { config: DESKTOP_WRITE, schema: { body: STATUS_CONFIGURE } }, async (req) => {
    const { body } = parts<BoardConfigureInput & Ws & { idempotency_key: string }>(req)
    const ctx = await desktopCtx(req, db, body.workspace_id)
    await checkCatalogueWrite(req, db, ctx.workspaceId)
    const defaultBoard = await ensureProject(db, ctx.workspaceId)
    const { workspace_id: _w, idempotency_key: key, ...input } = body
    const out = await idempotent(db, ctx.workspaceId, key, 'statuses.configure', input, async (tx) => ({
      status: 200, body: await configureStatusesIn(tx, ctx, defaultBoard, input),
    }))
    return out.body
  })

  app.get('/v1/projects/taxonomy', { config: DESKTOP_READ, schema: { querystring: TAXONOMY_QUERY } }, async (req) => {
    const { query: q } = parts<never, Ws & { archived: boolean }>(req)
    return taxonomyCatalogue(await desktopCtx(req, db, q.workspace_id), q.archived)
  })

  app.post('/v1/projects/taxonomy', { config: DESKTOP_WRITE, schema: { body: TAXONOMY_WRITE } }, async (req) => {
    const { body } = parts<TaxonomyInput & Ws & { idempotency_key: string }>(req)
    const ctx = await desktopCtx(req, db, body.workspace_id)
    await checkCatalogueWrite(req, db, ctx.workspaceId)
    await ensureProject(db, ctx.workspaceId)
    const { workspace_id: _w, idempotency_key: key, ...input } = body
    const out = await idempotent(db, ctx.workspaceId, key, 'taxonomy.write', input, async (tx) => ({
      status: 200, body: await configureTaxonomyIn(tx, ctx, input),
    }))
    return out.body
  })

  app.get('/v1/projects/edges', { config: DESKTOP_READ, schema: { querystring: EDGES_QUERY } }, async (req) => {
    const { query: q } = parts<never, PageQuery & { item_id?: string; deleted: boolean }>(req)
    const ctx = await desktopCtx(req, db, q.workspace_id)
    const page = await listEdges(db, ctx.workspaceId, q, q.limit, afterKey(cursors, 'edges', q.cursor))
    return pageBody(cursors, 'edges', page)
  })

  app.post('/v1/projects/edges', { config: DESKTOP_WRITE, schema: { body: EDGE_CREATE } }, async (req, reply) => {
    const { body } = parts<EdgeInput & Ws & { idempotency_key: string }>(req)
    const ctx = await desktopCtx(req, db, body.workspace_id)
    const { workspace_id: _w, idempotency_key: key, ...input } = body
    const out = await idempotent(db, ctx.workspaceId, key, 'edge.create', input, async (tx) => ({ status: 201, body: await insertEdge(tx, ctx, input) }))
    reply.code(out.status)
    return out.body
  })

  app.delete('/v1/projects/edges/:id', { config: DESKTOP_WRITE, schema: { params: ID_PARAMS, body: REVISION_MUTATION } }, async (req) => {
    const { body, params } = parts<Ws & { idempotency_key: string; revision: number }, never, { id: string }>(req)
    const ctx = await desktopCtx(req, db, body.workspace_id)
    const out = await idempotent(db, ctx.workspaceId, body.idempotency_key, `edge.delete:${params.id}`, { revision: body.revision }, async (tx) => ({
      status: 200, body: await tombstoneEdge(tx, ctx, params.id, body.revision),
    }))
    return out.body
  })
}
