// Called by the project area's recordEvent (api/projects/store/events.ts) in
// the transaction of the task change, right after it wrote the project_events
// row: one delivery row per enabled subscription the event matches, so the
// change and its deliveries commit (or roll back) together. Matching: the
// subscription selected the event type; its board filter (if any) holds the
// task's board; its assignee filter (if any) holds the previous or the new
// assignee (so an unassignment matches the one unassigned). Only local tasks
// emit; restores never do (task.restored is not a webhook event).
import type { Sql } from '../db/index.ts'

export async function enqueueWebhookDeliveries(tx: Sql, projectEventId: string): Promise<number> {
  const r = await tx.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, generation, event_id, event_type, occurred_at, task_id, board_id,
       task_revision, previous_assignee, assignee, next_attempt_at, created_at)
     SELECT gen_random_uuid(), s.workspace_id, s.id, s.generation, e.id, e.type, e.occurred_at, e.task_id, e.board_id,
       e.task_revision, e.previous_assignee, e.assignee, e.occurred_at, e.occurred_at
     FROM project_events e JOIN webhook_subscriptions s ON s.workspace_id = e.workspace_id
     WHERE e.id = $1 AND e.origin = 'local' AND s.enabled AND e.type = ANY(s.events)
       AND (s.board_ids IS NULL OR e.board_id = ANY(s.board_ids))
       AND (s.assignee_ids IS NULL OR e.previous_assignee = ANY(s.assignee_ids) OR e.assignee = ANY(s.assignee_ids))
     ON CONFLICT (subscription_id, event_id) DO NOTHING`, [projectEventId])
  return r.rowCount
}
