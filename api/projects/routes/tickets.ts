// Cloud tickets beyond the contract's list route (which stays in tasks.ts):
// create, read with replies, reply. The contract has the TicketCreate and Reply
// schemas but shows no route for them; these are Lookout's own.
import type { FastifyInstance } from 'fastify'
import { principalOf } from '../../auth/plugin.ts'
import { canReach } from '../../../workspace/index.ts'
import { ForbiddenError } from '../../../core/index.ts'
import { FILTER_QUERY, REPLY, TICKET_CREATE } from '../../../workspace/index.ts'
import { ITEM_PARAMS, WORKSPACE_PARAMS } from '../../../workspace/index.ts'
import { createTicket, getTicket, replyToTicket, type ReplyInput, type TicketCreateInput } from '../../../workspace/index.ts'
import type { FilterQuery } from './boards.ts'
import { CLOUD_READ, CLOUD_WRITE, P, afterKey, ctxOf, pageBody, parts, type ProjectRouteOptions } from './common.ts'

type ItemParams = { item_id: string }

const EXTENSION = { 'x-lookout-extension': true } as const

export async function ticketRoutes(app: FastifyInstance, { db, cursors }: ProjectRouteOptions): Promise<void> {
  app.post(`${P}/tickets`, {
    config: CLOUD_WRITE,
    schema: {
      summary: 'Raise a service ticket (Lookout extension: the contract has TicketCreate but shows no route)',
      description: 'Creates the ticket and its work task (kind service_ticket, same id). 201; an identical replay 200; the key with other content 409.',
      ...EXTENSION, params: WORKSPACE_PARAMS, body: TICKET_CREATE,
    },
  }, async (req, reply) => {
    const { body } = parts<TicketCreateInput>(req)
    // A credential limited to some resources cannot raise tickets against the others.
    if (body.resource != null && !canReach(principalOf(req), body.resource)) throw new ForbiddenError('the credential has no access to this resource')
    const out = await createTicket(ctxOf(req, db), body)
    reply.code(out.status)
    return out.body
  })

  app.get(`${P}/tickets/:item_id`, {
    config: CLOUD_READ,
    schema: {
      summary: 'A ticket with a page of its replies, oldest first (Lookout extension)',
      description: '`cursor` and `limit` page the replies, `q` filters them; `board_id` and `deleted` narrow the read like any item\'s.',
      ...EXTENSION, params: ITEM_PARAMS, querystring: FILTER_QUERY,
    },
  }, async (req) => {
    const { query: q, params } = parts<never, FilterQuery, ItemParams>(req)
    const { ticket, replies } = await getTicket(ctxOf(req, db), params.item_id, q, q.limit, afterKey(cursors, 'ticket-replies', q.cursor))
    const p = pageBody(cursors, 'ticket-replies', replies)
    return { ...ticket, replies: p.items, next_cursor: p.next_cursor }
  })

  app.post(`${P}/tickets/:item_id/replies`, {
    config: CLOUD_WRITE,
    schema: {
      summary: 'Reply to a ticket (Lookout extension: the contract has Reply but shows no route)',
      description: '201; an identical replay 200; the key with other content 409. Internal replies need a staff credential.',
      ...EXTENSION, params: ITEM_PARAMS, body: REPLY,
    },
  }, async (req, reply) => {
    const { body, params } = parts<ReplyInput, never, ItemParams>(req)
    const out = await replyToTicket(ctxOf(req, db), params.item_id, body)
    reply.code(out.status)
    return out.body
  })
}
