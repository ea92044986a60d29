// Desktop monitoring routes. Monitoring configuration (checks and actions) is
// an owner-only socket operation; reads need monitor:read, heartbeats
// monitor:heartbeat with an exact grant for the resource.
import type { FastifyInstance } from 'fastify'
import { checkAction, createCheck, editCheck, recordBeat, toCheckView, CheckNotFoundError, type CheckAction } from '../../monitor/index.ts'
import type { Database } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { canReach } from '../../workspace/index.ts'
import { BadRequestError, ForbiddenError, NotFoundError } from '../../core/index.ts'
import { resourceExists } from '../../workspace/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { desktopFields, type DesktopCheckBody } from './input.ts'
import { DESKTOP_ACTION, DESKTOP_CHECK, DESKTOP_MONITORING_QUERY, HEARTBEAT } from '../../monitor/index.ts'
import { desktopOverview } from './views.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

const OWNER = { auth: { contract: 'desktop', scope: null, ownerOnly: true }, access: OWNER_ONLY } as const

export async function desktopMonitoringRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts

  app.get('/v1/monitoring', {
    config: { auth: { contract: 'desktop', scope: SCOPES.monitorRead }, access: [SCOPES.monitorRead] }, schema: { querystring: DESKTOP_MONITORING_QUERY },
  }, async (req) => {
    const p = principalOf(req)
    const rid = (req.query as { resource_id: string }).resource_id.toLowerCase()
    if (!canReach(p, rid)) throw new ForbiddenError('the resource is outside the token\'s grant')
    if (!(await resourceExists(db, p.workspaceId, rid))) throw new NotFoundError('resource')
    return desktopOverview(db, p.workspaceId, rid, Date.now())
  })

  // GET /v1/portal/monitoring (the portal's view) is served by api/portal/routes.ts on the desktop service.

  // Create, or (with id and revision) replace a check's name, required flag and config.
  app.post('/v1/monitoring/checks', { config: OWNER, schema: { body: DESKTOP_CHECK } }, async (req, reply) => {
    const ws = principalOf(req).workspaceId
    const b = req.body as DesktopCheckBody
    const rid = b.resource_id.toLowerCase()
    if (!(await resourceExists(db, ws, rid))) throw new NotFoundError('resource')
    const f = desktopFields(b)
    const now = Date.now()
    if (b.id === undefined) {
      const row = await createCheck(db, {
        workspaceId: ws, resourceId: rid, name: b.name, kind: f.kind, location: f.location, config: f.config, credential: f.credential,
        sourceId: null, enabled: true, required: b.required, maintenanceUntil: null, runNow: true,
      }, now)
      reply.code(201)
      return toCheckView(row, now)
    }
    const row = await editCheck(db, ws, rid, b.id.toLowerCase(), {
      name: b.name, required: b.required, kind: f.kind, location: f.location, config: f.config, credential: f.credential,
    }, b.revision as number, now)
    return toCheckView(row, now)
  })

  app.post('/v1/monitoring/actions', { config: OWNER, schema: { body: DESKTOP_ACTION } }, async (req) => {
    const ws = principalOf(req).workspaceId
    const b = req.body as { id: string; revision: number; action: CheckAction; minutes?: number }
    if (b.action === 'maintenance' && b.minutes === undefined) throw new BadRequestError('maintenance needs minutes (1..43200)')
    if (b.action !== 'maintenance' && b.minutes !== undefined) throw new BadRequestError('minutes only goes with action maintenance')
    const now = Date.now()
    const row = await checkAction(db, ws, b.id.toLowerCase(), b.revision, b.action, b.minutes ?? null, now)
    return toCheckView(row, now)
  })

  app.post('/v1/heartbeat', {
    config: { auth: { contract: 'desktop', scope: SCOPES.monitorHeartbeat, kinds: ['access', 'source'] }, access: [SCOPES.monitorHeartbeat] }, schema: { body: HEARTBEAT },
  }, async (req) => {
    const p = principalOf(req)
    const b = req.body as { resource_id: string; check_id: string }
    const rid = b.resource_id.toLowerCase()
    // An exact grant: a token for every resource is not one.
    if (!req.isOwner && (p.resourceIds === null || !canReach(p, rid))) {
      throw new ForbiddenError('monitor:heartbeat needs an exact grant for the resource')
    }
    const beat = await recordBeat(db, p.workspaceId, rid, b.check_id.toLowerCase(), Date.now())
    if (beat === null) throw new CheckNotFoundError('heartbeat check')
    return beat
  })
}
