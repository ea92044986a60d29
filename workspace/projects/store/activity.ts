// The activity feed: one entry per change, with the actor and the changed
// fields before and after, written in the transaction of the change.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../../core/index.ts'
import { actorJson, type Actor } from './context.ts'

export interface ActivityEntry {
  boardId: string | null
  itemId: string | null
  /** task, note, deliverable, comment, board, status, type, label, edge */
  entity: string
  action: string
  summary: string
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
  note?: string
}

export async function recordActivity(tx: Sql, workspaceId: string, actor: Actor, e: ActivityEntry): Promise<void> {
  await tx.query(
    `INSERT INTO project_activity (id, workspace_id, board_id, item_id, entity, action, summary, actor, before, after, note)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8::jsonb, $9::jsonb, $10::jsonb, $11)`,
    [randomUUID(), workspaceId, e.boardId, e.itemId, e.entity, e.action, e.summary, actorJson(actor),
      e.before === null ? null : JSON.stringify(e.before), e.after === null ? null : JSON.stringify(e.after), e.note ?? ''])
}

/** Entries of one actor in one statement, in order (a batch of changes). */
export async function recordActivities(tx: Sql, workspaceId: string, actor: Actor, entries: readonly ActivityEntry[]): Promise<void> {
  if (entries.length === 0) return
  const docs = entries.map((e, ord) => ({
    ord, id: randomUUID(), board_id: e.boardId, item_id: e.itemId, entity: e.entity, action: e.action, summary: e.summary, before: e.before, after: e.after, note: e.note ?? '',
  }))
  await tx.query(
    `INSERT INTO project_activity (id, workspace_id, board_id, item_id, entity, action, summary, actor, before, after, note)
     SELECT v.id, $1, v.board_id, v.item_id, v.entity, v.action, v.summary, $2::jsonb, v.before, v.after, v.note
     FROM jsonb_to_recordset($3::jsonb) AS v(ord integer, id uuid, board_id uuid, item_id uuid, entity text, action text, summary text, before jsonb, after jsonb, note text)
     ORDER BY v.ord`, [workspaceId, actorJson(actor), JSON.stringify(docs)])
}

/** The fields of `after` whose values differ from `before`, as two small objects. */
export function diff(before: Record<string, unknown>, after: Record<string, unknown>): { before: Record<string, unknown>; after: Record<string, unknown> } | null {
  const b: Record<string, unknown> = {}
  const a: Record<string, unknown> = {}
  for (const k of Object.keys(after)) {
    if (after[k] === undefined) continue
    if (JSON.stringify(before[k] ?? null) === JSON.stringify(after[k] ?? null)) continue
    b[k] = before[k] ?? null
    a[k] = after[k] ?? null
  }
  return Object.keys(a).length === 0 ? null : { before: b, after: a }
}

export interface ActivityView {
  id: string
  board_id: string | null
  item_id: string | null
  entity: string
  action: string
  summary: string
  actor: { token_id: string; user_id: number | null; owner: boolean }
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
  note: string
  created_at: string
}

export interface ActivityRow extends Omit<ActivityView, 'created_at'> {
  seq: string
  created_at: Date
}

export function toActivity(r: ActivityRow): ActivityView {
  return {
    id: r.id, board_id: r.board_id, item_id: r.item_id, entity: r.entity, action: r.action, summary: r.summary,
    actor: r.actor, before: r.before, after: r.after, note: r.note, created_at: new Date(r.created_at).toISOString(),
  }
}

export const ACTIVITY_COLS = 'seq::text AS seq, id, board_id, item_id, entity, action, summary, actor, before, after, note, created_at'
