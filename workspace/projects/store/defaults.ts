// A workspace's project area is created on first use: a default board with
// three statuses and a default task type. Created once under the primary key of
// project_workspaces, so concurrent first requests agree on one default board.
import { randomBytes, randomUUID } from 'node:crypto'
import type { Database, Sql } from '../../../core/index.ts'

/** A fresh 64-character catalogue revision token. */
export function newCatalogueToken(): string {
  return randomBytes(32).toString('hex')
}

export const DEFAULT_STATUSES = [
  { name: 'To do', category: 'todo', color: 'gray' },
  { name: 'In progress', category: 'doing', color: 'blue' },
  { name: 'Done', category: 'done', color: 'green' },
] as const

/** Inserts a board with the default statuses (the first is the default). */
export async function insertBoard(tx: Sql, workspaceId: string, id: string, name: string): Promise<void> {
  await tx.query('INSERT INTO project_boards (id, workspace_id, name, statuses_token) VALUES ($1, $2, $3, $4)',
    [id, workspaceId, name, newCatalogueToken()])
  let position = 0
  for (const s of DEFAULT_STATUSES) {
    await tx.query(
      `INSERT INTO project_statuses (id, workspace_id, board_id, name, category, color, position, is_default)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [randomUUID(), workspaceId, id, s.name, s.category, s.color, position, position === 0])
    position++
  }
}

// The defaults never go away once made, so each process remembers which it has seen.
const known = new WeakMap<object, Map<string, string>>()

/** Forgets the remembered default board (the portal sync gave it its canonical id). */
export function forgetDefaultBoard(db: object, workspaceId: string): void {
  known.get(db)?.delete(workspaceId)
}

/** The workspace's default board id, creating the project area on first use. */
export async function ensureProject(db: Database, workspaceId: string): Promise<string> {
  let seen = known.get(db)
  if (seen === undefined) known.set(db, (seen = new Map()))
  const cached = seen.get(workspaceId)
  if (cached !== undefined) return cached
  const boardId = await db.transaction(async (tx) => {
    const fresh = randomUUID()
    const ins = await tx.query<{ default_board_id: string }>(
      `INSERT INTO project_workspaces (workspace_id, default_board_id, taxonomy_token) VALUES ($1, $2, $3)
       ON CONFLICT (workspace_id) DO NOTHING RETURNING default_board_id`, [workspaceId, fresh, newCatalogueToken()])
    if (ins.rows[0] === undefined) {
      const r = await tx.query<{ default_board_id: string }>('SELECT default_board_id FROM project_workspaces WHERE workspace_id = $1', [workspaceId])
      return (r.rows[0] as { default_board_id: string }).default_board_id
    }
    await insertBoard(tx, workspaceId, fresh, 'Board')
    await tx.query(
      `INSERT INTO project_taxonomy (id, workspace_id, kind, name, icon, position, is_default) VALUES ($1, $2, 'type', 'Task', 'task', 0, true)`,
      [randomUUID(), workspaceId])
    return fresh
  })
  seen.set(workspaceId, boardId)
  return boardId
}

/** Marks the project area as shared with a portal: new tasks then wait for the portal's numbers. */
export async function markPortalShared(db: Sql, workspaceId: string): Promise<void> {
  await db.query('UPDATE project_workspaces SET portal_shared = true WHERE workspace_id = $1 AND NOT portal_shared', [workspaceId])
}

/** No longer shared with a portal: local numbering resumes after the highest number the workspace holds. */
export async function unmarkPortalShared(db: Sql, workspaceId: string): Promise<void> {
  await db.query(
    `UPDATE project_workspaces w SET portal_shared = false,
       next_number = GREATEST(w.next_number, (SELECT coalesce(max(number), 0) + 1 FROM project_items i WHERE i.workspace_id = w.workspace_id))
     WHERE workspace_id = $1`, [workspaceId])
}
