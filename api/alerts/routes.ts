// Cloud alert routes under P/resources/{resource_id}/alerts. The contract names
// no scopes: reading needs monitor:read, changing resources:write (both with
// the resource in the token's grant, checked by the auth plugin).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { principalOf } from '../auth/plugin.ts'
import type { Database, Sql } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { RESOURCE_PARAMS } from '../../workspace/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { wake } from '../../core/index.ts'
import { destinationView, getSubscription, listDestinations, subscriberOf } from '../../alerting/index.ts'
import type { ResourceInfo } from '../../alerting/index.ts'
import { runOperation } from '../../alerting/index.ts'
import { readPolicy } from '../../alerting/index.ts'
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
  const r = await db.query<ResourceInfo>('SELECT id, name, external_id FROM resources WHERE workspace_id = $1 AND id = $2', [ws, rid])
  const resource = r.rows[0]
  if (resource === undefined) throw new NotFoundError('resource')
  return { ws, rid, resource, actor: subscriberOf(p) }
}

async function routesOf(db: Sql, rid: string, actor: string) {
  const r = await db.query<{ destination_id: string; label: string; channel: string; shared: boolean; owner: string; verified: boolean; dpaused: boolean; paused: boolean; revision: number; created_at: Date; updated_at: Date }>(
    `SELECT rt.destination_id, d.label, d.channel, d.shared, d.owner, d.verified_at IS NOT NULL AS verified, d.paused AS dpaused,
       rt.paused, rt.revision, rt.created_at, rt.updated_at
     FROM alert_routes rt JOIN alert_destinations d ON d.id = rt.destination_id
     WHERE rt.resource_id = $1 AND d.removed_at IS NULL ORDER BY rt.created_at, rt.destination_id`, [rid])
  const visible = r.rows.filter((x) => x.shared || x.owner === actor)
  return {
    routes: visible.map((x) => ({
      destination_id: x.destination_id, label: x.label, channel: x.channel, paused: x.paused, revision: x.revision,
      // A route carries alerts only to a verified, unpaused destination.
      active: !x.paused && x.verified && !x.dpaused,
      created_at: new Date(x.created_at).toISOString(), updated_at: new Date(x.updated_at).toISOString(),
    })),
    other_routes: r.rows.length - visible.length,
  }
}

async function openIncidents(db: Sql, ws: string, rid: string) {
  const r = await db.query<{ id: string; check_id: string; opened_at: Date; open_reason: string; acknowledged_at: Date | null; acknowledged_by: string | null; repeats: number | null; escalation_level: number | null; next_repeat_at: Date | null; next_escalation_at: Date | null }>(
    `SELECT mi.id, mi.check_id, mi.opened_at, mi.open_reason, ai.acknowledged_at, ai.acknowledged_by, ai.repeats, ai.escalation_level,
       ai.next_repeat_at, ai.next_escalation_at
     FROM monitor_incidents mi LEFT JOIN alert_incidents ai ON ai.incident_id = mi.id
     WHERE mi.workspace_id = $1 AND mi.resource_id = $2 AND mi.closed_at IS NULL ORDER BY mi.opened_at DESC LIMIT 100`, [ws, rid])
  const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString())
  return r.rows.map((i) => ({
    id: i.id, check_id: i.check_id, state: 'open', opened_at: iso(i.opened_at), reason: i.open_reason,
    acknowledged: i.acknowledged_at !== null, acknowledged_at: iso(i.acknowledged_at), acknowledged_by: i.acknowledged_by,
    repeats: i.repeats ?? 0, escalation_level: i.escalation_level ?? 0, next_repeat_at: iso(i.next_repeat_at), next_escalation_at: iso(i.next_escalation_at),
  }))
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
      ...(await routesOf(db, rid, actor)),
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
