// The assignment outbox: every assignment change, delete and restore of a local
// task is written here in the transaction of the change, together with the
// assignment webhooks' delivery rows for it. Shape in README.md.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { actorJson, type Actor } from './context.ts'
import { fanOutAssignment } from './fanout.ts'
import type { ProjectEventType } from './event-types.ts'

export { PROJECT_EVENT_TYPES, FANNED_OUT_EVENTS, type ProjectEventType } from './event-types.ts'

export interface TaskFacts {
  id: string
  board_id: string
  number: number | null
  revision: number
  assignment_revision: number
  origin: string
}

export async function recordEvent(
  tx: Sql, workspaceId: string, actor: Actor, type: ProjectEventType, task: TaskFacts,
  previousAssignee: number | null, assignee: number | null,
): Promise<void> {
  const id = randomUUID()
  await tx.query(
    `INSERT INTO project_events (id, workspace_id, type, task_id, board_id, task_number, task_revision, assignment_revision,
       previous_assignee, assignee, origin, actor)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12::jsonb)`,
    [id, workspaceId, type, task.id, task.board_id, task.number, task.revision, task.assignment_revision,
      previousAssignee, assignee, task.origin, actorJson(actor)])
  // The assignment webhooks' delivery rows commit with the change (the port of fanout.ts).
  await fanOutAssignment(tx, { id, workspaceId, type, task, previousAssignee, assignee })
}

export interface ProjectEvent {
  seq: number
  id: string
  workspace_id: string
  type: ProjectEventType
  task_id: string
  board_id: string
  task_number: number | null
  task_revision: number
  assignment_revision: number
  previous_assignee: number | null
  assignee: number | null
  origin: string
  actor: { token_id: string; user_id: number | null; owner: boolean }
  occurred_at: string
}

/** Outbox events after `afterSeq`, oldest first: the read side for the webhook dispatcher. */
export async function readProjectEvents(db: Sql, afterSeq = 0, limit = 100): Promise<ProjectEvent[]> {
  const r = await db.query<Omit<ProjectEvent, 'seq' | 'occurred_at'> & { seq: string; occurred_at: Date }>(
    `SELECT seq::text AS seq, id, workspace_id, type, task_id, board_id, task_number, task_revision, assignment_revision,
       previous_assignee, assignee, origin, actor, occurred_at
     FROM project_events WHERE seq > $1::bigint ORDER BY project_events.seq LIMIT $2`, [String(afterSeq), limit])
  return r.rows.map((e) => ({ ...e, seq: Number(e.seq), occurred_at: new Date(e.occurred_at).toISOString() }))
}
