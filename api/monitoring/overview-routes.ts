// Lookout extensions for on-call work: everything that needs attention across
// the resources a token may read (GET P/monitoring/overview) and one
// incident's page (GET P/resources/{rid}/monitoring/incidents/{id}). Same
// scope as the monitoring reads (monitor:read); the resource grant applies.
import type { FastifyInstance } from 'fastify'
import {
  attentionChecks, confirmingObservations, findCheck, findIncident, openIncidentsOf, recentObservations, toCheckView, type IncidentRecord,
} from '../../monitor/index.ts'
import { deliveriesOfIncident, incidentAlertStates, recentIncidentDeliveries, NO_ALERT_STATE, type IncidentAlertState } from '../../alerting/index.ts'
import type { Database, Sql } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { listResources, resourceExists, SCOPES, WORKSPACE_PARAMS } from '../../workspace/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { incidentTimeline } from './timeline.ts'
import { INCIDENT_PARAMS, INCIDENT_RESPONSE, OVERVIEW_QUERY, OVERVIEW_RESPONSE } from './overview-schemas.ts'

const READ = { auth: { contract: 'cloud', scope: SCOPES.monitorRead }, access: [SCOPES.monitorRead] } as const
/** Most deliveries one incident page lists (an incident with hourly reminders to many destinations stays bounded). */
const INCIDENT_DELIVERIES = 200

type ResourceRef = { id: string; name: string; external_id: string }

async function resourceRefs(db: Sql, ws: string, ids: Iterable<string>): Promise<Map<string, ResourceRef>> {
  const wanted = [...new Set(ids)]
  const out = new Map<string, ResourceRef>()
  if (wanted.length === 0) return out
  const page = await listResources(db, ws, wanted, wanted.length, null)
  for (const r of page.items) out.set(r.id, { id: r.id, name: r.name, external_id: r.external_id })
  return out
}

const refOf = (refs: Map<string, ResourceRef>, id: string): ResourceRef => refs.get(id) ?? { id, name: id, external_id: id }

function incidentBody(i: IncidentRecord, resource: ResourceRef, alert: IncidentAlertState, now: number) {
  const end = i.closed_at === null ? now : Date.parse(i.closed_at)
  return {
    id: i.id, kind: i.kind, resource, check_id: i.check_id, check: i.check, source_id: i.source_id, state: i.state, opened_at: i.opened_at,
    age_seconds: Math.max(0, Math.round((end - Date.parse(i.opened_at)) / 1000)), open_reason: i.open_reason,
    closed_at: i.closed_at, close_reason: i.close_reason, notified: i.notified, seq: i.seq, ...alert,
  }
}

export async function overviewRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts

  app.get('/v1/workspaces/:workspace_id/monitoring/overview', {
    config: READ,
    schema: {
      summary: 'Lookout extension: every check down, failing (not yet confirmed), unknown or in maintenance, open incidents and the alerts sent, across the resources the token may read',
      params: WORKSPACE_PARAMS, querystring: OVERVIEW_QUERY, response: OVERVIEW_RESPONSE,
    },
  }, async (req) => {
    const p = principalOf(req)
    const ws = p.workspaceId
    const grant = p.resourceIds
    const { limit } = req.query as { limit: number }
    const now = Date.now()
    const checks = await attentionChecks(db, ws, grant, now)
    const incidents = await openIncidentsOf(db, ws, grant)
    const sent = await recentIncidentDeliveries(db, ws, grant, limit)
    const alerts = await incidentAlertStates(db, ws, incidents.items.map((i) => i.id))
    const refs = await resourceRefs(db, ws, [
      ...checks.items.map((c) => c.resource_id), ...incidents.items.map((i) => i.resource_id), ...sent.items.flatMap((d) => (d.resource_id === null ? [] : [d.resource_id])),
    ])
    const incidentViews = incidents.items.map((i) => incidentBody(i, refOf(refs, i.resource_id), alerts.get(i.id) ?? NO_ALERT_STATE, now))
    const count = (a: string) => checks.items.filter((c) => c.attention === a).length
    return {
      generated_at: new Date(now).toISOString(),
      summary: {
        down: count('down'), failing: count('failing'), unknown: count('unknown'), maintenance: count('maintenance'),
        open_incidents: incidentViews.length, unacknowledged: incidentViews.filter((i) => !i.acknowledged).length,
      },
      checks: checks.items.map((c) => ({ ...c, resource: refOf(refs, c.resource_id) })),
      incidents: incidentViews,
      notifications: sent.items.map((d) => ({ ...d, resource: d.resource_id === null ? null : refOf(refs, d.resource_id) })),
      truncated: { checks: checks.more, incidents: incidents.more, notifications: sent.more },
    }
  })

  app.get('/v1/workspaces/:workspace_id/resources/:resource_id/monitoring/incidents/:incident_id', {
    config: READ,
    schema: {
      summary: 'Lookout extension: one incident with its timeline (opened, confirming observations, alerts and their delivery, escalations, acknowledgement, recovery), the check\'s recent observations and, for a log check, its matching lines and explorer link',
      params: INCIDENT_PARAMS, response: INCIDENT_RESPONSE,
    },
  }, async (req) => {
    const params = req.params as { workspace_id: string; resource_id: string; incident_id: string }
    const ws = params.workspace_id.toLowerCase()
    const rid = params.resource_id.toLowerCase()
    if (!(await resourceExists(db, ws, rid))) throw new NotFoundError('resource')
    const incident = await findIncident(db, ws, rid, params.incident_id.toLowerCase())
    if (incident === null) throw new NotFoundError('incident')
    const now = Date.now()
    const alert = (await incidentAlertStates(db, ws, [incident.id])).get(incident.id) ?? NO_ALERT_STATE
    const deliveries = await deliveriesOfIncident(db, ws, incident.id, INCIDENT_DELIVERIES)
    const found = incident.check_id === null ? null : await findCheck(db, incident.check_id)
    const checkRow = found !== null && found.workspace_id === ws && found.resource_id === rid ? found : null
    const confirming = incident.check_id === null ? [] : await confirmingObservations(db, incident.check_id, incident.opened_at)
    const observations = incident.check_id === null ? [] : await recentObservations(db, incident.check_id)
    const refs = await resourceRefs(db, ws, [rid])
    // A log check's evidence: the lines of the observation that opened the incident (kept with it: result rows are
    // pruned, and a confirmed incident's later downs are counted without lines), else of the last confirming one, else the latest.
    const evidence = checkRow?.kind === 'log' ? incident.open_log ?? (confirming[confirming.length - 1] ?? observations[0])?.details?.log ?? null : null
    return {
      incident: incidentBody(incident, refOf(refs, rid), alert, now),
      check: checkRow === null ? null : toCheckView(checkRow, now),
      timeline: incidentTimeline(incident, confirming, deliveries, alert),
      observations,
      deliveries,
      log: evidence,
    }
  })
}
