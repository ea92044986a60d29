// The monitor_checks row as read from PostgreSQL, and its public view (the
// credential reference is never part of it).
import { staleAfterMs } from './config.ts'
import type { Health, Kind, Location, Observation } from './kinds.ts'

export interface CheckRow {
  id: string
  workspace_id: string
  resource_id: string
  name: string
  kind: Kind
  location: Location
  configuration: Record<string, unknown>
  credential: Record<string, string> | null
  source_id: string | null
  enabled: boolean
  required: boolean
  maintenance_until: Date | null
  interval_ms: number
  timeout_ms: number
  grace_ms: number
  revision: number
  change_seq: number
  run_requested_at: Date | null
  active_since: Date
  health: Health
  health_since: Date
  candidate: 'up' | 'down' | null
  streak: number
  last_status: Observation | null
  last_code: string | null
  last_reason: string | null
  last_latency_ms: number | null
  last_details: Record<string, unknown> | null
  last_observed_at: Date | null
  last_beat_at: Date | null
  open_incident_id: string | null
  incident_notified: boolean
  lease_owner: string | null
  lease_epoch: number
  created_at: Date
  updated_at: Date
}

/** Every column, with the bigint sequence read as a JS number. */
export const CHECK_COLUMNS = `id, workspace_id, resource_id, name, kind, location, configuration, credential, source_id, enabled,
  required, maintenance_until, interval_ms, timeout_ms, grace_ms, revision, change_seq::float8 AS change_seq, run_requested_at,
  active_since, health, health_since, candidate, streak, last_status, last_code, last_reason, last_latency_ms, last_details,
  last_observed_at, last_beat_at, open_incident_id, incident_notified, lease_owner, lease_epoch, created_at, updated_at`

export const ms = (d: Date | null): number | null => (d === null ? null : new Date(d).getTime())
export const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString())

export type CheckStateName = 'enabled' | 'paused' | 'maintenance'

export interface CheckView {
  id: string
  resource_id: string
  name: string
  kind: Kind
  location: Location
  configuration: Record<string, unknown>
  source_id: string | null
  has_credential: boolean
  enabled: boolean
  required: boolean
  state: CheckStateName
  maintenance_until: string | null
  revision: number
  interval_seconds: number
  timeout_seconds: number
  health: Health
  health_since: string
  /** True when the last observation is too old to vouch for the stored health (shown as unknown). */
  stale: boolean
  confirmation: { candidate: 'up' | 'down' | null; streak: number }
  last_result: { status: Observation; code: string | null; reason: string | null; latency_ms: number | null; observed_at: string | null; details: Record<string, unknown> | null } | null
  last_beat_at: string | null
  open_incident_id: string | null
  created_at: string
  updated_at: string
}

export function checkStateOf(row: Pick<CheckRow, 'enabled' | 'maintenance_until'>, now: number): CheckStateName {
  if (!row.enabled) return 'paused'
  return row.maintenance_until !== null && new Date(row.maintenance_until).getTime() > now ? 'maintenance' : 'enabled'
}

/** The health to show: a stored health is only as good as its last observation. */
export function effectiveHealth(row: CheckRow, now: number): { health: Health; stale: boolean } {
  if (!row.enabled) return { health: row.health, stale: false }
  const last = ms(row.last_observed_at) ?? ms(row.active_since) ?? now
  const stale = now - last > staleAfterMs(row.interval_ms, row.timeout_ms, row.grace_ms)
  return { health: stale ? 'unknown' : row.health, stale }
}

export function toCheckView(row: CheckRow, now: number): CheckView {
  const eff = effectiveHealth(row, now)
  return {
    id: row.id,
    resource_id: row.resource_id,
    name: row.name,
    kind: row.kind,
    location: row.location,
    configuration: row.configuration,
    source_id: row.source_id,
    has_credential: row.credential !== null,
    enabled: row.enabled,
    required: row.required,
    state: checkStateOf(row, now),
    maintenance_until: iso(row.maintenance_until),
    revision: row.revision,
    interval_seconds: row.interval_ms / 1000,
    timeout_seconds: row.timeout_ms / 1000,
    health: eff.health,
    health_since: iso(row.health_since) as string,
    stale: eff.stale,
    confirmation: { candidate: row.candidate, streak: row.streak },
    last_result: row.last_status === null ? null : {
      status: row.last_status, code: row.last_code, reason: row.last_reason, latency_ms: row.last_latency_ms,
      observed_at: iso(row.last_observed_at), details: row.last_details,
    },
    last_beat_at: iso(row.last_beat_at),
    open_incident_id: row.open_incident_id,
    created_at: iso(row.created_at) as string,
    updated_at: iso(row.updated_at) as string,
  }
}

/** Resource health from its checks: required checks decide when there are any; paused checks do not count. */
export function aggregateHealth(views: readonly CheckView[]): Health {
  const active = views.filter((v) => v.enabled)
  const required = active.filter((v) => v.required)
  const deciding = required.length > 0 ? required : active
  if (deciding.length === 0) return 'unknown'
  if (deciding.some((v) => v.health === 'unhealthy')) return 'unhealthy'
  if (deciding.some((v) => v.health === 'unknown')) return 'unknown'
  return 'healthy'
}
