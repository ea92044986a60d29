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

type Flags = { archived?: boolean; deleted?: boolean; archived_at?: string | null; deleted_at?: string | null }

export interface TaskLike extends Flags {
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
}

/** Archived and deleted, from a view's booleans or a row's timestamps. */
function flagsOf(x: Flags): { archived: boolean; deleted: boolean } {
  return {
    archived: x.archived ?? (x.archived_at !== null && x.archived_at !== undefined),
    deleted: x.deleted ?? (x.deleted_at !== null && x.deleted_at !== undefined),
  }
}

export function fieldsOf(t: TaskLike): TaskFields {
  return {
    title: t.title, description: t.description, acceptance: t.acceptance, priority: t.priority, board_id: t.board_id,
    status_id: t.status_id, type_id: t.type_id, label_ids: [...t.label_ids].sort(), assignee: t.assignee, reviewer: t.reviewer,
    starts_on: t.starts_on, due_on: t.due_on, state: t.state ?? 'open', blocked_reason: t.blocked_reason ?? '',
    ...flagsOf(t),
    deliverable: t.deliverable ?? null,
  }
}

/** A deliverable's synced fields (portal deliverables have no trash and no move: refused, not sent). */
export interface DeliverableLike extends Flags {
  title: string
  description: string
  acceptance: string
  owner: number | null
  starts_on: string | null
  due_on: string | null
  board_id: string
  state?: string | null
  blocked_reason?: string | null
}

export function deliverableFieldsOf(d: DeliverableLike): Record<string, unknown> {
  return {
    title: d.title, description: d.description, acceptance: d.acceptance, owner: d.owner, starts_on: d.starts_on, due_on: d.due_on,
    board_id: d.board_id, state: d.state ?? 'open', blocked_reason: d.blocked_reason ?? '',
    ...flagsOf(d),
  }
}

/** A note's synced fields (portal notes have no trash, so a deleted note is refused, not sent). */
export interface NoteLike extends Flags {
  title: string
  body: string
  color: string | null
  visibility: string | null
  board_id: string
}

export function noteFieldsOf(n: NoteLike): Record<string, unknown> {
  return {
    title: n.title, body: n.body, color: n.color, visibility: n.visibility, board_id: n.board_id,
    ...flagsOf(n),
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

/**
 * The three-way merge of a portal version (`incoming`) into a local record:
 * the fields the portal changed since the agreed version (`base`) that the
 * desktop did not change too. null (deferred): a field changed on both sides
 * whose local value is not sent yet (not captured, or in a pending operation
 * listed in `unsent`): that value meets the portal's revision check first.
 */
export function portalChanges(incoming: Record<string, unknown>, base: Record<string, unknown>, local: Record<string, unknown>,
  captured: Record<string, unknown>, unsent: Set<string>): Record<string, unknown> | null {
  const changes: Record<string, unknown> = {}
  // A field added to the synced set after a record was agreed (the deliverable link) is absent there: read as null, its empty value.
  const at = (r: Record<string, unknown>, f: string) => (f in r ? r[f] : null)
  for (const [f, v] of Object.entries(incoming)) {
    if (equalValue(v, at(base, f)) || equalValue(v, local[f])) continue
    if (unsent.has(f) || !equalValue(local[f], at(captured, f))) return null
    changes[f] = v
  }
  return changes
}
