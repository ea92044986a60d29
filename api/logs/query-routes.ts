// Log search and live tail routes: the cloud resource routes and the desktop
// /v1/logs faces of the query stage (query/README.md has the semantics).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { tailSubjects, type Broker, type LogStore } from '../../ingest/index.ts'
import {
  CLOUD_HISTOGRAM_QUERY, CLOUD_LOGS_QUERY, CLOUD_TAIL_QUERY, HISTOGRAM_MAX_RANGE_MS, logHistogram, DESKTOP_LOGS_QUERY, DESKTOP_TAIL_QUERY, LogSearch, TailBusyError, TailHubs, TailSession,
  TailUnavailableError, parseLastEventId, ATTR_FILTERS_DOC, type LogFilter,
} from '../../query/index.ts'
import type { CursorCodec, Sql } from '../../core/index.ts'
import { ForbiddenError, RequestInvalid, detail } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { canReach, RESOURCE_PARAMS, SCOPES, type Principal } from '../../workspace/index.ts'
import type { Contract } from '../edge/contract.ts'
import { CLOUD_NAMES, DESKTOP_NAMES, filterOf, rangeOf, searchPage } from './query-shared.ts'
import { KnownResources, target } from './resources.ts'
import { searchRoutes } from './search-routes.ts'
import { savedSearchRoutes } from './saved-search-routes.ts'

export interface QueryRoutesOptions {
  db: Sql
  store: LogStore
  cursors: CursorCodec
  /** The broker the live tail listens on; without it the tail routes answer 503. */
  broker?: Broker
  /** Live tails served at once by this process; default 256. */
  maxTails?: number
  /** Days the store keeps (LOOKOUT_RETENTION_DAYS): where the search windows stop; default 7. */
  retentionDays?: number
}

const P = '/v1/workspaces/:workspace_id/resources/:resource_id'

interface CloudQuery { cursor?: string; limit: number; start?: string; end?: string; severity?: string; q?: string; trace_id?: string }
interface DesktopQuery { resource_id?: string; workspace_id?: string; since?: string; until?: string; severity?: string; text?: string; limit: number; cursor?: string }

