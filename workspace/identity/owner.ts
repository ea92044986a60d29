// The local owner: every request on the owner Unix socket (0600, in the data
// directory or the user's private runtime directory) acts as the owner, with
// every scope on every resource. Its workspace is the one the request names
// (path, `workspace_id` query, or X-Lookout-Workspace; a shared workspace id
// was already translated to its local one by the edge), else the first one.
import type { FastifyRequest } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { ALL_SCOPES } from './scopes.ts'
import { isUuid, type Principal } from './tokens.ts'

export const OWNER_TOKEN_ID = 'owner'

export function ownerResolver(db: Sql): (req: FastifyRequest) => Promise<Principal> {
  const scopes: ReadonlySet<string> = new Set(ALL_SCOPES)
  return async (req) => {
    const named = (req.params as { workspace_id?: string }).workspace_id
      ?? (req.query as { workspace_id?: string } | undefined)?.workspace_id
      ?? (req.headers['x-lookout-workspace'] as string | undefined)
    let workspaceId = named !== undefined && isUuid(named) ? named.toLowerCase() : ''
    if (workspaceId === '') {
      const r = await db.query<{ id: string }>('SELECT id FROM workspaces ORDER BY created_at, id LIMIT 1')
      workspaceId = r.rows[0]?.id ?? '00000000-0000-0000-0000-000000000000'
    }
    return { tokenId: OWNER_TOKEN_ID, workspaceId, name: 'owner', kind: 'access', scopes, resourceIds: null, staffId: null }
  }
}
