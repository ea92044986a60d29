// Owner-only log sender management: named, write-only tokens holding exactly
// logs:write on one resource, shown once; and the setup metadata a sender needs.
import type { FastifyInstance } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { createToken, listTokens, revokeToken } from '../../workspace/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { getResource } from '../../workspace/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

export interface SenderRoutesOptions {
  db: Sql
}

const owner = { auth: { contract: 'desktop', scope: null, ownerOnly: true }, access: OWNER_ONLY } as const

const SETUP_QUERY = {
  type: 'object',
  additionalProperties: false,
  required: ['resource_id'],
  properties: { resource_id: { type: 'string', format: 'uuid' }, workspace_id: { type: 'string', format: 'uuid' } },
} as const

const SENDER_CREATE = {
  type: 'object',
  additionalProperties: false,
  required: ['resource_id', 'name'],
  properties: {
    resource_id: { type: 'string', format: 'uuid' },
    name: { type: 'string', minLength: 1, maxLength: 120 },
  },
} as const

const SENDER_PARAMS = {
  type: 'object',
  required: ['id'],
  properties: { id: { type: 'string', format: 'uuid' } },
} as const

function endpoints(workspaceId: string, resourceId: string) {
  return {
    otlp_logs_path: `/v1/workspaces/${workspaceId}/resources/${resourceId}/otlp/v1/logs`,
    json_logs_path: `/v1/workspaces/${workspaceId}/resources/${resourceId}/logs`,
    legacy_logs_path: '/v1/logs',
  }
}

export async function senderRoutes(app: FastifyInstance, opts: SenderRoutesOptions): Promise<void> {
  const { db } = opts

  app.get('/v1/logs/setup', { config: owner, schema: { querystring: SETUP_QUERY } }, async (req) => {
    const p = principalOf(req)
    const { resource_id: rid } = req.query as { resource_id: string }
    const resource = await getResource(db, p.workspaceId, rid)
    const senders = (await listTokens(db, p.workspaceId))
      .filter((t) => t.kind === 'sender' && t.revoked_at === null && Array.isArray(t.resources) && t.resources[0] === rid)
      .map((t) => ({ id: t.id, name: t.name, created_at: t.created_at }))
    return {
      workspace_id: p.workspaceId,
      resource: { id: resource.id, name: resource.name, external_id: resource.external_id },
      ...endpoints(p.workspaceId, rid),
      senders,
      limits: { legacy_batch_events: 100, legacy_batch_bytes: 1024 * 1024, legacy_message_length: 16000, legacy_event_bytes: 32000 },
    }
  })

  app.post('/v1/logs/senders', { config: owner, schema: { body: SENDER_CREATE } }, async (req, reply) => {
    const p = principalOf(req)
    const { resource_id: rid, name } = req.body as { resource_id: string; name: string }
    await getResource(db, p.workspaceId, rid)
    const t = await createToken(db, { workspaceId: p.workspaceId, scopes: ['logs:write'], resources: [rid], name, kind: 'sender' })
    reply.code(201)
    return { id: t.id, name, resource_id: rid, token: t.token, ...endpoints(p.workspaceId, rid) }
  })

  app.delete('/v1/logs/senders/:id', { config: owner, schema: { params: SENDER_PARAMS } }, async (req) => {
    const p = principalOf(req)
    const { id } = req.params as { id: string }
    const sender = (await listTokens(db, p.workspaceId)).find((t) => t.id === id && t.kind === 'sender')
    if (sender === undefined || !(await revokeToken(db, id, p.workspaceId))) throw new NotFoundError('sender token')
    return { id, revoked: true }
  })
}
