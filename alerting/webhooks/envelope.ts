// The assignment webhook contract, version 1: event types, the envelope
// (built with a fixed key order, so a delivery's body is the same bytes on
// every attempt) and the signature headers.
import { createHmac } from 'node:crypto'
import { FANNED_OUT_EVENTS } from '../../workspace/index.ts'

export const WEBHOOK_EVENTS = {
  assignmentChanged: 'task.assignment.changed',
  deleted: 'task.deleted',
  test: 'webhook.test',
} as const
export type WebhookEventType = (typeof WEBHOOK_EVENTS)[keyof typeof WEBHOOK_EVENTS]
/** The events a subscription can select (webhook.test is always available through the test route). */
export const SUBSCRIBABLE_EVENTS = FANNED_OUT_EVENTS

export const HEADERS = {
  eventId: 'x-service-event-id',
  timestamp: 'x-service-timestamp',
  signature: 'x-service-signature',
} as const

/** What the receiver learns about a profile: `profile:<id>` and its kind. */
export interface AssigneeRef {
  id: string
  kind: string
}

export interface Envelope {
  schema_version: 1
  id: string
  type: WebhookEventType
  occurred_at: string
  source: { instance_id: string; workspace_id: string }
  task?: { id: string; board_id: string | null; revision: number }
  previous_assignee?: AssigneeRef | null
  assignee?: AssigneeRef | null
}

export interface EventFacts {
  event_id: string
  event_type: WebhookEventType
  occurred_at: Date | string
  workspace_id: string
  task_id: string | null
  board_id: string | null
  task_revision: number | null
  previous_assignee: number | null
  assignee: number | null
  /** user or droid, fixed when the event was queued; null on rows queued before kinds were kept (user). */
  previous_assignee_kind?: string | null
  assignee_kind?: string | null
}

export const ASSIGNEE_KINDS = { user: 'user', droid: 'droid' } as const

/** A profile as receivers see it: kind droid for an agent profile (a staff member marked agent), else user. */
export function profileRef(userId: number | null, kind: string | null = null): AssigneeRef | null {
  return userId === null ? null : { id: `profile:${userId}`, kind: kind === ASSIGNEE_KINDS.droid ? ASSIGNEE_KINDS.droid : ASSIGNEE_KINDS.user }
}

export function envelopeOf(f: EventFacts, instanceId: string): Envelope {
  const base = {
    schema_version: 1 as const,
    id: f.event_id,
    type: f.event_type,
    occurred_at: new Date(f.occurred_at).toISOString(),
    source: { instance_id: instanceId, workspace_id: f.workspace_id },
  }
  if (f.event_type === WEBHOOK_EVENTS.test) return base
  return {
    ...base,
    task: { id: f.task_id as string, board_id: f.board_id, revision: f.task_revision as number },
    previous_assignee: profileRef(f.previous_assignee, f.previous_assignee_kind ?? null),
    assignee: profileRef(f.assignee, f.assignee_kind ?? null),
  }
}

/** `sha256=` + lowercase hex HMAC-SHA256 of "<timestamp>.<raw body>", keyed with the signing secret. */
export function signature(secret: string, timestamp: number | string, body: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(`${timestamp}.`).update(body).digest('hex')}`
}

/** The headers of one delivery attempt: the event id is stable, timestamp and signature are per attempt. */
export function signedHeaders(secret: string, eventId: string, body: string, nowMs: number): Record<string, string> {
  const timestamp = Math.floor(nowMs / 1000)
  return {
    [HEADERS.eventId]: eventId,
    [HEADERS.timestamp]: String(timestamp),
    [HEADERS.signature]: signature(secret, timestamp, body),
  }
}
