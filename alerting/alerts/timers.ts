// When an open, unacknowledged incident is alerted again: repeats every
// repeat_minutes (at most max_repeats times), and escalation levels at
// opened_at + after_minutes. Acknowledgement or closing clears both.
import type { Sql } from '../../core/index.ts'
import type { PolicyRow } from './routing.ts'

const MINUTE = 60_000

export function nextRepeatAt(from: number, repeats: number, p: PolicyRow): number | null {
  const c = p.configuration
  return p.enabled && c.repeat_minutes > 0 && repeats < c.max_repeats ? from + c.repeat_minutes * MINUTE : null
}

/** `level` is the number of levels already escalated to. */
export function nextEscalationAt(openedAt: number, level: number, p: PolicyRow): number | null {
  const next = p.configuration.escalation[level]
  return p.enabled && next !== undefined ? openedAt + next.after_minutes * MINUTE : null
}

const ts = (n: number | null) => (n === null ? null : new Date(n).toISOString())

/** Re-times the open, unacknowledged incidents of a resource after its policy changed. */
export async function retimeIncidents(tx: Sql, rid: string, policy: PolicyRow, now: number): Promise<void> {
  const r = await tx.query<{ incident_id: string; opened_at: Date | null; repeats: number; escalation_level: number; severity: string }>(
    `SELECT incident_id, opened_at, repeats, escalation_level, severity FROM alert_incidents
     WHERE resource_id = $1 AND closed_at IS NULL AND acknowledged_at IS NULL AND opened_at IS NOT NULL FOR UPDATE`, [rid])
  for (const i of r.rows) {
    const alerts = (policy.configuration.severities as string[]).includes(i.severity)
    const repeat = alerts ? nextRepeatAt(now, i.repeats, policy) : null
    const escalation = alerts ? nextEscalationAt(new Date(i.opened_at as Date).getTime(), i.escalation_level, policy) : null
    await tx.query('UPDATE alert_incidents SET next_repeat_at = $2, next_escalation_at = $3 WHERE incident_id = $1',
      [i.incident_id, ts(repeat), ts(escalation)])
  }
}
