// Tasks, notes and deliverables as the desktop's portal sync reads and writes
// them (desktop/portal/local-tasks.ts, outbox.ts, connection.ts): the portal's
// versions written locally, its numbers taken, the items changed since the
// sync last captured them. These writes go around the project routes on
// purpose (no idempotency record, no assignment event: rule 4, portal sync
// emits no webhooks); the caller records the activity. Each runs in the
// caller's transaction.
import type { Sql } from '../../../core/index.ts'
import { ITEM_COLS, type ItemRow } from '../store/items.ts'

/** The portal acknowledged a creation: the item (already under its canonical id) takes the portal's number. */
export async function takePortalNumber(tx: Sql, ws: string, id: string, number: number | null): Promise<void> {
  await tx.query(`UPDATE project_items SET number = $3, origin = 'portal' WHERE workspace_id = $1 AND id = $2`, [ws, id, number])
}

/** An item's row locked for a merge (a key-preserving update follows). */
export async function lockItemRow(tx: Sql, ws: string, id: string): Promise<ItemRow | undefined> {
  return (await tx.query<ItemRow>(`SELECT ${ITEM_COLS} FROM project_items WHERE workspace_id = $1 AND id = $2 FOR NO KEY UPDATE`, [ws, id])).rows[0]
}

export async function itemExists(tx: Sql, ws: string, id: string): Promise<boolean> {
  return (await tx.query('SELECT 1 FROM project_items WHERE workspace_id = $1 AND id = $2', [ws, id])).rows.length > 0
}

/** The synced fields and the column each is written to. */
const SET_SQL: Record<string, string> = {
  title: 'title = $X::text', description: 'description = $X::text', acceptance: 'acceptance = $X::text', priority: 'priority = $X::text',
  board_id: 'board_id = $X::uuid', status_id: 'status_id = $X::uuid', type_id: 'type_id = $X::uuid', label_ids: 'label_ids = $X::uuid[]',
  body: 'body = $X::text', state: 'state = $X::text', blocked_reason: 'blocked_reason = $X::text', color: 'color = $X::text', visibility: 'visibility = $X::text',
  assignee: 'assignee = $X::integer', owner: 'owner = $X::integer', deliverable: 'deliverable = $X::uuid', reviewer: 'reviewer = $X::integer', starts_on: 'starts_on = $X::date', due_on: 'due_on = $X::date',
  archived: 'archived_at = CASE WHEN $X::boolean THEN coalesce(archived_at, now()) END',
  deleted: 'deleted_at = CASE WHEN $X::boolean THEN coalesce(deleted_at, now()) END',
}

/**
 * Writes the portal's changed fields (and, for a task, its number) into the
 * item; the revision goes up when a field changed. Returns the item's revision,
 * or `revision` as it was when there is nothing to write.
 */
export async function writePortalFields(
  tx: Sql, ws: string, id: string, changes: Record<string, unknown>, number: number | null | undefined, revision: number,
): Promise<number> {
  const params: unknown[] = [ws, id]
  const sets: string[] = []
  for (const [k, v] of Object.entries(changes)) {
    params.push(v)
    sets.push((SET_SQL[k] as string).replace('$X', `$${params.length}`))
  }
  if (number !== undefined) {
    params.push(number)
    sets.push(`number = $${params.length}::integer`)
  }
  if (sets.length === 0) return revision
  const up = await tx.query<{ revision: number }>(
    `UPDATE project_items SET ${sets.join(', ')}, revision = revision + ${Object.keys(changes).length > 0 ? 1 : 0}, updated_at = now()
     WHERE workspace_id = $1 AND id = $2 RETURNING revision`, params)
  return (up.rows[0] as { revision: number }).revision
}

/** A portal task's fields as the sync inserts them (taxonomy already left out when the portal offers none). */
export interface PortalTaskInsert {
  id: string
  number: number | null
  board_id: unknown; title: unknown; description: unknown; acceptance: unknown; type_id: unknown; label_ids: unknown; status_id: unknown
  priority: unknown; assignee: unknown; reviewer: unknown; starts_on: unknown; due_on: unknown; state: unknown; archived: unknown
  deleted: unknown; blocked_reason: unknown; deliverable: unknown
}

