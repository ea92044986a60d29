// The console's inbox (Lookout extension on the cloud routes): the signed-in
// principal's notifications on the resources it may read, its unread count,
// and its own read marks. Reading needs monitor:read; marking read changes
// only the caller's own marks, so it needs no more.
import type { FastifyInstance } from 'fastify'
import type { CursorCodec, Database } from '../../core/index.ts'
import { RequestInvalid, detail } from '../../core/index.ts'
import { SCOPES, WORKSPACE_PARAMS } from '../../workspace/index.ts'
import { inboxMark, inboxPage, inboxReadAll, inboxUnread, subscriberOf, type InboxAction, type InboxFilter, type Reader } from '../../alerting/index.ts'
import { principalOf } from '../auth/plugin.ts'
import type { FastifyRequest } from 'fastify'
import { INBOX_ACTION, INBOX_ACTION_RESPONSE, INBOX_QUERY, INBOX_RESPONSE } from '../monitoring/overview-schemas.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

const P = '/v1/workspaces/:workspace_id/notifications'
const READ = { auth: { contract: 'cloud', scope: SCOPES.monitorRead }, access: [SCOPES.monitorRead] } as const
const CURSOR = 'inbox'

function readerOf(req: FastifyRequest): Reader {
  const p = principalOf(req)
  return { workspaceId: p.workspaceId, reader: subscriberOf(p), grant: p.resourceIds }
}

export async function inboxRoutes(app: FastifyInstance, opts: { db: Database; cursors: CursorCodec }): Promise<void> {
  const { db, cursors } = opts

  app.get(P, {
    config: READ,
    schema: {
      summary: 'Lookout extension: the caller\'s inbox (incident notifications of the resources it may read), newest first, with its unread count',
      params: WORKSPACE_PARAMS, querystring: INBOX_QUERY, response: INBOX_RESPONSE,
    },
  }, async (req) => {
    const r = readerOf(req)
    const q = req.query as { filter: InboxFilter; limit: number; cursor?: string }
    let before: string | null = null
    if (q.cursor !== undefined) {
      const v = cursors.decode(CURSOR, q.cursor)
      if (v === null || v.length !== 1 || typeof v[0] !== 'string') throw new RequestInvalid([detail(['query', 'cursor'], 'Invalid cursor', 'value_error')])
      before = v[0]
    }
    const page = await inboxPage(db, r, q.filter, q.limit, before)
    return { items: page.items, next_cursor: page.last === null ? null : cursors.encode(CURSOR, [page.last]), unread_count: await inboxUnread(db, r) }
  })

  app.post(`${P}/actions`, {
    // Marking the inbox is the owner's on a desktop, as the local inbox's actions are.
    config: { ...READ, access: OWNER_ONLY },
    schema: {
      summary: 'Lookout extension: mark one notification read or unread, or every one read, for the caller only',
      params: WORKSPACE_PARAMS, body: INBOX_ACTION, response: INBOX_ACTION_RESPONSE,
    },
  }, async (req) => {
    const r = readerOf(req)
    const b = req.body as { action: InboxAction; id?: string }
    const now = Date.now()
    if (b.action === 'read_all') {
      if (b.id !== undefined) throw new RequestInvalid([detail(['body', 'id'], 'read_all takes no id', 'extra_forbidden')])
      return { action: b.action, updated: await inboxReadAll(db, r, now), unread_count: await inboxUnread(db, r) }
    }
    if (b.id === undefined) throw new RequestInvalid([detail(['body', 'id'], `${b.action} needs the notification id`, 'missing')])
    const item = await inboxMark(db, r, b.id, b.action === 'read', now)
    return { action: b.action, item, unread_count: await inboxUnread(db, r) }
  })
}
