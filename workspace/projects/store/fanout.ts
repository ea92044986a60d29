// The assignment webhooks' port: the project area declares it, alerting
// implements it (alerting/webhooks/fanout.ts queues the delivery rows in its
// own tables) and deploy plugs it in where the process is composed. Called by
// recordEvent (events.ts) in the transaction of the task change, right after it
// wrote the project_events row, so the change and its deliveries commit (or
// roll back) together.
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

/** Queues the deliveries an assignment event owes, in the caller's transaction; returns how many. */
export type AssignmentFanout = (tx: Sql, e: AssignmentEvent) => Promise<number>

let plugged: AssignmentFanout | null = null

/** Plugs the implementation in (deploy, once per process; a process without it, such as a benchmark's in-process store, queues none). */
export function plugAssignmentFanout(fanout: AssignmentFanout): void {
  plugged = fanout
}

export async function fanOutAssignment(tx: Sql, e: AssignmentEvent): Promise<number> {
  return plugged === null ? 0 : plugged(tx, e)
}
