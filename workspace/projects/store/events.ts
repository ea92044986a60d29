// The assignment outbox: every assignment change, delete and restore of a local
// task is written here in the transaction of the change, together with the
// assignment webhooks' delivery rows for it. Shape in README.md.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { actorJson, type Actor } from './context.ts'
import { fanOutAssignment, fanOutAssignments } from './fanout.ts'
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

/** recordEvent for events of one type and actor, in one statement each for the events and their deliveries (a batch of creations). */
export async function recordEvents(
  tx: Sql, workspaceId: string, actor: Actor, type: ProjectEventType, changes: readonly { task: TaskFacts; previousAssignee: number | null; assignee: number | null }[],
): Promise<void> {
  if (changes.length === 0) return
  const events = changes.map((c) => ({ id: randomUUID(), workspaceId, type, task: c.task, previousAssignee: c.previousAssignee, assignee: c.assignee }))
  await tx.query(
    `INSERT INTO project_events (id, workspace_id, type, task_id, board_id, task_number, task_revision, assignment_revision,
       previous_assignee, assignee, origin, actor)
     SELECT v.id, $1, $2, v.task_id, v.board_id, v.task_number, v.task_revision, v.assignment_revision, v.previous_assignee, v.assignee, v.origin, $3::jsonb
     FROM jsonb_to_recordset($4::jsonb) AS v(ord integer, id uuid, task_id uuid, board_id uuid, task_number integer, task_revision integer,
       assignment_revision integer, previous_assignee integer, assignee integer, origin text)
     ORDER BY v.ord`,
    [workspaceId, type, actorJson(actor), JSON.stringify(events.map((e, ord) => ({
      ord, id: e.id, task_id: e.task.id, board_id: e.task.board_id, task_number: e.task.number, task_revision: e.task.revision,
      assignment_revision: e.task.assignment_revision, previous_assignee: e.previousAssignee, assignee: e.assignee, origin: e.task.origin,
    })))])
  await fanOutAssignments(tx, workspaceId, events)
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
