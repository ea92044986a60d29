// What an alert says, built once when the delivery is queued and stored with
// it, so every attempt sends the same thing: a subject and a text for mail,
// chat and SMS, and a JSON event (schema_version 1) for webhooks.
import type { LogEvidence, OutboxPayload } from '../../monitor/index.ts'

export const ALERT_EVENT_TYPES = {
  opened: 'incident.opened',
  closed: 'incident.closed',
  reminder: 'incident.reminder',
  escalated: 'incident.escalated',
  test: 'alert.test',
  verification: 'destination.verification',
} as const
export type AlertEventType = (typeof ALERT_EVENT_TYPES)[keyof typeof ALERT_EVENT_TYPES]

export const DELIVERY_REASONS = ['initial', 'repeat', 'escalation', 'test', 'verification'] as const
export type DeliveryReason = (typeof DELIVERY_REASONS)[number]

export interface ResourceInfo {
  id: string
  name: string
  external_id: string
}

export interface AlertMessage {
  subject: string
  text: string
  /** The webhook body. */
  event: Record<string, unknown>
  /** Verification code; removed from the stored message once the delivery is finished. */
  code?: string
}

/** A required check's incident is critical; an optional check's, or a silent collector's, a warning. */
export const severityOf = (p: OutboxPayload): 'critical' | 'warning' => (p.check?.required === true ? 'critical' : 'warning')

/** What the incident is about, for people: `check "api port" (tcp, critical)` or `collector "dc-1"`. */
export function subjectOf(p: OutboxPayload): { short: string; long: string } {
  if (p.check === null) {
    const name = JSON.stringify(p.source?.name ?? p.source?.id ?? 'unknown')
    return { short: `collector ${name}`, long: `collector ${name} stopped reporting (its checks are unknown)` }
  }
  return { short: p.check.name, long: `check "${p.check.name}" (${p.check.kind}, ${severityOf(p)})` }
}

/** Links a message carries: the server's public base URL (console links). */
export interface MessageLinks {
  publicUrl: string
  /** The recipient's acknowledge link (absent on a recovery notice). */
  ackUrl?: string
}

/** A log check's evidence for people: the count against the threshold, the newest lines, the console link. */
function logLines(log: LogEvidence, closed: boolean, consoleUrl: string): string[] {
  const out = closed
    ? [`The count has been back on the right side of the threshold (${log.comparison} ${log.threshold}) for two observations in a row: ${log.count} matching line${log.count === 1 ? '' : 's'} in the last ${log.window_seconds} s (${log.window_start} to ${log.window_end}).`]
    : [`${log.count} matching line${log.count === 1 ? '' : 's'} in ${log.window_seconds} s (${log.window_start} to ${log.window_end}); alert when ${log.comparison} ${log.threshold}.`]
  if (!closed && log.samples.length > 0) {
    out.push('Newest matching lines:')
    for (const s of log.samples) out.push(`  ${s.time} ${s.severity || '-'} ${s.message}`)
  }
  out.push(`The query over this window in the console: ${consoleUrl}`)
  return out
}

export function incidentMessage(
  type: AlertEventType, eventId: string, occurredAt: string, resource: ResourceInfo, p: OutboxPayload, extra: { level?: number; repeat?: number } = {},
  links: MessageLinks = { publicUrl: 'http://localhost:8080' },
): AlertMessage {
  const sev = severityOf(p)
  const what = type === ALERT_EVENT_TYPES.closed ? 'RECOVERED' : type === ALERT_EVENT_TYPES.reminder ? 'STILL DOWN'
    : type === ALERT_EVENT_TYPES.escalated ? `ESCALATED (level ${extra.level ?? 1})` : 'DOWN'
  const about = subjectOf(p)
  const subject = `[Lookout] ${what}: ${resource.name} (${about.short})`
  const lines = [
    `${what}: ${resource.name} — ${about.long}`,
    type === ALERT_EVENT_TYPES.closed ? `Recovered at ${p.closed_at ?? occurredAt}; the incident opened at ${p.opened_at}.` : `Down since ${p.opened_at}: ${p.reason}`,
    `Incident ${p.incident_id} on resource ${resource.external_id}.`,
  ]
  const consoleUrl = p.log === undefined ? null : `${links.publicUrl}/${p.log.explorer}`
  if (p.log !== undefined && consoleUrl !== null) lines.push(...logLines(p.log, type === ALERT_EVENT_TYPES.closed, consoleUrl))
  if (type !== ALERT_EVENT_TYPES.closed) {
    // Second line: chat messages are cut at their length limit, the link must survive it.
    if (links.ackUrl === undefined) lines.push('Acknowledge the incident to stop reminders and escalation.')
    else lines.splice(1, 0, `Acknowledge (stops reminders and escalation): ${links.ackUrl}`)
  }
  return {
    subject,
    text: lines.join('\n'),
    event: {
      schema_version: 1,
      id: eventId,
      type,
      occurred_at: occurredAt,
      workspace_id: p.workspace_id,
      resource,
      incident: {
        id: p.incident_id, severity: sev, state: type === ALERT_EVENT_TYPES.closed ? 'closed' : 'open', reason: p.reason, code: p.code,
        opened_at: p.opened_at, closed_at: p.closed_at,
        kind: p.check === null ? 'collector_offline' : 'check',
        check: p.check === null ? null : { id: p.check.id, name: p.check.name, kind: p.check.kind, required: p.check.required },
        source: p.source ?? null,
        ...(p.log === undefined ? {} : { log: { ...p.log, console_url: consoleUrl } }),
      },
      ...(links.ackUrl !== undefined ? { acknowledge_url: links.ackUrl } : {}),
      ...(extra.level !== undefined ? { escalation_level: extra.level } : {}),
      ...(extra.repeat !== undefined ? { repeat: extra.repeat } : {}),
    },
  }
}

export function testMessage(eventId: string, occurredAt: string, workspaceId: string, resource: ResourceInfo, label: string): AlertMessage {
  return {
    subject: `[Lookout] Test alert for ${resource.name}`,
    text: `This is a test alert from Lookout to "${label || 'this destination'}" for ${resource.name}. No incident is open because of it.`,
    event: { schema_version: 1, id: eventId, type: ALERT_EVENT_TYPES.test, occurred_at: occurredAt, workspace_id: workspaceId, resource },
  }
}

export function verificationMessage(eventId: string, occurredAt: string, workspaceId: string, code: string): AlertMessage {
  return {
    subject: `[Lookout] Verification code ${code}`,
    text: `Your Lookout verification code is ${code}. It expires in 15 minutes. If you did not ask for it, ignore this message.`,
    event: { schema_version: 1, id: eventId, type: ALERT_EVENT_TYPES.verification, occurred_at: occurredAt, workspace_id: workspaceId, code },
    code,
  }
}
