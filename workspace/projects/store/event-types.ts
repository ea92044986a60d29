// The assignment outbox's event types: their own module, read by the outbox
// writer (events.ts) and, for the subscribable ones, by alerting's webhooks.
export const PROJECT_EVENT_TYPES = {
  assignmentChanged: 'task.assignment.changed',
  deleted: 'task.deleted',
  restored: 'task.restored',
} as const
export type ProjectEventType = (typeof PROJECT_EVENT_TYPES)[keyof typeof PROJECT_EVENT_TYPES]
/** The events a webhook subscription can select; a restore is not one. */
export const FANNED_OUT_EVENTS = [PROJECT_EVENT_TYPES.assignmentChanged, PROJECT_EVENT_TYPES.deleted] as const
