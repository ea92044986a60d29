// Canonical ids for the desktop's portal sync (desktop/portal/id-map.ts keeps the
// map of old ids): a project record takes the portal's id, and its references
// follow (ON UPDATE CASCADE, projects migration 5, or rewritten here); a duplicate
// catalogue entry folds into the one holding the canonical id. Each runs in the
// caller's transaction; the sync's own bookkeeping stays with the caller.
import type { Sql } from '../../../core/index.ts'

export type CatalogueKind = 'board' | 'status' | 'type' | 'label'

/** A task's, note's or deliverable's id becomes the canonical one; its activity follows. */
export async function remapItemId(tx: Sql, ws: string, oldId: string, canonical: string): Promise<void> {
  await tx.query('UPDATE project_items SET id = $3 WHERE workspace_id = $1 AND id = $2', [ws, oldId, canonical])
  await tx.query('UPDATE project_activity SET item_id = $3 WHERE workspace_id = $1 AND item_id = $2', [ws, oldId, canonical])
}

/**
 * remapItemId for a batch of acknowledged creations, each also taking the portal's
 * number and origin 'portal': one statement per table for the whole batch (the
 * embedded PostgreSQL's cost is mostly per statement).
 */
export async function remapTaskIds(tx: Sql, ws: string, olds: readonly string[], ids: readonly string[], numbers: readonly (number | null)[]): Promise<void> {
  await tx.query(
    `UPDATE project_items p SET id = v.id, number = v.number, origin = 'portal'
     FROM unnest($2::uuid[], $3::uuid[], $4::integer[]) AS v(old, id, number) WHERE p.workspace_id = $1 AND p.id = v.old`,
    [ws, olds, ids, numbers])
  await tx.query(
    `UPDATE project_activity a SET item_id = v.id FROM unnest($2::uuid[], $3::uuid[]) AS v(old, id) WHERE a.workspace_id = $1 AND a.item_id = v.old`,
    [ws, olds, ids])
}

/** A catalogue entry's id becomes the canonical one; the ids that name it follow. */
export async function remapCatalogueId(tx: Sql, ws: string, kind: CatalogueKind, oldId: string, canonical: string): Promise<void> {
  switch (kind) {
    case 'board':
      await tx.query('UPDATE project_boards SET id = $3 WHERE workspace_id = $1 AND id = $2', [ws, oldId, canonical])
      await tx.query('UPDATE project_workspaces SET default_board_id = $3 WHERE workspace_id = $1 AND default_board_id = $2', [ws, oldId, canonical])
      await tx.query('UPDATE project_activity SET board_id = $3 WHERE workspace_id = $1 AND board_id = $2', [ws, oldId, canonical])
      break
    case 'status':
      await tx.query('UPDATE project_statuses SET id = $3 WHERE workspace_id = $1 AND id = $2', [ws, oldId, canonical])
      await tx.query('UPDATE project_statuses SET replacement_id = $3 WHERE workspace_id = $1 AND replacement_id = $2', [ws, oldId, canonical])
      await tx.query('UPDATE project_items SET status_id = $3 WHERE workspace_id = $1 AND status_id = $2', [ws, oldId, canonical])
      break
    case 'type':
      await tx.query('UPDATE project_taxonomy SET id = $3 WHERE workspace_id = $1 AND id = $2', [ws, oldId, canonical])
      await tx.query('UPDATE project_items SET type_id = $3 WHERE workspace_id = $1 AND type_id = $2', [ws, oldId, canonical])
      break
    case 'label':
      await tx.query('UPDATE project_taxonomy SET id = $3 WHERE workspace_id = $1 AND id = $2', [ws, oldId, canonical])
      await tx.query(
        `UPDATE project_items SET label_ids = array_replace(label_ids, $2::uuid, $3::uuid) WHERE workspace_id = $1 AND $2::uuid = ANY(label_ids)`,
        [ws, oldId, canonical])
      break
  }
}

/**
 * Folds a duplicate catalogue entry into the one holding the canonical id:
 * references move over and the duplicate goes. A board's statuses fold into the
 * canonical board's statuses of the same name (else of the same category), each
 * through `foldStatus` (the caller's fold, bookkeeping included); one without
 * either moves over.
 */
export async function foldCatalogueEntry(
  tx: Sql, ws: string, kind: CatalogueKind, dupId: string, canonical: string,
  foldStatus: (dupId: string, canonical: string) => Promise<void>,
): Promise<void> {
  switch (kind) {
    case 'board': {
      const dup = await tx.query<{ id: string; name: string; category: string }>('SELECT id, name, category FROM project_statuses WHERE workspace_id = $1 AND board_id = $2', [ws, dupId])
      const into = await tx.query<{ id: string; name: string; category: string }>(
        'SELECT id, name, category FROM project_statuses WHERE workspace_id = $1 AND board_id = $2 AND retired_at IS NULL ORDER BY position, id', [ws, canonical])
      await tx.query('UPDATE project_items SET board_id = $3 WHERE workspace_id = $1 AND board_id = $2', [ws, dupId, canonical])
      for (const s of dup.rows) {
        const match = into.rows.find((x) => x.name.toLowerCase() === s.name.toLowerCase()) ?? into.rows.find((x) => x.category === s.category)
        if (match === undefined) await tx.query('UPDATE project_statuses SET board_id = $3 WHERE workspace_id = $1 AND id = $2', [ws, s.id, canonical])
        else await foldStatus(s.id, match.id)
      }
      await tx.query('UPDATE project_workspaces SET default_board_id = $3 WHERE workspace_id = $1 AND default_board_id = $2', [ws, dupId, canonical])
      await tx.query('UPDATE project_activity SET board_id = $3 WHERE workspace_id = $1 AND board_id = $2', [ws, dupId, canonical])
      await tx.query('DELETE FROM project_boards WHERE workspace_id = $1 AND id = $2', [ws, dupId])
      break
    }
    case 'status':
      await tx.query('UPDATE project_statuses SET replacement_id = $3 WHERE workspace_id = $1 AND replacement_id = $2', [ws, dupId, canonical])
      await tx.query('UPDATE project_items SET status_id = $3 WHERE workspace_id = $1 AND status_id = $2', [ws, dupId, canonical])
      await tx.query('DELETE FROM project_statuses WHERE workspace_id = $1 AND id = $2', [ws, dupId])
      break
    case 'type':
      await tx.query('UPDATE project_items SET type_id = $3 WHERE workspace_id = $1 AND type_id = $2', [ws, dupId, canonical])
      // The default moves with the duplicate it was on.
      await tx.query(
        `UPDATE project_taxonomy SET is_default = true WHERE workspace_id = $1 AND id = $3
           AND EXISTS (SELECT 1 FROM project_taxonomy WHERE workspace_id = $1 AND id = $2 AND is_default)`, [ws, dupId, canonical])
      await tx.query('DELETE FROM project_taxonomy WHERE workspace_id = $1 AND id = $2', [ws, dupId])
      break
    case 'label':
      await tx.query(
        `UPDATE project_items SET label_ids = array_remove(label_ids, $2::uuid) || CASE WHEN $3::uuid = ANY(label_ids) THEN '{}'::uuid[] ELSE ARRAY[$3::uuid] END
         WHERE workspace_id = $1 AND $2::uuid = ANY(label_ids)`, [ws, dupId, canonical])
      await tx.query('DELETE FROM project_taxonomy WHERE workspace_id = $1 AND id = $2', [ws, dupId])
      break
  }
}
