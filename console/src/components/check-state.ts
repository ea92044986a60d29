// What a check's row says: its state (with "failing, not yet confirmed"
// between the first failed probe and confirmation), since when, its latency
// and its target, the same on the monitoring, overview and incident pages.
import type { Check } from './check-form.tsx'

export type CheckState = 'up' | 'down' | 'unknown' | 'failing' | 'paused' | 'maintenance'

export const STATE_LABEL: Readonly<Record<CheckState, string>> = {
  up: 'Up', down: 'Down', unknown: 'Unknown', failing: 'Failing, not yet confirmed', paused: 'Paused', maintenance: 'In maintenance',
}

const FAILED = new Set(['down', 'missing'])

export function stateOf(c: Check): CheckState {
  if (c.state === 'paused' || c.state === 'maintenance') return c.state
  if (c.stale) return 'unknown'
  if (c.health === 'unhealthy') return 'down'
  // A failed probe that two observations have not confirmed yet: not "up", not "down" either.
  if (c.last_result !== null && FAILED.has(c.last_result.status)) return 'failing'
  return c.health === 'healthy' ? 'up' : 'unknown'
}

/** Since when the shown state holds: the failed probe for "failing", else the health change. */
export function stateSince(c: Check): string | null {
  return stateOf(c) === 'failing' ? c.last_result?.observed_at ?? null : c.health_since ?? null
}

/** A latency only for an observation that reached the target: "—" for down, missing or unknown. */
export function latencyOf(r: { status: string; latency_ms: number | null } | null | undefined): string {
  if (r == null || r.status !== 'up' || r.latency_ms === null) return '—'
  return r.latency_ms < 10 ? `${r.latency_ms.toFixed(1)} ms` : `${Math.round(r.latency_ms)} ms`
}

export function latencyText(c: Check): string {
  return latencyOf(c.last_result)
}

export function target(c: Check): string {
  const k = c.configuration
  if (c.kind === 'log') {
    const q = (k.query ?? {}) as Record<string, unknown>
    const what = [typeof q.q === 'string' && q.q !== '' ? `"${q.q}"` : 'every line', typeof q.severity === 'string' && q.severity !== '' ? `≥ ${q.severity}` : '']
    return `${what.filter((s) => s !== '').join(' ')} ${String(k.comparison ?? 'above')} ${String(k.threshold ?? 0)} in ${String(k.window_seconds ?? '?')} s`
  }
  if (typeof k.url === 'string') return k.url
  if (typeof k.host === 'string') return k.port !== undefined ? `${k.host}:${String(k.port)}` : k.host
  return c.kind === 'heartbeat' ? 'heartbeat' : ''
}

/**
 * Who acknowledged: this token, a staff member, another token (short id), or
 * someone who opened the acknowledge link of an alert sent to a shared destination
 * (named by its label when the page knows it).
 */
export function who(by: string | null | undefined, me: string | null, destinations?: ReadonlyMap<string, string>): string {
  if (by == null) return 'someone'
  if (by === `token:${me}`) return 'you'
  if (by.startsWith('staff:')) return `staff #${by.slice(6)}`
  if (by.startsWith('destination:')) return `the link in the alert to ${destinations?.get(by.slice(12)) || `destination ${by.slice(12, 20)}`}`
  return by.startsWith('token:') ? `token ${by.slice(6, 14)}` : by
}

export interface Uptime { h24: number | null; d7: number | null; d30: number | null }

const pct = (v: number | null) => (v === null ? '–' : `${+v.toFixed(2)} %`)

/** "24 h 99.95 % · 7 d 100 % · 30 d –" (– where no observation counted). */
export function uptimeText(u: Uptime | undefined): string {
  return u === undefined ? '' : `24 h ${pct(u.h24)} · 7 d ${pct(u.d7)} · 30 d ${pct(u.d30)}`
}

/** An https check's certificate as its last observation saw it: days left, and whether that is under its warning. */
export function certOf(c: Check): { text: string; warn: boolean } | null {
  const days = c.last_result?.details?.cert_days_left
  if (c.kind !== 'https' || typeof days !== 'number') return null
  const warnAt = typeof c.configuration.cert_expiry_warn_days === 'number' ? c.configuration.cert_expiry_warn_days : 14
  return { text: days < 0 ? 'certificate expired' : `certificate: ${days} day${days === 1 ? '' : 's'} left`, warn: days <= warnAt }
}

/** A log check's reason quotes up to five lines after "; newest:": tables show the sentence, the incident page shows the lines. */
export function shortReason(reason: string | null | undefined): string {
  return (reason ?? '').replace(/; newest: .*$/s, '')
}
