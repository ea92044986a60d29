// Acting with a stored grant on the owner socket. The stdio tool server's
// `--grant <id>` cannot present the grant's token (only its hash is stored),
// so it talks over the owner socket and names the grant in this header; the
// auth plugin then resolves the principal from the stored grant (scopes,
// resources, workspace, kind) and applies every check a bearer token gets.
// Honoured only on the owner socket: anywhere else the header is ignored and
// a bearer token is required as usual.
import type { Sql } from '../core/index.ts'
import { isUuid, type Principal, type TokenKind } from '../workspace/index.ts'

export const ACT_AS_GRANT_HEADER = 'x-lookout-act-as-grant'

interface GrantRow {
  id: string
  workspace_id: string
  name: string
  kind: TokenKind
  scopes: string[]
  resource_ids: string[] | null
  staff_id: number | null
}

/** The principal of a live (unrevoked) grant, or null when it is unknown, malformed or revoked. */
export async function grantPrincipal(db: Sql, id: string): Promise<Principal | null> {
  if (!isUuid(id)) return null
  const r = await db.query<GrantRow>(
    'SELECT id, workspace_id, name, kind, scopes, resource_ids, staff_id FROM tokens WHERE id = $1 AND revoked_at IS NULL', [id.toLowerCase()])
  const row = r.rows[0]
  if (row === undefined) return null
  return {
    tokenId: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    kind: row.kind,
    scopes: new Set(row.scopes),
    resourceIds: row.resource_ids,
    staffId: row.staff_id,
  }
}
