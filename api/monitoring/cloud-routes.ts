// Cloud monitoring routes under P/resources/{resource_id}/monitoring. The
// contract names no scopes for them: reads need monitor:read, changes
// resources:write (both with a grant for the resource, checked by the auth plugin).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { createCheck, editCheck, findCheck, insertSource, listIncidents, listSources, openResourceIncidents, listTransitions, revokeSource, sourceExists, toCheckView, IdTakenError, type SourceKind } from '../../monitor/index.ts'
import type { Database } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { createToken, revokeToken, type Principal } from '../../workspace/index.ts'
import type { CursorCodec } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { RESOURCE_PARAMS } from '../../workspace/index.ts'
import { resourceExists } from '../../workspace/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { cloudNewCheck, cloudPatch, type MonitorChange } from './input.ts'
import { MONITOR_CHANGE, MONITOR_SOURCE, MONITOR_SUBSCRIPTION, MONITORING_QUERY } from '../../monitor/index.ts'
import { statusOf } from './views.ts'
import { alertDeliveriesView, changeSubscription, getSubscription } from '../../alerting/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

export interface MonitoringRoutesOptions {
  db: Database
  cursors: CursorCodec
}

const P = '/v1/workspaces/:workspace_id/resources/:resource_id/monitoring'
const READ = { auth: { contract: 'cloud', scope: SCOPES.monitorRead }, access: [SCOPES.monitorRead] } as const
// Changing monitoring or alert routing: a desktop's owner only.
const WRITE = { auth: { contract: 'cloud', scope: SCOPES.resourcesWrite }, access: OWNER_ONLY } as const

async function target(db: Database, req: FastifyRequest): Promise<{ ws: string; rid: string; p: Principal }> {
  const p = principalOf(req)
  const params = req.params as { workspace_id: string; resource_id: string }
  const ws = params.workspace_id.toLowerCase()
  const rid = params.resource_id.toLowerCase()
  if (!(await resourceExists(db, ws, rid))) throw new NotFoundError('resource')
  return { ws, rid, p }
}

/** Who a subscription belongs to: the staff member behind the token, else the token itself. */
function subscriberOf(p: Principal): string {
  return p.staffId !== null ? `staff:${p.staffId}` : `token:${p.tokenId}`
}

function pageAfter(cursors: CursorCodec, kind: string, cursor: string | undefined): number | null {
  if (cursor === undefined) return null
  const v = cursors.decode(kind, cursor)
  if (v === null || v.length !== 1 || typeof v[0] !== 'number') throw new RequestInvalid([detail(['query', 'cursor'], 'Invalid cursor', 'value_error')])
  return v[0]
}

