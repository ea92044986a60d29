// Grants: scoped bearer tokens the owner gives agents and senders, created,
// listed and revoked on the owner socket only. The token is shown once at
// creation; only its hash is stored (api/auth/tokens.ts).
import type { FastifyInstance } from 'fastify'
import type { Sql } from '../db/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { createToken, listTokens, revokeToken, type TokenInfo } from '../auth/tokens.ts'
import { BadRequestError, NotFoundError } from '../errors.ts'
import { ALL_SCOPES, SCOPES } from '../scopes.ts'

const uuid = { type: 'string', format: 'uuid' } as const
const OWNER = { auth: { contract: 'desktop', scope: null, ownerOnly: true } } as const
const WS_QUERY = { type: 'object', additionalProperties: false, properties: { workspace_id: uuid } } as const
const ID_PARAMS = { type: 'object', required: ['id'], properties: { id: uuid } } as const
export const GRANT_KINDS = ['access', 'sender'] as const

const GRANT_CREATE = {
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

interface GrantBody {
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

async function grantOf(db: Sql, ws: string, id: string): Promise<TokenInfo> {
  const g = (await listTokens(db, ws)).find((t) => t.id === id.toLowerCase())
  if (g === undefined) throw new NotFoundError('grant')
  return g
}

export async function grantRoutes(app: FastifyInstance, opts: { db: Sql }): Promise<void> {
  const { db } = opts

  app.get('/v1/grants', {
    config: OWNER, schema: { summary: 'Grants of the workspace, revoked ones included (never their tokens; owner only)', querystring: WS_QUERY },
  }, async (req) => ({ items: await listTokens(db, principalOf(req).workspaceId), next_cursor: null }))

  app.post('/v1/grants', {
    config: OWNER, schema: { summary: 'Create a scoped grant; its token is shown once (owner only)', querystring: WS_QUERY, body: GRANT_CREATE },
  }, async (req, reply) => {
    const ws = principalOf(req).workspaceId
    const b = req.body as GrantBody
    const resources = b.resources === undefined || b.resources === 'all' ? 'all' : b.resources.map((r) => r.toLowerCase())
    checkShape(b, resources)
    if (resources !== 'all') {
      const found = await db.query<{ id: string }>('SELECT id FROM resources WHERE workspace_id = $1 AND id = ANY($2::uuid[])', [ws, resources])
      const have = new Set(found.rows.map((r) => r.id))
      const missing = resources.find((r) => !have.has(r))
      if (missing !== undefined) throw new NotFoundError(`resource ${missing}`)
    }
    const t = await createToken(db, { workspaceId: ws, scopes: b.scopes, resources, name: b.name, kind: b.kind })
    reply.code(201)
    return { ...(await grantOf(db, ws, t.id)), token: t.token }
  })

  app.get('/v1/grants/:id', {
    config: OWNER, schema: { summary: 'One grant (never its token; owner only)', params: ID_PARAMS, querystring: WS_QUERY },
  }, async (req) => grantOf(db, principalOf(req).workspaceId, (req.params as { id: string }).id))

  app.delete('/v1/grants/:id', {
    config: OWNER, schema: { summary: 'Revoke a grant: its token stops working at once (owner only)', params: ID_PARAMS, querystring: WS_QUERY },
  }, async (req) => {
    const ws = principalOf(req).workspaceId
    const id = (req.params as { id: string }).id.toLowerCase()
    if (!(await revokeToken(db, id, ws))) throw new NotFoundError('live grant')
    return grantOf(db, ws, id)
  })
}
