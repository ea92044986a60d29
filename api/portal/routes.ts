// Owner-only routes of the portal connection (socket only; every HTTP grant,
// act-as included, gets 403): connect, status, disconnect, a sync round now,
// conflicts and catalogue reviews, and the portal-backed reads.
import type { FastifyInstance } from 'fastify'
import { principalOf } from '../auth/plugin.ts'
import type { PortalService } from '../../desktop/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

const OWNER = { auth: { contract: 'desktop', scope: null, ownerOnly: true }, access: OWNER_ONLY } as const
const uuid = { type: 'string', format: 'uuid' } as const
const WS_QUERY = { type: 'object', additionalProperties: false, properties: { workspace_id: uuid } } as const
const RESOURCE_QUERY = {
  type: 'object', additionalProperties: false, required: ['resource_id'],
  properties: { resource_id: uuid, workspace_id: uuid },
} as const
const LOGS_QUERY = {
  type: 'object', additionalProperties: false, required: ['resource_id'],
  properties: {
    resource_id: uuid, workspace_id: uuid,
    cursor: { type: 'string', maxLength: 4096 },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 100 },
    start: { type: 'string', maxLength: 64 },
    end: { type: 'string', maxLength: 64 },
    severity: { type: 'string', maxLength: 16 },
    q: { type: 'string', maxLength: 1000 },
  },
} as const

export async function portalRoutes(app: FastifyInstance, opts: { portal: PortalService }): Promise<void> {
  const { portal } = opts
  const ws = (req: Parameters<typeof principalOf>[0]) => principalOf(req).workspaceId

  app.post('/v1/portal/connection', {
    config: OWNER,
    schema: {
      summary: 'Connect this workspace to its portal (a Lookout cloud) with a cloud token; the token is sealed and never returned (owner only)',
      querystring: WS_QUERY,
      body: {
        type: 'object', additionalProperties: false, required: ['url', 'token'],
        properties: { url: { type: 'string', minLength: 1, maxLength: 2048 }, token: { type: 'string', minLength: 1, maxLength: 4096 } },
      },
    },
  }, async (req) => portal.connect(ws(req), req.body as { url: string; token: string }))

  app.get('/v1/portal/connection', {
    config: OWNER, schema: { summary: 'Portal connection state, last sync, pending operations, last error, conflicts (owner only)', querystring: WS_QUERY },
  }, async (req) => portal.status(ws(req)))

  app.delete('/v1/portal/connection', {
    config: OWNER, schema: { summary: 'Disconnect: the token is forgotten; the outbox and the id map stay (owner only)', querystring: WS_QUERY },
  }, async (req) => portal.disconnect(ws(req)))

  app.post('/v1/portal/sync', {
    config: OWNER, schema: { summary: 'Run a sync round now and return its outcome (owner only)', querystring: WS_QUERY },
  }, async (req) => portal.syncNow(ws(req)))

  app.get('/v1/portal/conflicts', {
    config: OWNER, schema: { summary: 'Outbox operations the portal refused (409 conflicts and other refusals), for the owner (owner only)', querystring: WS_QUERY },
  }, async (req) => portal.conflicts(ws(req)))

  app.post('/v1/portal/conflicts/:seq', {
    config: OWNER,
    schema: {
      summary: 'Retry (the local values are sent again against the portal\'s current revision) or drop a refused operation (owner only)',
      querystring: WS_QUERY,
      params: { type: 'object', required: ['seq'], properties: { seq: { type: 'string', pattern: '^[0-9]{1,18}$' } } },
      body: { type: 'object', additionalProperties: false, required: ['action'], properties: { action: { type: 'string', enum: ['retry', 'drop'] } } },
    },
  }, async (req) => portal.resolveConflict(ws(req), (req.params as { seq: string }).seq, (req.body as { action: 'retry' | 'drop' }).action))

  app.get('/v1/portal/reviews', {
    config: OWNER, schema: { summary: 'Catalogue entries changed on both sides that need review (owner only)', querystring: WS_QUERY },
  }, async (req) => portal.reviews(ws(req)))

  app.post('/v1/portal/reviews/:id', {
    config: OWNER,
    schema: {
      summary: 'Resolve a catalogue review: keep the local or the portal value (owner only)',
      querystring: WS_QUERY,
      params: { type: 'object', required: ['id'], properties: { id: uuid } },
      body: { type: 'object', additionalProperties: false, required: ['keep'], properties: { keep: { type: 'string', enum: ['local', 'portal'] } } },
    },
  }, async (req) => portal.resolveReview(ws(req), (req.params as { id: string }).id, (req.body as { keep: 'local' | 'portal' }).keep))

  app.get('/v1/portal/logs', {
    config: OWNER,
    schema: {
      summary: 'The portal\'s logs of a local resource (mapped by external_id), with the connection\'s live permissions; fails offline, never substitutes local results (owner only)',
      querystring: LOGS_QUERY,
    },
  }, async (req) => {
    const { resource_id: rid, workspace_id: _w, ...q } = req.query as { resource_id: string; workspace_id?: string } & Record<string, string | number | undefined>
    return portal.logs(ws(req), rid, q)
  })

  app.get('/v1/portal/monitoring', {
    config: OWNER,
    schema: {
      summary: 'The portal\'s health metadata of a local resource (mapped by external_id); fails offline, never substitutes local results (owner only)',
      querystring: RESOURCE_QUERY,
    },
  }, async (req) => portal.monitoring(ws(req), (req.query as { resource_id: string }).resource_id))
}
