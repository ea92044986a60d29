// Who receives a resource's incidents: destinations routed to the resource
// (route not paused) that are verified, not paused and not removed; a personal
// destination also needs its owner's subscription to have the channel on
// (the monitoring subscription's defaults when the owner saved nothing).
import { DEFAULT_CHANNELS } from './subscriptions.ts'
import type { Sql } from '../../core/index.ts'
import type { Channel } from './channels.ts'
import { policyOf, type PolicyConfiguration } from './schemas.ts'

export interface Target {
  id: string
  channel: Channel
  /** Who acknowledges through this destination's links: its owner, or the shared destination itself. */
  acknowledger: string
}

interface TargetRow {
  id: string
  channel: Channel
  shared: boolean
  owner: string
  channels: Record<string, string> | null
  unsubscribed: boolean | null
}

function gate(rows: readonly TargetRow[]): Target[] {
  const out: Target[] = []
  for (const r of rows) {
    if (!r.shared) {
      if (r.unsubscribed === true) continue
      const state = r.channels?.[r.channel] ?? DEFAULT_CHANNELS[r.channel] ?? 'off'
      if (state !== 'on') continue
    }
    out.push({ id: r.id, channel: r.channel, acknowledger: r.shared ? `destination:${r.id}` : r.owner })
  }
  return out
}

const USABLE = 'd.removed_at IS NULL AND d.verified_at IS NOT NULL AND NOT d.paused'
const SUBSCRIPTION_JOIN = `LEFT JOIN monitor_subscriptions s ON s.workspace_id = d.workspace_id AND s.resource_id = $1 AND s.subscriber = d.owner`

/** Routed, usable destinations of a resource. */
export async function routedTargets(tx: Sql, rid: string): Promise<Target[]> {
  const r = await tx.query<TargetRow>(
    `SELECT d.id, d.channel, d.shared, d.owner, s.channels, s.unsubscribed
     FROM alert_routes rt JOIN alert_destinations d ON d.id = rt.destination_id ${SUBSCRIPTION_JOIN}
     WHERE rt.resource_id = $1 AND NOT rt.paused AND ${USABLE} ORDER BY d.created_at, d.id`, [rid])
  return gate(r.rows)
}

/** Usable destinations among `ids` (an escalation level), judged for the resource's subscriptions. */
export async function targetsAmong(tx: Sql, ws: string, rid: string, ids: readonly string[]): Promise<Target[]> {
  if (ids.length === 0) return []
  const r = await tx.query<TargetRow>(
    `SELECT d.id, d.channel, d.shared, d.owner, s.channels, s.unsubscribed
     FROM alert_destinations d ${SUBSCRIPTION_JOIN}
     WHERE d.id = ANY($2::uuid[]) AND d.workspace_id = $3 AND ${USABLE} ORDER BY d.created_at, d.id`, [rid, [...ids], ws])
  return gate(r.rows)
}

export interface PolicyRow {
  enabled: boolean
  configuration: PolicyConfiguration
  revision: number
  updated_at: string | null
}

/** The resource's policy, or the defaults (revision 0) when none was saved. */
export async function readPolicy(db: Sql, rid: string): Promise<PolicyRow> {
  const r = await db.query<{ enabled: boolean; configuration: Partial<PolicyConfiguration>; revision: number; updated_at: Date }>(
    'SELECT enabled, configuration, revision, updated_at FROM alert_policies WHERE resource_id = $1', [rid])
  const row = r.rows[0]
  if (row === undefined) return { enabled: true, configuration: policyOf(null), revision: 0, updated_at: null }
  return { enabled: row.enabled, configuration: policyOf(row.configuration), revision: row.revision, updated_at: new Date(row.updated_at).toISOString() }
}

/** Whether an incident of this severity and event kind alerts under the policy. */
export function policyAlerts(p: PolicyRow, event: 'opened' | 'closed', severity: string): boolean {
  return p.enabled && p.configuration.events.includes(event) && (p.configuration.severities as string[]).includes(severity)
}

export interface RouteView {
  destination_id: string
  label: string
  channel: string
  paused: boolean
  revision: number
  /** A route carries alerts only to a verified, unpaused destination. */
  active: boolean
  created_at: string
  updated_at: string
}

/** A resource's alert routes as an actor sees them: shared destinations and its own; how many others there are. */
export async function routesView(db: Sql, rid: string, actor: string): Promise<{ routes: RouteView[]; other_routes: number }> {
  const r = await db.query<{ destination_id: string; label: string; channel: string; shared: boolean; owner: string; verified: boolean; dpaused: boolean; paused: boolean; revision: number; created_at: Date; updated_at: Date }>(
    `SELECT rt.destination_id, d.label, d.channel, d.shared, d.owner, d.verified_at IS NOT NULL AS verified, d.paused AS dpaused,
       rt.paused, rt.revision, rt.created_at, rt.updated_at
     FROM alert_routes rt JOIN alert_destinations d ON d.id = rt.destination_id
     WHERE rt.resource_id = $1 AND d.removed_at IS NULL ORDER BY rt.created_at, rt.destination_id`, [rid])
  const visible = r.rows.filter((x) => x.shared || x.owner === actor)
  return {
    routes: visible.map((x) => ({
      destination_id: x.destination_id, label: x.label, channel: x.channel, paused: x.paused, revision: x.revision,
      active: !x.paused && x.verified && !x.dpaused,
      created_at: new Date(x.created_at).toISOString(), updated_at: new Date(x.updated_at).toISOString(),
    })),
    other_routes: r.rows.length - visible.length,
  }
}
