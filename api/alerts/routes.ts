// Cloud alert routes under P/resources/{resource_id}/alerts. The contract names
// no scopes: reading needs monitor:read, changing resources:write (both with
// the resource in the token's grant, checked by the auth plugin).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { principalOf } from '../auth/plugin.ts'
import type { Database, Sql } from '../../core/index.ts'
import { RESOURCE_PARAMS, getResource } from '../../workspace/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { wake } from '../../core/index.ts'
import { destinationView, getSubscription, listDestinations, subscriberOf } from '../../alerting/index.ts'
import type { ResourceInfo } from '../../alerting/index.ts'
import { runOperation } from '../../alerting/index.ts'
import { NO_ALERT_STATE, incidentAlertStates, readPolicy, routesView } from '../../alerting/index.ts'
import { openResourceIncidents } from '../../monitor/index.ts'
import { ALERT_CHANGE, type AlertValues, type Operation } from '../../alerting/index.ts'
import { DEFAULT_ALERT_SETTINGS, type AlertSettings } from '../../alerting/index.ts'
import { OWNER_ONLY, type Access } from '../../desktop/index.ts'

export interface AlertRoutesOptions {
  db: Database
  settings?: AlertSettings
}

const P = '/v1/workspaces/:workspace_id/resources/:resource_id/alerts'
// On the desktop service (local settings) these routes speak its contract ({error:{message, code}}).
const config = (contract: 'cloud' | 'desktop', scope: typeof SCOPES.monitorRead | typeof SCOPES.resourcesWrite, access: Access) => ({ auth: { contract, scope }, access }) as const
/** Operations that queue a delivery: the sender is woken at once. */
const SENDS = new Set<Operation>(['test', 'request_verification'])

async function target(db: Sql, req: FastifyRequest): Promise<{ ws: string; rid: string; resource: ResourceInfo; actor: string }> {
  const p = principalOf(req)
  const params = req.params as { workspace_id: string; resource_id: string }
  const ws = params.workspace_id.toLowerCase()
  const rid = params.resource_id.toLowerCase()
  const r = await getResource(db, ws, rid)
  const resource: ResourceInfo = { id: r.id, name: r.name, external_id: r.external_id }
  return { ws, rid, resource, actor: subscriberOf(p) }
}

/** The resource's open incidents (newest first) with their alert state (acknowledgement, repeats, escalation). */
async function openIncidents(db: Sql, ws: string, rid: string) {
  const open = await openResourceIncidents(db, ws, rid, 100, 'opened_at')
  const states = await incidentAlertStates(db, ws, open.map((i) => i.id))
  return open.map((i) => {
    const a = states.get(i.id) ?? NO_ALERT_STATE
    return {
      id: i.id, check_id: i.check_id, state: 'open', opened_at: i.opened_at, reason: i.open_reason,
      acknowledged: a.acknowledged, acknowledged_at: a.acknowledged_at, acknowledged_by: a.acknowledged_by,
      repeats: a.repeats, escalation_level: a.escalation_level, next_repeat_at: a.next_repeat_at, next_escalation_at: a.next_escalation_at,
    }
  })
}

export async function alertRoutes(app: FastifyInstance, opts: AlertRoutesOptions): Promise<void> {
  const { db } = opts
  const settings = opts.settings ?? DEFAULT_ALERT_SETTINGS
  const local = settings.local === true
  const contract = local ? 'desktop' : 'cloud'

  app.get(P, { config: config(contract, SCOPES.monitorRead, [SCOPES.monitorRead]), schema: { params: RESOURCE_PARAMS } }, async (req) => {
    const { ws, rid, actor } = await target(db, req)
    const now = Date.now()
    return {
      resource_id: rid,
      policy: await readPolicy(db, rid),
      ...(await routesView(db, rid, actor)),
      destinations: (await listDestinations(db, ws, actor)).map((d) => destinationView(d, actor, now)),
      subscription: await getSubscription(db, ws, rid, actor),
      incidents: await openIncidents(db, ws, rid),
      channels: { email: settings.smtpUrl !== undefined, sms: settings.smsUrl !== undefined, webhook: true, slack: !local, discord: !local },
    }
  })

  app.post(P, { config: config(contract, SCOPES.resourcesWrite, OWNER_ONLY), schema: { params: RESOURCE_PARAMS, body: ALERT_CHANGE } }, async (req, reply) => {
    const { ws, rid, resource, actor } = await target(db, req)
    const b = req.body as { operation: Operation; values: AlertValues }
    const out = await runOperation(db, { ws, rid, resource, actor, now: Date.now(), settings }, b.operation, b.values)
    if (SENDS.has(b.operation)) wake('alerts')
    reply.code(out.status)
    return out.body
  })
}
