// Acting with a stored grant on the owner socket. The stdio tool server's
// `--grant <id>` cannot present the grant's token (only its hash is stored),
// so it talks over the owner socket and names the grant in this header; the
// auth plugin then resolves the principal from the stored grant (scopes,
// resources, workspace, kind) and applies every check a bearer token gets.
// Honoured only on the owner socket: anywhere else the header is ignored and
// a bearer token is required as usual.
import type { Sql } from '../core/index.ts'
import { principalById, type Principal } from '../workspace/index.ts'

export const ACT_AS_GRANT_HEADER = 'x-lookout-act-as-grant'

/** The principal of a live (unrevoked) grant, or null when it is unknown, malformed or revoked. */
export function grantPrincipal(db: Sql, id: string): Promise<Principal | null> {
  // Ids are stored lowercase; a header may carry any case.
  return principalById(db, id.toLowerCase())
}