export async function cloudMonitoringRoutes(app: FastifyInstance, opts: MonitoringRoutesOptions): Promise<void> {
  const { db, cursors } = opts

  app.get(P, { config: READ, schema: { params: RESOURCE_PARAMS, querystring: MONITORING_QUERY } }, async (req) => {
    const { ws, rid, p } = await target(db, req)
    const q = req.query as { view: 'status' | 'history' | 'incidents' | 'deliveries'; cursor?: string; limit: number }
    const now = Date.now()
    switch (q.view) {
      case 'status': {
        const status = await statusOf(db, ws, rid, now)
        return {
          view: 'status', ...status,
          open_incidents: await openResourceIncidents(db, ws, rid, 500),
          sources: await listSources(db, ws, rid),
          subscription: await getSubscription(db, ws, rid, subscriberOf(p)),
        }
      }
      case 'history': {
        const page = await listTransitions(db, ws, rid, q.limit, pageAfter(cursors, 'monitor-history', q.cursor))
        const last = page.items[page.items.length - 1]
        return { view: 'history', resource_id: rid, items: page.items, next_cursor: page.more && last !== undefined ? cursors.encode('monitor-history', [last.id]) : null }
      }
      case 'incidents': {
        const page = await listIncidents(db, ws, rid, q.limit, pageAfter(cursors, 'monitor-incidents', q.cursor))
        const last = page.items[page.items.length - 1]
        return { view: 'incidents', resource_id: rid, items: page.items, next_cursor: page.more && last !== undefined ? cursors.encode('monitor-incidents', [last.seq]) : null }
      }
      case 'deliveries':
        // Alert deliveries with their attempts (alerting/alerts/deliveries.ts).
        return alertDeliveriesView(db, cursors, ws, rid, q.limit, q.cursor)
    }
  })

  // Create (no id, or an id not used yet: a client-chosen id makes a retried create safe) or edit (a known id).
  app.post(P, { config: WRITE, schema: { params: RESOURCE_PARAMS, body: MONITOR_CHANGE } }, async (req) => {
    const { ws, rid } = await target(db, req)
    const b = req.body as MonitorChange
    if (b.id != null) b.id = b.id.toLowerCase()
    if (b.source_id != null) b.source_id = b.source_id.toLowerCase()
    const now = Date.now()
    const existing = b.id == null ? null : await findCheck(db, b.id)
    if (existing !== null) {
      if (existing.workspace_id !== ws || existing.resource_id !== rid) throw new IdTakenError(existing.id)
      const row = await editCheck(db, ws, rid, existing.id, await cloudPatch(db, existing, b), null, now)
      return toCheckView(row, now)
    }
    const row = await createCheck(db, await cloudNewCheck(db, ws, rid, b), now).catch(async (err: unknown) => {
      // Two creates racing on one client-chosen id: the loser sees a taken id.
      if (b.id != null && (await findCheck(db, b.id)) !== null) throw new IdTakenError(b.id)
      throw err
    })
    return toCheckView(row, now)
  })

  app.post(`${P}/subscription`, { config: WRITE, schema: { params: RESOURCE_PARAMS, body: MONITOR_SUBSCRIPTION } }, async (req) => {
    const { ws, rid, p } = await target(db, req)
    const b = req.body as { action: 'defaults' | 'save' | 'unsubscribe'; channels?: Record<string, 'on' | 'off'> }
    return changeSubscription(db, ws, rid, subscriberOf(p), b.action, b.channels ?? {})
  })

  app.post(`${P}/sources`, { config: WRITE, schema: { params: RESOURCE_PARAMS, body: MONITOR_SOURCE } }, async (req) => {
    const { ws, rid } = await target(db, req)
    const b = req.body as { action: 'enroll' | 'revoke'; name: string; kind: SourceKind; source_id?: string | null }
    const sourceId = b.source_id?.toLowerCase() ?? null
    if (b.action === 'revoke') {
      if (sourceId === null) throw new RequestInvalid([detail(['body', 'source_id'], 'Field required to revoke a source', 'missing')])
      const source = await revokeSource(db, ws, rid, sourceId, Date.now())
      await revokeToken(db, source.token_id, ws)
      return { source }
    }
    const id = sourceId ?? crypto.randomUUID()
    if (await sourceExists(db, id)) throw new IdTakenError(id)
    // The token is shown once, here (only its hash is kept). Heartbeat: a heartbeat sender for exactly
    // this resource. Collector: a credential only the /v1/collector routes accept (collector-routes.ts).
    const { id: tokenId, token } = await createToken(db, {
      workspaceId: ws, scopes: [SCOPES.monitorHeartbeat], resources: [rid], kind: b.kind === 'collector' ? 'collector' : 'source',
      name: `${b.kind === 'collector' ? 'collector' : 'monitor source'} ${b.name}`.trim(),
    })
    try {
      const source = await insertSource(db, { id, workspaceId: ws, resourceId: rid, name: b.name, kind: b.kind, tokenId })
      return { source, token }
    } catch (err) {
      await revokeToken(db, tokenId, ws)
      throw err
    }
  })
}
