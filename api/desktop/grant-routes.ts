// Grant routes of the desktop service, on the owner socket only (desktop/grants.ts keeps the rules).
import type { FastifyInstance } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { GRANT_CREATE, createGrant, grantOf, listGrants, revokeGrant, type GrantBody } from '../../desktop/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

const uuid = { type: 'string', format: 'uuid' } as const
const OWNER = { auth: { contract: 'desktop', scope: null, ownerOnly: true }, access: OWNER_ONLY } as const
const WS_QUERY = { type: 'object', additionalProperties: false, properties: { workspace_id: uuid } } as const
const ID_PARAMS = { type: 'object', required: ['id'], properties: { id: uuid } } as const

export async function grantRoutes(app: FastifyInstance, opts: { db: Sql }): Promise<void> {
  const { db } = opts

  app.get('/v1/grants', {
    config: OWNER, schema: { summary: 'Grants of the workspace, revoked ones included (never their tokens; owner only)', querystring: WS_QUERY },
  }, async (req) => ({ items: await listGrants(db, principalOf(req).workspaceId), next_cursor: null }))

  app.post('/v1/grants', {
    config: OWNER, schema: { summary: 'Create a scoped grant; its token is shown once (owner only)', querystring: WS_QUERY, body: GRANT_CREATE },
  }, async (req, reply) => {
    const grant = await createGrant(db, principalOf(req).workspaceId, req.body as GrantBody)
    reply.code(201)
    return grant
  })

  app.get('/v1/grants/:id', {
    config: OWNER, schema: { summary: 'One grant (never its token; owner only)', params: ID_PARAMS, querystring: WS_QUERY },
  }, async (req) => grantOf(db, principalOf(req).workspaceId, (req.params as { id: string }).id))

  app.delete('/v1/grants/:id', {
    config: OWNER, schema: { summary: 'Revoke a grant: its token stops working at once (owner only)', params: ID_PARAMS, querystring: WS_QUERY },
  }, async (req) => revokeGrant(db, principalOf(req).workspaceId, (req.params as { id: string }).id))
}
