// Log search and live tail routes: the cloud resource routes and the desktop
// /v1/logs faces of the query stage (query/README.md has the semantics).
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { tailSubjects, type Broker, type LogStore } from '../../ingest/index.ts'
import {
  CLOUD_HISTOGRAM_QUERY, CLOUD_LOGS_QUERY, CLOUD_TAIL_QUERY, HISTOGRAM_MAX_RANGE_MS, logHistogram, DESKTOP_LOGS_QUERY, DESKTOP_TAIL_QUERY, LogSearch, TailBusyError, TailHubs, TailSession,
  TailUnavailableError, decodeCursor, encodeCursor, parseFilter, parseLastEventId,
  type FilterInput, type LogFilter, type ParamNames, type ParamProblem,
} from '../../query/index.ts'
import type { Sql } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { canReach, type Principal } from '../../workspace/index.ts'
import type { CursorCodec } from '../../core/index.ts'
import { ForbiddenError, NotFoundError } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import type { Contract } from '../edge/contract.ts'
import { SCOPES } from '../../workspace/index.ts'
import { RESOURCE_PARAMS } from '../../workspace/index.ts'
import { resourceExists } from '../../workspace/index.ts'

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
const CLOUD_NAMES: ParamNames = { start: 'start', end: 'end', severity: 'severity', text: 'q', traceId: 'trace_id' }
const DESKTOP_NAMES: ParamNames = { start: 'since', end: 'until', severity: 'severity', text: 'text', traceId: 'trace_id' }
const KNOWN_RESOURCES_MAX = 10_000

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

  // Resources are never deleted, so a positive answer can be remembered.
  const known = new Set<string>()
  const ensureResource = async (ws: string, rid: string): Promise<void> => {
    const key = ws + '/' + rid
    if (known.has(key)) return
    if (!(await resourceExists(db, ws, rid))) throw new NotFoundError('resource')
    if (known.size >= KNOWN_RESOURCES_MAX) known.clear()
    known.add(key)
  }

  const cloud = { auth: { contract: 'cloud', scope: SCOPES.logsRead } } as const
  const desktop = { auth: { contract: 'desktop', scope: SCOPES.logsRead } } as const

  app.get(`${P}/logs`, { config: cloud, schema: { params: RESOURCE_PARAMS, querystring: CLOUD_LOGS_QUERY } }, async (req, reply) => {
    const { ws, rid } = target(req)
    await ensureResource(ws, rid)
    const q = req.query as CloudQuery
    const filter = filterOf({ workspaceId: ws, resourceIds: [rid], start: q.start, end: q.end, severity: q.severity, text: q.q, traceId: q.trace_id }, CLOUD_NAMES, 'cloud')
    return page(reply, filter, q.limit, q.cursor, 'cloud')
  })

  // Lookout extension: log volume per time bucket and severity over a range (the console's histogram).
  app.get(`${P}/logs/histogram`, {
    config: cloud,
    schema: {
      summary: 'Lookout extension: log volume over a range, counts per time bucket and severity level (same filters and grants as the log search)',
      params: RESOURCE_PARAMS, querystring: CLOUD_HISTOGRAM_QUERY,
    },
  }, async (req) => {
    const { ws, rid } = target(req)
    await ensureResource(ws, rid)
    const q = req.query as { start?: string; end?: string; severity?: string; q?: string; trace_id?: string; buckets: number }
    const endMs = q.end === undefined ? Date.now() : Date.parse(q.end)
    const startMs = q.start === undefined ? endMs - 3_600_000 : Date.parse(q.start)
    const filter = filterOf({ workspaceId: ws, resourceIds: [rid], start: q.start, end: q.end, severity: q.severity, text: q.q, traceId: q.trace_id }, CLOUD_NAMES, 'cloud')
    if (!(endMs > startMs)) throw invalid([{ param: q.end === undefined ? 'start' : 'end', msg: 'end must be after start', type: 'value_error', input: q.end ?? q.start }], 'cloud')
    if (endMs - startMs > HISTOGRAM_MAX_RANGE_MS) {
      throw invalid([{ param: 'start', msg: `the range may span at most ${HISTOGRAM_MAX_RANGE_MS / 86_400_000} days`, type: 'value_error', input: q.start }], 'cloud')
    }
    return logHistogram(store, filter, startMs, endMs, q.buckets)
  })

  app.get('/v1/logs', { config: desktop, schema: { querystring: DESKTOP_LOGS_QUERY } }, async (req, reply) => {
    const q = req.query as DesktopQuery
    const p = principalOf(req)
    const resourceIds = await desktopScope(p, q.workspace_id, q.resource_id)
    const filter = filterOf({ workspaceId: p.workspaceId, resourceIds, start: q.since, end: q.until, severity: q.severity, text: q.text }, DESKTOP_NAMES, 'desktop')
    return page(reply, filter, q.limit, q.cursor, 'desktop')
  })

  app.get(`${P}/logs/tail`, { config: cloud, schema: { params: RESOURCE_PARAMS, querystring: CLOUD_TAIL_QUERY } }, async (req, reply) => {
    const { ws, rid } = target(req)
    await ensureResource(ws, rid)
    const q = req.query as { severity?: string; q?: string; trace_id?: string }
    const filter = filterOf({ workspaceId: ws, resourceIds: [rid], severity: q.severity, text: q.q, traceId: q.trace_id }, CLOUD_NAMES, 'cloud')
    await stream(req, reply, filter, 'cloud')
  })

  app.get('/v1/logs/tail', { config: desktop, schema: { querystring: DESKTOP_TAIL_QUERY } }, async (req, reply) => {
    const q = req.query as { resource_id?: string; workspace_id?: string; severity?: string; text?: string }
    const p = principalOf(req)
    const resourceIds = await desktopScope(p, q.workspace_id, q.resource_id)
    const filter = filterOf({ workspaceId: p.workspaceId, resourceIds, severity: q.severity, text: q.text }, DESKTOP_NAMES, 'desktop')
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

  async function page(reply: FastifyReply, filter: LogFilter, limit: number, cursor: string | undefined, contract: Contract) {
    let after = null
    let hintNs = null
    if (cursor !== undefined) {
      const c = decodeCursor(cursors, filter, cursor)
      if (c === null) throw invalid([{ param: 'cursor', msg: 'Invalid cursor: malformed, altered, or from a query with other filters', type: 'value_error', input: cursor }], contract)
      after = c.after
      hintNs = c.hintNs
    }
    const started = performance.now()
    const result = await search.page({ filter, limit, after, hintNs })
    // Read statistics for operators and the benchmark; not part of the contract.
    void reply.header('x-lookout-rows-read', String(result.stats.rowsRead))
    void reply.header('x-lookout-queries', String(result.stats.queries))
    void reply.header('server-timing', `store;dur=${result.stats.storeMs.toFixed(1)}, search;dur=${(performance.now() - started).toFixed(1)}`)
    return { events: result.events, next_cursor: result.next === null ? null : encodeCursor(cursors, filter, result.next) }
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

function target(req: FastifyRequest): { ws: string; rid: string } {
  const p = req.params as { workspace_id: string; resource_id: string }
  return { ws: p.workspace_id, rid: p.resource_id }
}

function invalid(problems: ParamProblem[], contract: Contract): RequestInvalid {
  return new RequestInvalid(problems.map((p) => detail(['query', p.param], p.msg, p.type, p.input)), contract === 'cloud' ? 422 : 400)
}

function filterOf(input: FilterInput, names: ParamNames, contract: Contract): LogFilter {
  const r = parseFilter(input, names)
  if (!r.ok) throw invalid(r.problems, contract)
  return r.filter
}
