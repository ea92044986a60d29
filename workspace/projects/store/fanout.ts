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

/** Columns (or parameters) of the event(s) a delivery insert reads. */
interface EventRefs { id: string; type: string; task: string; board: string; revision: string; prev: string; assignee: string }

/** The delivery rows of the event in parameters, or of the events `join`ed to the subscriptions, for the workspace $1. */
function deliveriesSql(join: string, v: EventRefs): string {
  // now() is the transaction's timestamp: the same instant project_events recorded as occurred_at.
  return `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, generation, event_id, event_type, occurred_at, task_id, board_id,
       task_revision, previous_assignee, assignee, next_attempt_at, created_at, previous_assignee_kind, assignee_kind)
     SELECT gen_random_uuid(), s.workspace_id, s.id, s.generation, ${v.id}, ${v.type}, now(), ${v.task}, ${v.board}, ${v.revision}, ${v.prev}, ${v.assignee}, now(), now(),
       ${KIND.replaceAll('$U', v.prev)}, ${KIND.replaceAll('$U', v.assignee)}
     FROM webhook_subscriptions s${join}
     WHERE s.workspace_id = $1::uuid AND s.enabled AND ${v.type} = ANY(s.events)
       AND (s.board_ids IS NULL OR ${v.board} = ANY(s.board_ids))
       AND (s.assignee_ids IS NULL OR ${v.prev} = ANY(s.assignee_ids) OR ${v.assignee} = ANY(s.assignee_ids))
     ON CONFLICT (subscription_id, event_id) DO NOTHING`
}

const ONE = deliveriesSql('', { id: '$2::uuid', type: '$3::text', task: '$4::uuid', board: '$5::uuid', revision: '$6::int', prev: '$7::int', assignee: '$8::int' })
const MANY = deliveriesSql(
  ` CROSS JOIN jsonb_to_recordset($2::jsonb) AS v(id uuid, type text, task_id uuid, board_id uuid, task_revision integer, previous_assignee integer, assignee integer)`,
  { id: 'v.id', type: 'v.type', task: 'v.task_id', board: 'v.board_id', revision: 'v.task_revision', prev: 'v.previous_assignee', assignee: 'v.assignee' })

const fannedOut = (e: AssignmentEvent) => e.task.origin === 'local' && (FANNED_OUT_EVENTS as readonly string[]).includes(e.type)

export async function enqueueWebhookDeliveries(tx: Sql, e: AssignmentEvent): Promise<number> {
  if (!fannedOut(e)) return 0
  const r = await tx.query(ONE, [e.workspaceId, e.id, e.type, e.task.id, e.task.board_id, e.task.revision, e.previousAssignee, e.assignee])
  return r.rowCount
}

/** enqueueWebhookDeliveries for events of one workspace, in one statement (a batch of creations). */
export async function enqueueWebhookDeliveriesMany(tx: Sql, workspaceId: string, events: readonly AssignmentEvent[]): Promise<number> {
  const out = events.filter(fannedOut).map((e) => ({
    id: e.id, type: e.type, task_id: e.task.id, board_id: e.task.board_id, task_revision: e.task.revision, previous_assignee: e.previousAssignee, assignee: e.assignee,
  }))
  if (out.length === 0) return 0
  return (await tx.query(MANY, [workspaceId, JSON.stringify(out)])).rowCount
}
