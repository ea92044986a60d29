// The outbox's fan-out to the assignment webhooks (alerting/webhooks delivers
// them); it lives with the outbox so a change and its deliveries are one transaction.
// Called by the project area's recordEvent (workspace/projects/store/events.ts) in
// the transaction of the task change, right after it wrote the project_events
// row: one delivery row per enabled subscription the event matches, so the
// change and its deliveries commit (or roll back) together. Matching: the
// subscription selected the event type; its board filter (if any) holds the
// task's board; its assignee filter (if any) holds the previous or the new
// assignee (so an unassignment matches the one unassigned). Only local tasks
// emit; restores never do (task.restored is not a webhook event), and neither
// costs a query. One single-table statement otherwise: it plans quickly, and
// finds nothing quickly in a workspace without enabled subscriptions.
import type { Sql } from '../../../core/index.ts'
import { FANNED_OUT_EVENTS } from './event-types.ts'

export interface AssignmentEvent {
  /** The project_events id: the webhook event id. */
  id: string
  workspaceId: string
  type: string
  task: { id: string; board_id: string | null; revision: number; origin: string }
  previousAssignee: number | null
  assignee: number | null
}

/** The assignee's kind, fixed at enqueue time: droid for an agent profile (staff_members.agent), else user. */
const KIND = `(CASE WHEN $U::int IS NULL THEN NULL
  WHEN EXISTS (SELECT 1 FROM staff_members m WHERE m.workspace_id = $1::uuid AND m.staff_id = $U::int AND m.agent) THEN 'droid' ELSE 'user' END)`

export async function enqueueWebhookDeliveries(tx: Sql, e: AssignmentEvent): Promise<number> {
  if (e.task.origin !== 'local' || !(FANNED_OUT_EVENTS as readonly string[]).includes(e.type)) return 0
  // now() is the transaction's timestamp: the same instant project_events recorded as occurred_at.
  const r = await tx.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, generation, event_id, event_type, occurred_at, task_id, board_id,
       task_revision, previous_assignee, assignee, next_attempt_at, created_at, previous_assignee_kind, assignee_kind)
     SELECT gen_random_uuid(), s.workspace_id, s.id, s.generation, $2::uuid, $3::text, now(), $4::uuid, $5::uuid, $6::int, $7::int, $8::int, now(), now(),
       ${KIND.replaceAll('$U', '$7')}, ${KIND.replaceAll('$U', '$8')}
     FROM webhook_subscriptions s
     WHERE s.workspace_id = $1::uuid AND s.enabled AND $3::text = ANY(s.events)
       AND (s.board_ids IS NULL OR $5::uuid = ANY(s.board_ids))
       AND (s.assignee_ids IS NULL OR $7::int = ANY(s.assignee_ids) OR $8::int = ANY(s.assignee_ids))
     ON CONFLICT (subscription_id, event_id) DO NOTHING`,
    [e.workspaceId, e.id, e.type, e.task.id, e.task.board_id, e.task.revision, e.previousAssignee, e.assignee])
  return r.rowCount
}
