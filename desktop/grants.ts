// Grants: scoped bearer tokens the owner gives agents and senders, created,
// listed and revoked on the owner socket only. The token is shown once at
// creation; only its hash is stored (workspace/identity/tokens.ts). The routes
// are api/desktop/grant-routes.ts.
import type { Sql } from '../core/index.ts'
import { createToken, listTokens, resourceSummaries, revokeToken, type TokenInfo } from '../workspace/index.ts'
import { BadRequestError, NotFoundError } from '../core/index.ts'
import { ALL_SCOPES, SCOPES } from '../workspace/index.ts'

const uuid = { type: 'string', format: 'uuid' } as const
export const GRANT_KINDS = ['access', 'sender'] as const

export const GRANT_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['name', 'scopes'],
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 120 },
    scopes: { type: 'array', minItems: 1, maxItems: ALL_SCOPES.length, uniqueItems: true, items: { type: 'string', enum: ALL_SCOPES } },
    resources: {
      description: '"all", or the resource ids the grant reaches (default all)',
      anyOf: [{ type: 'string', enum: ['all'] }, { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: uuid }],
    },
    kind: { type: 'string', enum: GRANT_KINDS, default: 'access' },
  },
} as const

export interface GrantBody {
  name: string
  scopes: string[]
  resources?: 'all' | string[]
  kind: (typeof GRANT_KINDS)[number]
}

/** Exact-grant scopes: a sender writes logs for one resource; a heartbeat grant has only monitor:heartbeat. */
function checkShape(b: GrantBody, resources: 'all' | string[]): void {
  if (b.kind === 'sender' && (b.scopes.length !== 1 || b.scopes[0] !== SCOPES.logsWrite || resources === 'all' || resources.length !== 1)) {
    throw new BadRequestError('a sender grant has exactly the logs:write scope and one resource')
  }
  if (b.scopes.includes(SCOPES.monitorHeartbeat) && (b.scopes.length !== 1 || resources === 'all')) {
    throw new BadRequestError('a heartbeat grant has only the monitor:heartbeat scope, for named resources')
  }
}

export async function grantOf(db: Sql, ws: string, id: string): Promise<TokenInfo> {
  const g = (await listTokens(db, ws)).find((t) => t.id === id.toLowerCase())
  if (g === undefined) throw new NotFoundError('grant')
  return g
}

/** Creates a grant after checking its shape and that every named resource exists; its token is in the answer once. */
export async function createGrant(db: Sql, ws: string, b: GrantBody): Promise<TokenInfo & { token: string }> {
  const resources = b.resources === undefined || b.resources === 'all' ? 'all' : b.resources.map((r) => r.toLowerCase())
  checkShape(b, resources)
  if (resources !== 'all') {
    const have = await resourceSummaries(db, ws, resources)
    const missing = resources.find((r) => !have.has(r))
    if (missing !== undefined) throw new NotFoundError(`resource ${missing}`)
  }
  const t = await createToken(db, { workspaceId: ws, scopes: b.scopes, resources, name: b.name, kind: b.kind })
  return { ...(await grantOf(db, ws, t.id)), token: t.token }
}

/** Revokes a live grant; the grant as it now stands. */
export async function revokeGrant(db: Sql, ws: string, id: string): Promise<TokenInfo> {
  const lower = id.toLowerCase()
  if (!(await revokeToken(db, lower, ws))) throw new NotFoundError('live grant')
  return grantOf(db, ws, lower)
}

export async function listGrants(db: Sql, ws: string): Promise<TokenInfo[]> {
  return listTokens(db, ws)
}
