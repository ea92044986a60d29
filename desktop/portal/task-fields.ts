// The task fields that travel between the desktop and the portal, read the
// same way from a local row and from a portal task view. The work state (and a
// blocked task's reason) travels too: the portal takes it as workflow actions
// (push.ts, state-path.ts), and the task's deliverable (the link). Never
// synced: services, source tickets. Comments and edges are records of their
// own (records.ts). Notes and deliverables have their own field sets.
export const SYNCED_FIELDS = [
  'title', 'description', 'acceptance', 'priority', 'board_id', 'status_id', 'type_id', 'label_ids',
  'assignee', 'reviewer', 'starts_on', 'due_on', 'state', 'blocked_reason', 'archived', 'deleted', 'deliverable',
] as const
export type SyncedField = (typeof SYNCED_FIELDS)[number]
export type TaskFields = Record<SyncedField, unknown>

/** Fields of the taxonomy capability: only sent and taken with task-taxonomy-v1. */
export const TAXONOMY_FIELDS: readonly SyncedField[] = ['type_id', 'label_ids']

export interface TaskLike {
  title: string
  description: string
  acceptance: string
  priority: string | null
  board_id: string
  status_id: string | null
  type_id: string | null
  label_ids: string[]
  assignee: number | null
  reviewer: number | null
  starts_on: string | null
  due_on: string | null
  deliverable?: string | null
  state?: string | null
  blocked_reason?: string | null
  archived?: boolean
  deleted?: boolean
  archived_at?: string | null
  deleted_at?: string | null
}

export function fieldsOf(t: TaskLike): TaskFields {
  return {
    title: t.title, description: t.description, acceptance: t.acceptance, priority: t.priority, board_id: t.board_id,
    status_id: t.status_id, type_id: t.type_id, label_ids: [...t.label_ids].sort(), assignee: t.assignee, reviewer: t.reviewer,
    starts_on: t.starts_on, due_on: t.due_on, state: t.state ?? 'open', blocked_reason: t.blocked_reason ?? '',
    archived: t.archived ?? (t.archived_at !== null && t.archived_at !== undefined),
    deleted: t.deleted ?? (t.deleted_at !== null && t.deleted_at !== undefined),
    deliverable: t.deliverable ?? null,
  }
}

/** A deliverable's synced fields (portal deliverables have no trash and no move: refused, not sent). */
export interface DeliverableLike {
  title: string
  description: string
  acceptance: string
  owner: number | null
  starts_on: string | null
  due_on: string | null
  board_id: string
  state?: string | null
  blocked_reason?: string | null
  archived?: boolean
  deleted?: boolean
  archived_at?: string | null
  deleted_at?: string | null
}

export function deliverableFieldsOf(d: DeliverableLike): Record<string, unknown> {
  return {
    title: d.title, description: d.description, acceptance: d.acceptance, owner: d.owner, starts_on: d.starts_on, due_on: d.due_on,
    board_id: d.board_id, state: d.state ?? 'open', blocked_reason: d.blocked_reason ?? '',
    archived: d.archived ?? (d.archived_at !== null && d.archived_at !== undefined),
    deleted: d.deleted ?? (d.deleted_at !== null && d.deleted_at !== undefined),
  }
}

/** A note's synced fields (portal notes have no trash, so a deleted note is refused, not sent). */
export interface NoteLike {
  title: string
  body: string
  color: string | null
  visibility: string | null
  board_id: string
  archived?: boolean
  deleted?: boolean
  archived_at?: string | null
  deleted_at?: string | null
}

export function noteFieldsOf(n: NoteLike): Record<string, unknown> {
  return {
    title: n.title, body: n.body, color: n.color, visibility: n.visibility, board_id: n.board_id,
    archived: n.archived ?? (n.archived_at !== null && n.archived_at !== undefined),
    deleted: n.deleted ?? (n.deleted_at !== null && n.deleted_at !== undefined),
  }
}

/** The synced fields of a task, a note or a deliverable. */
export function itemFieldsOf(type: string, x: TaskLike | NoteLike | DeliverableLike): Record<string, unknown> {
  if (type === 'deliverable') return deliverableFieldsOf(x as DeliverableLike)
  return type === 'note' ? noteFieldsOf(x as NoteLike) : fieldsOf(x as TaskLike)
}

export function equalValue(a: unknown, b: unknown): boolean {
  return JSON.stringify(a) === JSON.stringify(b)
}

/** The fields of `next` that differ from `prev`. */
export function changedFields(prev: Record<string, unknown>, next: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const f of Object.keys(next)) if (!equalValue(prev[f], next[f])) out[f] = next[f]
  return out
}
