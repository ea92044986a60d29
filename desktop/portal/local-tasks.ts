// What the sync writes into the desktop's project store: a task the portal
// acknowledged takes its canonical id and number; a task edited or created on
// the portal is written locally. These writes go around the project routes on
// purpose: they record activity as the portal sync (so capture does not send
// them back) and never write assignment events (rule 4: portal sync and import
// emit no webhooks); synced tasks are marked origin 'portal' for the same reason.
import type { Database, Sql } from '../../core/index.ts'
import { recordActivity } from '../../workspace/index.ts'
import type { Actor } from '../../workspace/index.ts'
import { ITEM_COLS, type ItemRow } from '../../workspace/index.ts'
import { adoptId } from './id-map.ts'
import { changedFields, itemFieldsOf, TAXONOMY_FIELDS, type TaskFields, type TaskLike } from './task-fields.ts'

export const SYNC_ACTOR: Actor = { tokenId: 'portal-sync', userId: null, owner: false }

export interface PortalItem {
  item_key: string
  item_type: 'task' | 'note'
  local_id: string
  portal_id: string | null
  portal_revision: number | null
  captured: TaskFields
  captured_revision: number
}

export async function readPortalItem(db: Sql, ws: string, itemKey: string): Promise<PortalItem | undefined> {
  const r = await db.query<PortalItem>('SELECT item_key, item_type, local_id, portal_id, portal_revision, captured, captured_revision FROM portal_items WHERE workspace_id = $1 AND item_key = $2', [ws, itemKey])
  return r.rows[0]
}

type PortalTask = TaskLike & { id: string; number: number | null; revision: number }

/** The portal acknowledged a creation: the local task takes the portal's id and number. */
export async function adoptTask(db: Database, ws: string, itemKey: string, t: PortalTask): Promise<void> {
  await db.transaction(async (tx) => {
    const item = await readPortalItem(tx, ws, itemKey)
    if (item === undefined) return
    await adoptId(tx, ws, 'item', item.local_id, t.id)
    await tx.query(`UPDATE project_items SET number = $3, origin = 'portal' WHERE workspace_id = $1 AND id = $2`, [ws, t.id, t.number])
    await tx.query('UPDATE portal_items SET portal_id = $3, portal_revision = $4 WHERE workspace_id = $1 AND item_key = $2',
      [ws, itemKey, t.id, t.revision])
  })
}

const SET_SQL: Record<string, string> = {
  title: 'title = $X::text', description: 'description = $X::text', acceptance: 'acceptance = $X::text', priority: 'priority = $X::text',
  board_id: 'board_id = $X::uuid', status_id: 'status_id = $X::uuid', type_id: 'type_id = $X::uuid', label_ids: 'label_ids = $X::uuid[]',
  body: 'body = $X::text', color: 'color = $X::text', visibility: 'visibility = $X::text',
  assignee: 'assignee = $X::integer', reviewer: 'reviewer = $X::integer', starts_on: 'starts_on = $X::date', due_on: 'due_on = $X::date',
  archived: 'archived_at = CASE WHEN $X::boolean THEN coalesce(archived_at, now()) END',
  deleted: 'deleted_at = CASE WHEN $X::boolean THEN coalesce(deleted_at, now()) END',
}

/**
 * Writes a portal task locally: an unknown one is inserted with the portal's
 * id and number, a known one is updated, unless the desktop changed it after
 * the last capture (its own edit then goes out first and meets the portal's
 * revision check). `deferred`: not written now, to be read again next round.
 */
export const APPLY = { applied: 'applied', current: 'current', deferred: 'deferred' } as const
export type ApplyOutcome = (typeof APPLY)[keyof typeof APPLY]