export async function queryRoutes(app: FastifyInstance, opts: QueryRoutesOptions): Promise<void> {
  const { db, store, cursors } = opts
  const search = new LogSearch({ store, retentionDays: opts.retentionDays })
  const broker = opts.broker
  const hubs = broker === undefined ? null : new TailHubs({ connect: () => broker.connectExtra('tail'), subjects: tailSubjects })
  const maxTails = opts.maxTails ?? 256
  let tails = 0
  // Open streams would hold the server open: end them before it closes.
  app.addHook('preClose', async () => hubs?.close())

  const resources = new KnownResources(db)
  const ensureResource = (ws: string, rid: string) => resources.ensure(ws, rid)

  const cloud = { auth: { contract: 'cloud', scope: SCOPES.logsRead }, access: [SCOPES.logsRead] } as const
  // Lookout extensions: the workspace-wide search, context, facets, saved searches.
  await searchRoutes(app, { store, cursors, search, resources })
  await savedSearchRoutes(app, { db, resources })
  const desktop = { auth: { contract: 'desktop', scope: SCOPES.logsRead }, access: [SCOPES.logsRead] } as const

  app.get(`${P}/logs`, { config: cloud, schema: { params: RESOURCE_PARAMS, querystring: CLOUD_LOGS_QUERY, description: ATTR_FILTERS_DOC } }, async (req, reply) => {
    const { ws, rid } = target(req)
    await ensureResource(ws, rid)
    const q = req.query as CloudQuery
    const filter = filterOf({ workspaceId: ws, resourceIds: [rid], start: q.start, end: q.end, severity: q.severity, text: q.q, traceId: q.trace_id, query: req.query as Record<string, unknown> }, CLOUD_NAMES, 'cloud')
    return searchPage(search, cursors, reply, filter, q.limit, q.cursor, 'cloud')
  })

  // Lookout extension: log volume per time bucket and severity over a range (the console's histogram).
  app.get(`${P}/logs/histogram`, {
    config: cloud,
    schema: {
      summary: 'Lookout extension: log volume over a range, counts per time bucket and severity level (same filters and grants as the log search)',
      params: RESOURCE_PARAMS, querystring: CLOUD_HISTOGRAM_QUERY, description: ATTR_FILTERS_DOC,
    },
  }, async (req) => {
    const { ws, rid } = target(req)
    await ensureResource(ws, rid)
    const q = req.query as { start?: string; end?: string; severity?: string; q?: string; trace_id?: string; buckets: number }
    const filter = filterOf({ workspaceId: ws, resourceIds: [rid], start: q.start, end: q.end, severity: q.severity, text: q.q, traceId: q.trace_id, query: req.query as Record<string, unknown> }, CLOUD_NAMES, 'cloud')
    const { startMs, endMs } = rangeOf(q, HISTOGRAM_MAX_RANGE_MS, 'cloud')
    return logHistogram(store, filter, startMs, endMs, q.buckets)
  })

  app.get('/v1/logs', { config: desktop, schema: { querystring: DESKTOP_LOGS_QUERY, description: ATTR_FILTERS_DOC } }, async (req, reply) => {
    const q = req.query as DesktopQuery
    const p = principalOf(req)
    const resourceIds = await desktopScope(p, q.workspace_id, q.resource_id)
    const filter = filterOf({ workspaceId: p.workspaceId, resourceIds, start: q.since, end: q.until, severity: q.severity, text: q.text, query: req.query as Record<string, unknown> }, DESKTOP_NAMES, 'desktop')
    return searchPage(search, cursors, reply, filter, q.limit, q.cursor, 'desktop')
  })

  app.get(`${P}/logs/tail`, { config: cloud, schema: { params: RESOURCE_PARAMS, querystring: CLOUD_TAIL_QUERY, description: ATTR_FILTERS_DOC } }, async (req, reply) => {
    const { ws, rid } = target(req)
    await ensureResource(ws, rid)
    const q = req.query as { severity?: string; q?: string; trace_id?: string }
    const filter = filterOf({ workspaceId: ws, resourceIds: [rid], severity: q.severity, text: q.q, traceId: q.trace_id, query: req.query as Record<string, unknown> }, CLOUD_NAMES, 'cloud')
    await stream(req, reply, filter, 'cloud')
  })

  app.get('/v1/logs/tail', { config: desktop, schema: { querystring: DESKTOP_TAIL_QUERY, description: ATTR_FILTERS_DOC } }, async (req, reply) => {
    const q = req.query as { resource_id?: string; workspace_id?: string; severity?: string; text?: string }
    const p = principalOf(req)
    const resourceIds = await desktopScope(p, q.workspace_id, q.resource_id)
    const filter = filterOf({ workspaceId: p.workspaceId, resourceIds, severity: q.severity, text: q.text, query: req.query as Record<string, unknown> }, DESKTOP_NAMES, 'desktop')
    await stream(req, reply, filter, 'desktop')
  })

  /** The resources a desktop query reads: the one named, or, for an all-resources grant, all. */
  async function desktopScope(p: Principal, workspaceId: string | undefined, resourceId: string | undefined): Promise<readonly string[] | null> {
    if (workspaceId !== undefined && workspaceId !== p.workspaceId) throw new ForbiddenError('the token belongs to another workspace')
    if (resourceId === undefined) {
      if (p.resourceIds !== null) throw new ForbiddenError('a resource-scoped token must name its resource_id')
      return null
    }
    if (!canReach(p, resourceId)) throw new ForbiddenError('the resource is outside the token\'s grant')
    await ensureResource(p.workspaceId, resourceId)
    return [resourceId]
  }

  async function stream(req: FastifyRequest, reply: FastifyReply, filter: LogFilter, contract: Contract): Promise<void> {
    if (hubs === null) throw new TailUnavailableError('this process has no broker connection')
    const header = req.headers['last-event-id']
    const lastId = Array.isArray(header) ? header[header.length - 1] : header
    let resume = null
    if (lastId !== undefined && lastId !== '') {
      resume = parseLastEventId(lastId)
      if (resume === null) {
        throw new RequestInvalid([detail(['header', 'last-event-id'], 'Invalid Last-Event-ID: not an id this server sent', 'value_error', lastId)], contract === 'cloud' ? 422 : 400)
      }
    }
    // HEAD: the stream's headers and no stream (Node sends a HEAD answer's headers only when it ends, so a held stream never answered).
    if (req.method === 'HEAD') {
      reply.code(200).header('content-type', 'text/event-stream; charset=utf-8').header('cache-control', 'no-cache, no-transform').send()
      return
    }
    if (tails >= maxTails) throw new TailBusyError(maxTails)
    // One resource: its own hub; several (a desktop all-resources tail): the workspace's, filtered per session.
    const only = filter.resourceIds !== null && filter.resourceIds.length === 1 ? filter.resourceIds[0] as string : null
    const hub = await hubs.hub(filter.workspaceId, only)
    tails++
    reply.hijack()
    const res = reply.raw
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache, no-transform',
      'x-accel-buffering': 'no',
      'x-request-id': req.id,
    })
    const session = new TailSession(res, { hub, store, filter })
    try {
      await session.run(resume)
    } catch (err) {
      req.log.error({ err }, 'live tail failed')
    } finally {
      tails--
      if (!res.destroyed && !res.writableEnded) res.end()
    }
  }
}
