// Webhook management (/v1/webhooks): owner-only operations on the desktop's
// Unix socket; no HTTP grant reaches them. The workspace is the owner's
// (named with ?workspace_id= or X-Lookout-Workspace, else the first one).
import type { FastifyInstance, FastifyRequest } from 'fastify'
import { principalOf } from '../auth/plugin.ts'
import type { CursorCodec } from '../../core/index.ts'
import type { Database } from '../../core/index.ts'
import { BadRequestError } from '../../core/index.ts'
import { wake } from '../../core/index.ts'
import { RESTORE_BODY, restoreWebhooks } from '../../alerting/index.ts'
import { DELIVERIES_QUERY, DELIVERY_PARAMS, WEBHOOK_CREATE, WEBHOOK_PARAMS, WEBHOOK_PATCH, WORKSPACE_QUERY } from '../../alerting/index.ts'
import {
  createSubscription, deleteSubscription, getSubscriptionRow, listDeliveries, listSubscriptions, queueTest, retryDelivery, subscriptionView,
  updateSubscription, type DeliveryView, type SubscriptionInput, type SubscriptionPatch,
} from '../../alerting/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

export interface WebhookRoutesOptions {
  db: Database
  cursors: CursorCodec
  /** LOOKOUT_SECRET_KEY: seals signing secrets at rest when configured. */
  secretKey?: Buffer
}

const OWNER = { auth: { contract: 'desktop', scope: null, ownerOnly: true }, access: OWNER_ONLY } as const
const CURSOR_KIND = 'webhook-deliveries'

const wsOf = (req: FastifyRequest) => principalOf(req).workspaceId
const idOf = (req: FastifyRequest) => (req.params as { id: string }).id

export async function webhookRoutes(app: FastifyInstance, opts: WebhookRoutesOptions): Promise<void> {
  const { db, cursors, secretKey } = opts

  app.get('/v1/webhooks', { config: OWNER, schema: { querystring: WORKSPACE_QUERY } }, async (req) => ({ items: await listSubscriptions(db, wsOf(req)) }))

  app.post('/v1/webhooks', { config: OWNER, schema: { querystring: WORKSPACE_QUERY, body: WEBHOOK_CREATE } }, async (req, reply) => {
    const { subscription, secret } = await createSubscription(db, wsOf(req), req.body as SubscriptionInput, secretKey)
    reply.code(201)
    return { ...subscription, secret }
  })

  app.post('/v1/webhooks/restore', {
    config: OWNER,
    schema: { summary: 'Workspace restore: clear every subscription and pending delivery, fresh source identity (owner only)', body: RESTORE_BODY },
  }, async () => restoreWebhooks(db))

  app.patch('/v1/webhooks/:id', { config: OWNER, schema: { params: WEBHOOK_PARAMS, querystring: WORKSPACE_QUERY, body: WEBHOOK_PATCH } }, async (req) => {
    const out = await updateSubscription(db, wsOf(req), idOf(req), req.body as SubscriptionPatch, secretKey, Date.now())
    return { ...out.subscription, ...(out.secret !== undefined ? { secret: out.secret } : {}), cancelled_deliveries: out.cancelled }
  })

  app.delete('/v1/webhooks/:id', { config: OWNER, schema: { params: WEBHOOK_PARAMS, querystring: WORKSPACE_QUERY } }, async (req) => {
    await deleteSubscription(db, wsOf(req), idOf(req))
    return { deleted: idOf(req).toLowerCase() }
  })

  app.get('/v1/webhooks/:id/deliveries', { config: OWNER, schema: { params: WEBHOOK_PARAMS, querystring: DELIVERIES_QUERY } }, async (req) => {
    const s = await getSubscriptionRow(db, wsOf(req), idOf(req))
    const q = req.query as { cursor?: string; limit: number; state?: DeliveryView['state'] }
    let before: number | null = null
    if (q.cursor !== undefined) {
      const v = cursors.decode(CURSOR_KIND, q.cursor)
      if (v === null || v.length !== 2 || v[0] !== s.id || typeof v[1] !== 'number') throw new BadRequestError('invalid cursor')
      before = v[1]
    }
    const page = await listDeliveries(db, s.id, q.limit, before, q.state)
    return { subscription: subscriptionView(s), items: page.items, next_cursor: page.last === null ? null : cursors.encode(CURSOR_KIND, [s.id, page.last]) }
  })

  app.post('/v1/webhooks/:id/test', { config: OWNER, schema: { params: WEBHOOK_PARAMS, querystring: WORKSPACE_QUERY } }, async (req, reply) => {
    const s = await getSubscriptionRow(db, wsOf(req), idOf(req))
    const delivery = await queueTest(db, s, Date.now())
    wake('webhooks')
    reply.code(202)
    return delivery
  })

  app.post('/v1/webhooks/:id/deliveries/:delivery_id/retry', {
    config: OWNER, schema: { params: DELIVERY_PARAMS, querystring: WORKSPACE_QUERY },
  }, async (req, reply) => {
    const s = await getSubscriptionRow(db, wsOf(req), idOf(req))
    const delivery = await retryDelivery(db, s, (req.params as { delivery_id: string }).delivery_id, Date.now())
    wake('webhooks')
    reply.code(202)
    return delivery
  })
}
