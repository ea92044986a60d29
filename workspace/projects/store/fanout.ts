// The assignment webhooks' port: the project area declares it, alerting
// implements it (alerting/webhooks/fanout.ts queues the delivery rows in its
// own tables) and deploy plugs it in where the process is composed. Called by
// recordEvent / recordEvents (events.ts) in the transaction of the task change,
// right after the project_events rows, so the change and its deliveries commit
// (or roll back) together.
import type { Sql } from '../../../core/index.ts'

export interface AssignmentEvent {
  /** The project_events id: the webhook event id. */
  id: string
  workspaceId: string
  type: string
  task: { id: string; board_id: string | null; revision: number; origin: string }
  previousAssignee: number | null
  assignee: number | null
}

/** Queues the deliveries assignment events owe, in the caller's transaction; each returns how many. */
export interface AssignmentFanout {
  one: (tx: Sql, e: AssignmentEvent) => Promise<number>
  /** Events of one workspace in one statement (a batch of creations). */
  many: (tx: Sql, workspaceId: string, events: readonly AssignmentEvent[]) => Promise<number>
}

let plugged: AssignmentFanout | null = null

/** Plugs the implementation in (deploy, once per process; a process without it, such as a benchmark's in-process store, queues none). */
export function plugAssignmentFanout(fanout: AssignmentFanout): void {
  plugged = fanout
}

export async function fanOutAssignment(tx: Sql, e: AssignmentEvent): Promise<number> {
  return plugged === null ? 0 : plugged.one(tx, e)
}

export async function fanOutAssignments(tx: Sql, workspaceId: string, events: readonly AssignmentEvent[]): Promise<number> {
  return plugged === null || events.length === 0 ? 0 : plugged.many(tx, workspaceId, events)
}
