// Lookout extensions of the log search (query/README.md): one search across
// the resources a token may read, the lines around a hit, and the top values
// of a field. Same filters, scope and grants as the per-resource search.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { LogStore } from '../../ingest/index.ts'
import {
  CLOUD_CONTEXT_QUERY, CLOUD_FACETS_QUERY, CLOUD_WORKSPACE_FACETS_QUERY, CLOUD_WORKSPACE_LOGS_QUERY, CONTEXT_PARAMS, HISTOGRAM_MAX_RANGE_MS, logContext, logFacets,
  ATTR_FILTERS_DOC, type LogSearch,
} from '../../query/index.ts'
import type { CursorCodec } from '../../core/index.ts'
import { ForbiddenError, NotFoundError, parseIsoTime, type ParsedTime } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { canReach, RESOURCE_PARAMS, SCOPES, WORKSPACE_PARAMS } from '../../workspace/index.ts'
import { CLOUD_NAMES, filterOf, rangeOf, searchPage } from './query-shared.ts'
import { target, type KnownResources } from './resources.ts'

export interface SearchRoutesOptions {
  store: LogStore
  cursors: CursorCodec
  search: LogSearch
  resources: KnownResources
}

const W = '/v1/workspaces/:workspace_id'
const P = `${W}/resources/:resource_id`

interface Filters { start?: string; end?: string; severity?: string; q?: string; trace_id?: string }

export async function searchRoutes(app: FastifyInstance, opts: SearchRoutesOptions): Promise<void> {
  const { store, cursors, search, resources } = opts
  const cloud = { auth: { contract: 'cloud', scope: SCOPES.logsRead }, access: [SCOPES.logsRead] } as const

  /** The resources a workspace-wide request reads: those named (each in the grant), else every one the token may read. */
  async function scopeOf(req: FastifyRequest, ws: string, named: string[] | undefined): Promise<readonly string[] | null> {
    const p = principalOf(req)
    if (named === undefined || named.length === 0) return p.resourceIds
    const ids = [...new Set(named.map((r) => r.toLowerCase()))]
    for (const rid of ids) {
      if (!canReach(p, rid)) throw new ForbiddenError(`the resource ${rid} is outside the token's grant`)
      await resources.ensure(ws, rid)
    }
    return ids
  }

  const filterFor = (req: FastifyRequest, ws: string, resourceIds: readonly string[] | null, q: Filters) =>
    filterOf({ workspaceId: ws, resourceIds, start: q.start, end: q.end, severity: q.severity, text: q.q, traceId: q.trace_id, query: req.query as Record<string, unknown> }, CLOUD_NAMES, 'cloud')

  app.get(`${W}/logs`, {
    config: cloud,
    schema: {
      summary: 'Lookout extension: search the logs of every resource the token may read (or the resource_id given, repeatable), newest first, keyset paging; each event carries its resource_id',
      params: WORKSPACE_PARAMS, querystring: CLOUD_WORKSPACE_LOGS_QUERY, description: ATTR_FILTERS_DOC,
    },
  }, async (req, reply) => {
    const ws = (req.params as { workspace_id: string }).workspace_id
    const q = req.query as Filters & { cursor?: string; limit: number; resource_id?: string[] }
    const filter = filterFor(req, ws, await scopeOf(req, ws, q.resource_id), q)
    return searchPage(search, cursors, reply, filter, q.limit, q.cursor, 'cloud')
  })

  app.get(`${P}/logs/:event_id/context`, {
    config: cloud,
    schema: {
      summary: 'Lookout extension: the lines before and after one event of the resource, in time order ({before, event, after, more_before, more_after}); page outward from the first or last line',
      params: CONTEXT_PARAMS, querystring: CLOUD_CONTEXT_QUERY,
    },
  }, async (req) => {
    const { ws, rid } = target(req)
    await resources.ensure(ws, rid)
    const eventId = (req.params as { event_id: string }).event_id
    const q = req.query as { before: number; after: number; same_service: boolean; at?: string }
    // The schema's date-time format is parseIsoTime itself (core/ajv.ts): an `at` that got here parses.
    const atNs = q.at === undefined ? null : (parseIsoTime(q.at) as ParsedTime).ns
    const r = await logContext(store, search, { workspaceId: ws, resourceId: rid, eventId, before: q.before, after: q.after, sameService: q.same_service, atNs })
    if (r === null) throw new NotFoundError('log event')
    return r
  })

  app.get(`${P}/logs/facets`, {
    config: cloud,
    schema: {
      summary: 'Lookout extension: the top values of a field (severity, attr.<key>, resource.<key>) over the filtered lines ({field, values: [{value, count}], other, total}); default range the last hour',
      params: RESOURCE_PARAMS, querystring: CLOUD_FACETS_QUERY, description: ATTR_FILTERS_DOC,
    },
  }, async (req) => {
    const { ws, rid } = target(req)
    await resources.ensure(ws, rid)
    return facets(req, ws, [rid])
  })

  app.get(`${W}/logs/facets`, {
    config: cloud,
    schema: {
      summary: 'Lookout extension: the top values of a field across every resource the token may read (or the resource_id given, repeatable)',
      params: WORKSPACE_PARAMS, querystring: CLOUD_WORKSPACE_FACETS_QUERY, description: ATTR_FILTERS_DOC,
    },
  }, async (req) => {
    const ws = (req.params as { workspace_id: string }).workspace_id
    return facets(req, ws, await scopeOf(req, ws, (req.query as { resource_id?: string[] }).resource_id))
  })

  async function facets(req: FastifyRequest, ws: string, resourceIds: readonly string[] | null) {
    const q = req.query as Filters & { field: string; limit: number }
    const { startMs, endMs } = rangeOf(q, HISTOGRAM_MAX_RANGE_MS, 'cloud')
    const filter = filterFor(req, ws, resourceIds, { ...q, start: new Date(startMs).toISOString(), end: new Date(endMs).toISOString() })
    return logFacets(store, filter, q.field, q.limit)
  }
}
