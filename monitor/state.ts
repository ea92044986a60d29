// The confirmation state machine, pure: one observation in, the next state and
// its effects (transition, incident open/close, notifications) out. The
// scheduler persists the result atomically with the revision and lease fence.
import { randomUUID } from 'node:crypto'
import { CONFIRMATIONS, type Health, type Observation } from './vocabulary.ts'

export interface CheckState {
  health: Health
  healthSince: number
  /** Direction of the current streak of agreeing observations. */
  candidate: 'up' | 'down' | null
  streak: number
  lastObservedAt: number | null
  openIncidentId: string | null
  /** Whether the open incident's opening notification has been written. */
  incidentNotified: boolean
}

export interface ObservationContext {
  at: number
  required: boolean
  inMaintenance: boolean
  /** A previous observation older than this does not count toward the streak. */
  staleAfterMs: number
  /** Heartbeat `missing: unhealthy`: a missing beat counts as a failure. */
  missingCounts: boolean
}

export interface Effects {
  transition: { from: Health; to: Health } | null
  /** The previous observation was too old: health went back to unknown and confirmation started over. */
  stale: boolean
  openIncident: string | null
  closeIncident: string | null
  notify: ('incident.opened' | 'incident.closed') | null
}

const STREAK_CAP = 1_000_000

export function initialState(at: number): CheckState {
  return { health: 'unknown', healthSince: at, candidate: null, streak: 0, lastObservedAt: null, openIncidentId: null, incidentNotified: false }
}

export function applyObservation(prev: CheckState, obs: Observation, ctx: ObservationContext): { next: CheckState; effects: Effects } {
  const fresh = prev.lastObservedAt !== null && ctx.at - prev.lastObservedAt <= ctx.staleAfterMs
  const stale = prev.lastObservedAt !== null && !fresh
  // After a gap the stored health vouches for nothing: start from unknown.
  const base: Health = stale ? 'unknown' : prev.health
  let candidate = fresh ? prev.candidate : null
  let streak = fresh ? prev.streak : 0
  let target: Health | null = null
  if (obs === 'unknown' || (obs === 'missing' && !ctx.missingCounts)) {
    candidate = null
    streak = 0
    target = 'unknown'
  } else {
    const dir = obs === 'up' ? 'up' : 'down'
    if (candidate === dir) streak = Math.min(streak + 1, STREAK_CAP)
    else {
      candidate = dir
      streak = 1
    }
    if (streak >= CONFIRMATIONS) target = dir === 'up' ? 'healthy' : 'unhealthy'
    // A first missed beat already makes the check unknown; the second confirms the failure.
    else if (obs === 'missing' && base === 'healthy') target = 'unknown'
  }
  const health = target ?? base
  const next: CheckState = {
    health,
    healthSince: health === prev.health ? prev.healthSince : ctx.at,
    candidate,
    streak,
    lastObservedAt: ctx.at,
    openIncidentId: prev.openIncidentId,
    incidentNotified: prev.incidentNotified,
  }
  const effects: Effects = {
    transition: health === prev.health ? null : { from: prev.health, to: health },
    stale: stale && health === 'unknown' && prev.health !== 'unknown',
    openIncident: null,
    closeIncident: null,
    notify: null,
  }
  if (target === 'unhealthy' && ctx.required && prev.openIncidentId === null) {
    next.openIncidentId = effects.openIncident = randomUUID()
    next.incidentNotified = !ctx.inMaintenance
    if (next.incidentNotified) effects.notify = 'incident.opened'
  } else if (target === 'healthy' && prev.openIncidentId !== null) {
    effects.closeIncident = prev.openIncidentId
    if (prev.incidentNotified) effects.notify = 'incident.closed'
    next.openIncidentId = null
    next.incidentNotified = false
  } else if (health === 'unhealthy' && prev.openIncidentId !== null && !prev.incidentNotified && !ctx.inMaintenance) {
    // Opened during maintenance and still failing after it: tell someone now, once.
    next.incidentNotified = true
    effects.notify = 'incident.opened'
  }
  return { next, effects }
}