export async function applyPortalTask(db: Database, ws: string, t: PortalTask, taxonomy: boolean, type: 'task' | 'note' = 'task'): Promise<ApplyOutcome> {
  const incoming = itemFieldsOf(type, t as never)
  return db.transaction(async (tx) => {
    const known = await tx.query<PortalItem>(
      'SELECT item_key, item_type, local_id, portal_id, portal_revision, captured, captured_revision FROM portal_items WHERE workspace_id = $1 AND portal_id = $2 FOR UPDATE',
      [ws, t.id])
    const item = known.rows[0]
    if (item === undefined) {
      const made = type === 'note' ? await insertPortalNote(tx, ws, t, incoming) : await insertPortalTask(tx, ws, t, incoming as TaskFields, taxonomy)
      return made ? APPLY.applied : APPLY.deferred
    }
    if (item.portal_revision !== null && item.portal_revision >= t.revision) return APPLY.current
    const cur = await tx.query<ItemRow>(`SELECT ${ITEM_COLS} FROM project_items WHERE workspace_id = $1 AND id = $2 FOR NO KEY UPDATE`, [ws, item.local_id])
    const row = cur.rows[0]
    if (row === undefined || row.revision !== item.captured_revision) return APPLY.deferred
    const local = itemFieldsOf(row.item_type, row)
    const want: Record<string, unknown> = { ...incoming }
    if (!taxonomy && type === 'task') for (const f of TAXONOMY_FIELDS) want[f] = local[f]
    const changes: Record<string, unknown> = changedFields(local, want)
    const params: unknown[] = [ws, row.id]
    const sets: string[] = []
    for (const [k, v] of Object.entries(changes)) {
      params.push(v)
      sets.push((SET_SQL[k] as string).replace('$X', `$${params.length}`))
    }
    // The work state comes from the portal (its actions: work, review, approve...); it is not sent back.
    const state = (t as { state?: string }).state
    if (type === 'task' && state !== undefined && state !== row.state) {
      changes.state = state
      params.push(state)
      sets.push(`state = $${params.length}::text`)
    }
    if (type === 'task') {
      params.push(t.number)
      sets.push(`number = $${params.length}::integer`)
    }
    const up = await tx.query<{ revision: number }>(
      `UPDATE project_items SET ${sets.join(', ')}, revision = revision + ${Object.keys(changes).length > 0 ? 1 : 0}, updated_at = now()
       WHERE workspace_id = $1 AND id = $2 RETURNING revision`, params)
    const revision = (up.rows[0] as { revision: number }).revision
    if (Object.keys(changes).length > 0) {
      const before: Record<string, unknown> = {}
      for (const k of Object.keys(changes)) before[k] = k === 'state' ? row.state : local[k]
      await recordActivity(tx, ws, SYNC_ACTOR, {
        boardId: want.board_id as string, itemId: row.id, entity: type, action: 'portal_sync',
        summary: `${type === 'task' ? `task #${t.number ?? ''}` : 'note'} ${JSON.stringify(t.title)}: changed on the portal`, before, after: changes,
      })
    }
    await tx.query('UPDATE portal_items SET portal_revision = $3, captured = $4, captured_revision = $5 WHERE workspace_id = $1 AND item_key = $2',
      [ws, item.item_key, t.revision, JSON.stringify(want), revision])
    return APPLY.applied
  })
}

async function insertPortalTask(tx: Sql, ws: string, t: PortalTask, f: TaskFields, taxonomy: boolean): Promise<boolean> {
  const board = await tx.query('SELECT 1 FROM project_boards WHERE workspace_id = $1 AND id = $2', [ws, f.board_id])
  // Its board arrives with the next catalogue snapshot; the task follows then (deferred).
  if (board.rows.length === 0) return false
  const typeId = taxonomy ? f.type_id : null
  const labels = taxonomy ? f.label_ids : []
  const r = await tx.query<{ revision: number }>(
    `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, number, title, description, acceptance, type_id, label_ids,
       status_id, priority, assignee, reviewer, starts_on, due_on, state, origin, archived_at, deleted_at)
     VALUES ($1, $2, 'task', 'task', $3, $4, $5, $6, $7, $8, $9::uuid[], $10, $11, $12, $13, $14::date, $15::date, $16, 'portal',
       CASE WHEN $17::boolean THEN now() END, CASE WHEN $18::boolean THEN now() END)
     ON CONFLICT (id) DO NOTHING RETURNING revision`,
    [t.id, ws, f.board_id, t.number, f.title, f.description, f.acceptance, typeId, labels, f.status_id, f.priority, f.assignee,
      f.reviewer, f.starts_on, f.due_on, (t as unknown as { state?: string }).state ?? 'open', f.archived, f.deleted])
  if (r.rows.length === 0) return false
  await recordActivity(tx, ws, SYNC_ACTOR, {
    boardId: f.board_id as string, itemId: t.id, entity: 'task', action: 'portal_import',
    summary: `task #${t.number ?? ''} ${JSON.stringify(t.title)}: imported from the portal`, before: null, after: { title: f.title },
  })
  const captured: TaskFields = { ...f, type_id: typeId, label_ids: labels }
  await tx.query(
    `INSERT INTO portal_items (workspace_id, item_key, local_id, portal_id, portal_revision, captured, captured_revision)
     VALUES ($1, $2, $2, $2, $3, $4, $5)`, [ws, t.id, t.revision, JSON.stringify(captured), (r.rows[0] as { revision: number }).revision])
  return true
}

async function insertPortalNote(tx: Sql, ws: string, n: PortalTask, f: Record<string, unknown>): Promise<boolean> {
  const board = await tx.query('SELECT 1 FROM project_boards WHERE workspace_id = $1 AND id = $2', [ws, f.board_id])
  if (board.rows.length === 0) return false
  const r = await tx.query<{ revision: number }>(
    `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, title, body, color, visibility, origin, archived_at)
     VALUES ($1, $2, 'note', 'note', $3, $4, $5, $6, $7, 'portal', CASE WHEN $8::boolean THEN now() END)
     ON CONFLICT (id) DO NOTHING RETURNING revision`,
    [n.id, ws, f.board_id, f.title, f.body, f.color, f.visibility, f.archived])
  if (r.rows.length === 0) return false
  await recordActivity(tx, ws, SYNC_ACTOR, {
    boardId: f.board_id as string, itemId: n.id, entity: 'note', action: 'portal_import',
    summary: `note ${JSON.stringify(f.title)}: imported from the portal`, before: null, after: { title: f.title },
  })
  await tx.query(
    `INSERT INTO portal_items (workspace_id, item_key, local_id, portal_id, portal_revision, captured, captured_revision, item_type)
     VALUES ($1, $2, $2, $2, $3, $4, $5, 'note')`, [ws, n.id, n.revision, JSON.stringify(f), (r.rows[0] as { revision: number }).revision])
  return true
}
