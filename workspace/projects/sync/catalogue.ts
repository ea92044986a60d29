// The catalogues (boards, statuses, types and labels) as the desktop's portal
// sync reads and writes them (desktop/portal/catalogues.ts): the local entries
// it compares with the portal's, the portal's entries inserted with the
// portal's ids, and a portal change written locally. Each write renews the
// catalogue's revision token, so a client holding the old one is refused.
import type { Sql } from '../../../core/index.ts'
import { newCatalogueToken as token } from '../store/defaults.ts'

export interface SyncedBoard { id: string; name: string; is_default: boolean }
export interface SyncedStatus { id: string; name: string; category: string; color: string }
export interface SyncedChoice { id: string; kind: 'type' | 'label'; name: string; icon: string | null; archived: boolean }

/** The live boards, oldest first, the default one marked. */
export async function liveBoards(db: Sql, ws: string): Promise<SyncedBoard[]> {
  return (await db.query<SyncedBoard>(
    `SELECT b.id, b.name, b.id = w.default_board_id AS is_default FROM project_boards b JOIN project_workspaces w ON w.workspace_id = b.workspace_id
     WHERE b.workspace_id = $1 AND b.archived_at IS NULL ORDER BY b.seq`, [ws])).rows
}

/** Whether a board of this id exists in any workspace (ids are unique across them). */
export async function boardIdTaken(db: Sql, id: string): Promise<boolean> {
  return (await db.query('SELECT 1 FROM project_boards WHERE id = $1', [id])).rows.length > 0
}

export async function boardExists(db: Sql, ws: string, id: unknown): Promise<boolean> {
  return (await db.query('SELECT 1 FROM project_boards WHERE workspace_id = $1 AND id = $2', [ws, id])).rows.length > 0
}

/** A portal board not known here (an archived one still holds tasks: it exists here too, archived). */
export async function insertPortalBoard(db: Sql, ws: string, id: string, name: string, archived: boolean): Promise<void> {
  if (archived) {
    await db.query(
      `INSERT INTO project_boards (id, workspace_id, name, statuses_token, archived_at) VALUES ($1, $2, $3, $4, now()) ON CONFLICT (id) DO NOTHING`,
      [id, ws, name, token()])
  } else {
    await db.query('INSERT INTO project_boards (id, workspace_id, name, statuses_token) VALUES ($1, $2, $3, $4) ON CONFLICT (id) DO NOTHING', [id, ws, name, token()])
  }
}

/** A board's statuses not retired, in their order. */
export async function liveStatuses(db: Sql, ws: string, boardId: string): Promise<SyncedStatus[]> {
  return (await db.query<SyncedStatus>(
    'SELECT id, name, category, color FROM project_statuses WHERE workspace_id = $1 AND board_id = $2 AND retired_at IS NULL ORDER BY position, id',
    [ws, boardId])).rows
}

export async function insertPortalStatus(db: Sql, ws: string, boardId: string, id: string, v: Record<string, unknown>, position: number): Promise<void> {
  await db.query(
    `INSERT INTO project_statuses (id, workspace_id, board_id, name, category, color, position, is_default)
     VALUES ($1, $2, $3, $4, $5, $6, $7, false) ON CONFLICT (id) DO NOTHING`,
    [id, ws, boardId, v.name, v.category, v.color, position])
  await db.query('UPDATE project_boards SET statuses_token = $3 WHERE workspace_id = $1 AND id = $2', [ws, boardId, token()])
}

/** The board a status belongs to. */
export async function statusBoard(db: Sql, id: string): Promise<string | undefined> {
  return (await db.query<{ board_id: string }>('SELECT board_id FROM project_statuses WHERE id = $1', [id])).rows[0]?.board_id
}

/** Every type and label, archived ones included. */
export async function taxonomyChoices(db: Sql, ws: string): Promise<SyncedChoice[]> {
  return (await db.query<SyncedChoice>(
    `SELECT id, kind, name, icon, archived_at IS NOT NULL AS archived FROM project_taxonomy WHERE workspace_id = $1 ORDER BY kind, position, id`, [ws])).rows
}

export async function insertPortalChoice(db: Sql, ws: string, kind: 'type' | 'label', id: string, v: Record<string, unknown>): Promise<void> {
  await db.query(
    `INSERT INTO project_taxonomy (id, workspace_id, kind, name, icon, position, archived_at)
     VALUES ($1, $2, $3, $4, $5, (SELECT coalesce(max(position) + 1, 0) FROM project_taxonomy WHERE workspace_id = $2 AND kind = $3),
       CASE WHEN $6::boolean THEN now() END) ON CONFLICT (id) DO NOTHING`,
    [id, ws, kind, v.name, v.icon, v.archived === true])
  await db.query('UPDATE project_workspaces SET taxonomy_token = $2 WHERE workspace_id = $1', [ws, token()])
}

/** Writes a catalogue entry's values (the portal's change), renewing the catalogue's token. */
export async function writeCatalogueEntry(db: Sql, ws: string, kind: 'status' | 'type' | 'label', id: string, v: Record<string, unknown>, boardId?: string): Promise<void> {
  if (kind === 'status') {
    await db.query('UPDATE project_statuses SET name = $3, category = $4, color = $5, updated_at = now() WHERE workspace_id = $1 AND id = $2',
      [ws, id, v.name, v.category, v.color])
    await db.query('UPDATE project_boards SET statuses_token = $3 WHERE workspace_id = $1 AND id = $2', [ws, boardId, token()])
  } else {
    await db.query(
      `UPDATE project_taxonomy SET name = $3, icon = $4, archived_at = CASE WHEN $5::boolean THEN coalesce(archived_at, now()) ELSE NULL END,
         updated_at = now() WHERE workspace_id = $1 AND id = $2`, [ws, id, v.name, v.icon ?? null, v.archived === true])
    await db.query('UPDATE project_workspaces SET taxonomy_token = $2 WHERE workspace_id = $1', [ws, token()])
  }
}
