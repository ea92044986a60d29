// The assignment webhooks' side of the project area's fan-out port
// (workspace/projects/store/fanout.ts; deploy plugs it in): one delivery row
// per enabled subscription the event matches, in the transaction of the task
// change. Matching: the subscription selected the event type; its board filter
// (if any) holds the task's board; its assignee filter (if any) holds the
// previous or the new assignee (so an unassignment matches the one
// unassigned). Only local tasks emit; restores never do (task.restored is not a
// webhook event), and neither costs a query. One single-table statement
// otherwise: it plans quickly, and finds nothing
// quickly in a workspace without enabled subscriptions. The assignee's kind
// (droid for an agent profile, else user) is fixed at enqueue time by the
// workspace's staff_kind().
import type { Sql } from '../../core/index.ts'
import type { AssignmentEvent, AssignmentFanout } from '../../workspace/index.ts'
import { SUBSCRIBABLE_EVENTS } from './envelope.ts'

export const enqueueWebhookDeliveries: AssignmentFanout = async (tx: Sql, e: AssignmentEvent): Promise<number> => {
  if (e.task.origin !== 'local' || !(SUBSCRIBABLE_EVENTS as readonly string[]).includes(e.type)) return 0
  // now() is the transaction's timestamp: the same instant project_events recorded as occurred_at.
  const r = await tx.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, generation, event_id, event_type, occurred_at, task_id, board_id,
       task_revision, previous_assignee, assignee, next_attempt_at, created_at, previous_assignee_kind, assignee_kind)
     SELECT gen_random_uuid(), s.workspace_id, s.id, s.generation, $2::uuid, $3::text, now(), $4::uuid, $5::uuid, $6::int, $7::int, $8::int, now(), now(),
       staff_kind($1::uuid, $7::int), staff_kind($1::uuid, $8::int)
     FROM webhook_subscriptions s
     WHERE s.workspace_id = $1::uuid AND s.enabled AND $3::text = ANY(s.events)
       AND (s.board_ids IS NULL OR $5::uuid = ANY(s.board_ids))
       AND (s.assignee_ids IS NULL OR $7::int = ANY(s.assignee_ids) OR $8::int = ANY(s.assignee_ids))
     ON CONFLICT (subscription_id, event_id) DO NOTHING`,
    [e.workspaceId, e.id, e.type, e.task.id, e.task.board_id, e.task.revision, e.previousAssignee, e.assignee])
  return r.rowCount
}
