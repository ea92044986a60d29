// Lookout extension: saved searches (query/saved-searches.ts), shared in the
// workspace. Read with logs:read; a search of a resource outside the token's
// grant is neither listed nor opened, and cannot be saved.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import {
  SAVED_SEARCH_CREATE, SAVED_SEARCH_PARAMS, SAVED_SEARCH_PATCH, createSavedSearch, deleteSavedSearch, getSavedSearch, listSavedSearches,
  parseTextQuery, TextSyntaxError, updateSavedSearch, type SavedQuery, type SavedSearch,
} from '../../query/index.ts'
import type { Sql } from '../../core/index.ts'
import { ForbiddenError, NotFoundError, RequestInvalid, detail } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { canReach, SCOPES, WORKSPACE_PARAMS } from '../../workspace/index.ts'
import type { KnownResources } from './resources.ts'

export interface SavedSearchRoutesOptions {
  db: Sql
  resources: KnownResources
}

const BASE = '/v1/workspaces/:workspace_id/saved-searches'

export async function savedSearchRoutes(app: FastifyInstance, opts: SavedSearchRoutesOptions): Promise<void> {
  const { db, resources } = opts
  // Saved searches are shared by every log reader of the workspace, as on the cloud.
  const cloud = { auth: { contract: 'cloud', scope: SCOPES.logsRead }, access: [SCOPES.logsRead] } as const
  const idOf = (req: FastifyRequest) => (req.params as { id: string }).id.toLowerCase()
  const wsOf = (req: FastifyRequest) => (req.params as { workspace_id: string }).workspace_id

  /** A saved search the caller may see: workspace-wide ones, and those of a resource in its grant (404 for others). */
  const visible = (req: FastifyRequest, s: SavedSearch): boolean => s.resource_id === null || canReach(principalOf(req), s.resource_id)

  async function checkTarget(req: FastifyRequest, ws: string, rid: string | null | undefined): Promise<void> {
    if (rid === null || rid === undefined) return
    if (!canReach(principalOf(req), rid)) throw new ForbiddenError('the resource is outside the token\'s grant')
    await resources.ensure(ws, rid)
  }

  app.get(BASE, {
    config: cloud,
    schema: { summary: 'Lookout extension: the saved searches of the workspace the token may open, by name', params: WORKSPACE_PARAMS },
  }, async (req) => ({ items: (await listSavedSearches(db, wsOf(req))).filter((s) => visible(req, s)) }))

  app.post(BASE, {
    config: cloud,
    schema: { summary: 'Lookout extension: save a search (resource_id null: every resource the reader may see)', params: WORKSPACE_PARAMS, body: SAVED_SEARCH_CREATE },
  }, async (req, reply) => {
    const ws = wsOf(req)
    const b = req.body as { name: string; resource_id: string | null; query: SavedQuery }
    checkQuery(b.query)
    await checkTarget(req, ws, b.resource_id)
    const s = await createSavedSearch(db, ws, { name: b.name, resource_id: b.resource_id?.toLowerCase() ?? null, query: b.query }, principalOf(req).staffId)
    return reply.code(201).send(s)
  })

  app.get(`${BASE}/:id`, {
    config: cloud,
    schema: { summary: 'Lookout extension: one saved search', params: SAVED_SEARCH_PARAMS },
  }, async (req) => {
    const s = await getSavedSearch(db, wsOf(req), idOf(req))
    if (!visible(req, s)) throw new NotFoundError('saved search')
    return s
  })

  app.patch(`${BASE}/:id`, {
    config: cloud,
    schema: { summary: 'Lookout extension: change a saved search at the revision read (409 when it changed since)', params: SAVED_SEARCH_PARAMS, body: SAVED_SEARCH_PATCH },
  }, async (req) => {
    const ws = wsOf(req)
    const b = req.body as { revision: number; name?: string; resource_id?: string | null; query?: SavedQuery }
    if (b.query !== undefined) checkQuery(b.query)
    const s = await getSavedSearch(db, ws, idOf(req))
    if (!visible(req, s)) throw new NotFoundError('saved search')
    await checkTarget(req, ws, b.resource_id)
    return updateSavedSearch(db, ws, s.id, b.revision, { name: b.name, resource_id: b.resource_id?.toLowerCase() ?? b.resource_id, query: b.query })
  })

  app.delete(`${BASE}/:id`, {
    config: cloud,
    schema: { summary: 'Lookout extension: delete a saved search', params: SAVED_SEARCH_PARAMS },
  }, async (req, reply) => {
    const ws = wsOf(req)
    const s = await getSavedSearch(db, ws, idOf(req))
    if (!visible(req, s)) throw new NotFoundError('saved search')
    await deleteSavedSearch(db, ws, s.id)
    return reply.code(204).send()
  })
}

/** A saved q must be one the search accepts, and an absolute range must run forward: refused now, not when it is opened. */
function checkQuery(q: SavedQuery): void {
  if (q.q !== undefined) {
    try {
      parseTextQuery(q.q)
    } catch (err) {
      if (!(err instanceof TextSyntaxError)) throw err
      throw new RequestInvalid([detail(['body', 'query', 'q'], err.message, 'value_error', q.q)])
    }
  }
  const r = q.range
  if (r === undefined) return
  if (r.last !== undefined && (r.start !== undefined || r.end !== undefined)) {
    throw new RequestInvalid([detail(['body', 'query', 'range'], 'give either last or start and end, not both', 'value_error', r)])
  }
  if (r.start !== undefined && r.end !== undefined && !(Date.parse(r.end) > Date.parse(r.start))) {
    throw new RequestInvalid([detail(['body', 'query', 'range', 'end'], 'end must be after start', 'value_error', r.end)])
  }
}