/** A portal task not known here, inserted with the portal's id and number; its revision, or null when the id is taken. */
export async function insertTaskFromPortal(tx: Sql, ws: string, f: PortalTaskInsert): Promise<number | null> {
  const r = await tx.query<{ revision: number }>(
    `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, number, title, description, acceptance, type_id, label_ids,
       status_id, priority, assignee, reviewer, starts_on, due_on, state, blocked_reason, origin, archived_at, deleted_at, deliverable)
     VALUES ($1, $2, 'task', 'task', $3, $4, $5, $6, $7, $8, $9::uuid[], $10, $11, $12, $13, $14::date, $15::date, $16, $19, 'portal',
       CASE WHEN $17::boolean THEN now() END, CASE WHEN $18::boolean THEN now() END, $20)
     ON CONFLICT (id) DO NOTHING RETURNING revision`,
    [f.id, ws, f.board_id, f.number, f.title, f.description, f.acceptance, f.type_id, f.label_ids, f.status_id, f.priority, f.assignee,
      f.reviewer, f.starts_on, f.due_on, f.state, f.archived, f.deleted, f.blocked_reason, f.deliverable])
  return r.rows[0]?.revision ?? null
}

/** A portal note or deliverable not known here, inserted with the portal's id; its revision, or null when the id is taken. */
export async function insertItemFromPortal(tx: Sql, ws: string, id: string, type: 'note' | 'deliverable', f: Record<string, unknown>): Promise<number | null> {
  const r = type === 'note'
    ? await tx.query<{ revision: number }>(
      `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, title, body, color, visibility, origin, archived_at)
       VALUES ($1, $2, 'note', 'note', $3, $4, $5, $6, $7, 'portal', CASE WHEN $8::boolean THEN now() END)
       ON CONFLICT (id) DO NOTHING RETURNING revision`,
      [id, ws, f.board_id, f.title, f.body, f.color, f.visibility, f.archived])
    : await tx.query<{ revision: number }>(
      `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, title, description, acceptance, owner, starts_on, due_on,
         state, blocked_reason, origin, archived_at)
       VALUES ($1, $2, 'deliverable', 'deliverable', $3, $4, $5, $6, $7, $8::date, $9::date, $10, $11, 'portal', CASE WHEN $12::boolean THEN now() END)
       ON CONFLICT (id) DO NOTHING RETURNING revision`,
      [id, ws, f.board_id, f.title, f.description, f.acceptance, f.owner, f.starts_on, f.due_on, f.state, f.blocked_reason, f.archived])
  return r.rows[0]?.revision ?? null
}

/**
 * The tasks, notes and deliverables the sync may send (service tickets stay
 * local) that are new to it or changed since it captured them: `known` the ids
 * it captured, `revisions` the revision of each at capture. Oldest first.
 */
export async function itemsChangedSince(tx: Sql, ws: string, known: readonly string[], revisions: readonly number[]): Promise<ItemRow[]> {
  return (await tx.query<ItemRow>(
    `SELECT x.*
     FROM (SELECT ${ITEM_COLS} FROM project_items WHERE workspace_id = $1 AND item_type IN ('task', 'note', 'deliverable') AND kind <> 'service_ticket') x
     LEFT JOIN unnest($2::uuid[], $3::integer[]) AS p(local_id, captured_revision) ON p.local_id = x.id
     WHERE p.local_id IS NULL OR x.revision > p.captured_revision
     ORDER BY x.seq::bigint`, [ws, known, revisions])).rows
}

/** The number and title of each of these items, by id (the ones that exist). */
export async function itemHeadlines(db: Sql, ws: string, ids: readonly string[]): Promise<Map<string, { number: number | null; title: string }>> {
  if (ids.length === 0) return new Map()
  const r = await db.query<{ id: string; number: number | null; title: string }>(
    'SELECT id, number, title FROM project_items WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [ws, [...ids]])
  return new Map(r.rows.map((x) => [x.id, { number: x.number, title: x.title }]))
}

/** A workspace just shared with a portal: its tasks that never reached the portal (all but `synced`) lose their local numbers. */
export async function dropLocalNumbers(tx: Sql, ws: string, synced: readonly string[]): Promise<void> {
  await tx.query(
    `UPDATE project_items i SET number = NULL WHERE i.workspace_id = $1 AND i.item_type = 'task' AND i.number IS NOT NULL
       AND NOT (i.id = ANY($2::uuid[]))`, [ws, [...synced]])
}
