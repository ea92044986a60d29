// The assignment webhooks' side of the project area's fan-out port
// (workspace/projects/store/fanout.ts; deploy plugs it in): one delivery row
// per enabled subscription the event matches, in the transaction of the task
// change. Matching: the subscription selected the event type; its board filter
// (if any) holds the task's board; its assignee filter (if any) holds the
// previous or the new assignee (so an unassignment matches the one
// unassigned). Only local tasks emit; restores never do (task.restored is not a
// webhook event), and neither costs a query. One single-table statement per
// event, or per batch of creations: it plans quickly, and finds nothing
// quickly in a workspace without enabled subscriptions. The assignee's kind
// (droid for an agent profile, else user) is fixed at enqueue time by the
// workspace's staff_kind().
import type { Sql } from '../../core/index.ts'
import type { AssignmentEvent, AssignmentFanout } from '../../workspace/index.ts'
import { SUBSCRIBABLE_EVENTS } from './envelope.ts'

/** Columns (or parameters) of the event(s) a delivery insert reads. */
interface EventRefs { id: string; type: string; task: string; board: string; revision: string; prev: string; assignee: string }

/** The delivery rows of the event in parameters, or of the events `join`ed to the subscriptions, for the workspace $1. */
function deliveriesSql(join: string, v: EventRefs): string {
  // now() is the transaction's timestamp: the same instant project_events recorded as occurred_at.
  return `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, generation, event_id, event_type, occurred_at, task_id, board_id,
       task_revision, previous_assignee, assignee, next_attempt_at, created_at, previous_assignee_kind, assignee_kind)
     SELECT gen_random_uuid(), s.workspace_id, s.id, s.generation, ${v.id}, ${v.type}, now(), ${v.task}, ${v.board}, ${v.revision}, ${v.prev}, ${v.assignee}, now(), now(),
       staff_kind($1::uuid, ${v.prev}), staff_kind($1::uuid, ${v.assignee})
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

const fannedOut = (e: AssignmentEvent) => e.task.origin === 'local' && (SUBSCRIBABLE_EVENTS as readonly string[]).includes(e.type)

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

/** The port's implementation, plugged in by deploy. */
export const webhookFanout: AssignmentFanout = { one: enqueueWebhookDeliveries, many: enqueueWebhookDeliveriesMany }
