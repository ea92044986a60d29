// A desktop workspace shared with a portal is also named by the portal's
// workspace uuid (the shared workspace id): the lookups other stages make of
// the portal connection (desktop/portal/connection.ts keeps it), asked here so
// that none of them names the desktop's table.
import type { Sql } from '../core/index.ts'

/** The local workspace connected to this portal workspace, or null. */
export async function workspaceOfPortalAlias(db: Sql, portalWorkspaceId: string): Promise<string | null> {
  const r = await db.query<{ workspace_id: string }>('SELECT workspace_id FROM portal_connection WHERE portal_workspace_id = $1 LIMIT 1', [portalWorkspaceId])
  return r.rows[0]?.workspace_id ?? null
}

/** Whether the local workspace is connected to this portal workspace. */
export async function isPortalAliasOf(db: Sql, portalWorkspaceId: string, workspaceId: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM portal_connection WHERE portal_workspace_id = $1 AND workspace_id = $2', [portalWorkspaceId, workspaceId])
  return r.rows.length > 0
}
