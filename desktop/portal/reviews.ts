// Catalogue entries changed on both sides since they last agreed ("needs
// review"): listed for the owner, who keeps the desktop's or the portal's
// value. Keeping the portal's writes it locally; keeping the desktop's makes
// the portal's value the agreed base, so the next round sends the local one.
import type { Database } from '../../core/index.ts'
import { statusBoard, writeCatalogueEntry } from '../../workspace/index.ts'

export interface Review {
  id: string
  kind: 'status' | 'type' | 'label'
  entry_id: string
  local_value: Record<string, unknown>
  portal_value: Record<string, unknown>
  created_at: string
}

export async function listReviews(db: Database, ws: string): Promise<Review[]> {
  const r = await db.query<Review>(
    `SELECT id, kind, entry_id, local_value, portal_value, to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS created_at
     FROM portal_reviews WHERE workspace_id = $1 AND state = 'open' ORDER BY created_at, id`, [ws])
  return r.rows
}

export async function resolveReview(db: Database, ws: string, id: string, keep: 'local' | 'portal'): Promise<boolean> {
  return db.transaction(async (tx) => {
    const r = await tx.query<Review>(`SELECT id, kind, entry_id, local_value, portal_value FROM portal_reviews WHERE workspace_id = $1 AND id = $2 AND state = 'open' FOR UPDATE`, [ws, id])
    const rev = r.rows[0]
    if (rev === undefined) return false
    if (keep === 'portal') {
      const board = rev.kind === 'status' ? await statusBoard(tx, rev.entry_id) : undefined
      await writeCatalogueEntry(tx, ws, rev.kind, rev.entry_id, rev.portal_value, board)
    }
    await tx.query(
      `INSERT INTO portal_catalogue_base (workspace_id, kind, id, value) VALUES ($1, $2, $3, $4)
       ON CONFLICT (workspace_id, id) DO UPDATE SET value = EXCLUDED.value`, [ws, rev.kind, rev.entry_id, JSON.stringify(rev.portal_value)])
    await tx.query(`UPDATE portal_reviews SET state = 'resolved', resolved_at = now() WHERE id = $1`, [id])
    return true
  })
}
