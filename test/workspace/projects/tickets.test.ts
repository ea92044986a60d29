// Service tickets: creation with its work task, idempotent replay, bounds at
// their edges, references, replies (visibility, paging), and the list route.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startTestLookout } from '../../helpers/lookout.ts'
import { key, projectApi, settle } from './project-helpers.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
await settle(lk)
const api = projectApi(lk)
const { P } = api
// A credential bound to no user: not staff, so internal replies are not for it.
const outsider = { authorization: `Bearer ${await lk.token_(['project:read', 'project:write'])}` }

const raise = (f: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  lk.req('POST', `${P}/tickets`, { idempotency_key: key(), subject: 'Backups fail', body: 'Nightly backup job exits 1.', ...f }, headers)
const reply = (id: string, f: Record<string, unknown> = {}, headers?: Record<string, string>) =>
  lk.req('POST', `${P}/tickets/${id}/replies`, { idempotency_key: key(), body: 'Looking into it.', ...f }, headers)

t.test('creation: the ticket and its work task under one id, idempotent replay, 409 on other content', async (t) => {
  const resource = await lk.resource()
  const k = key()
  const body = { idempotency_key: k, subject: 'Disk full on db-1', body: 'The data volume is at 100%.', category: 'technical', resource }
  const first = await lk.req('POST', `${P}/tickets`, body)
  t.equal(first.status, 201)
  t.match(first.body, { subject: 'Disk full on db-1', body: 'The data volume is at 100%.', category: 'technical', resource, service: null, created_by: 1 })
  const id = first.body.id
  t.match(first.body.task, { id, kind: 'service_ticket', source_ticket: id, title: 'Disk full on db-1', description: 'The data volume is at 100%.', state: 'open' })
  const replay = await lk.req('POST', `${P}/tickets`, body)
  t.equal(replay.status, 200, 'identical replay')
  t.same(replay.body, first.body, 'same body')
  t.equal((await lk.req('POST', `${P}/tickets`, { ...body, subject: 'Disk full on db-2' })).status, 409, 'same key, other content')
  t.equal((await lk.req('POST', `${P}/tickets/${id}/replies`, { idempotency_key: k, body: 'x' })).body.detail[0].type,
    'LOOKOUT_PROJECT_IDEMPOTENCY_CONFLICT', 'same key on another operation')
  const task = await lk.req('GET', `${P}/tasks/${id}`)
  t.equal(task.status, 200, 'the work task is a task')
  t.equal(task.body.number, first.body.task.number)
  const list = await lk.req('GET', `${P}/tickets?limit=100`)
  t.ok(list.body.items.some((i: { id: string; source_ticket: string }) => i.id === id && i.source_ticket === id), 'listed as a ticket')
  t.ok((await lk.req('GET', `${P}/tickets?kind=service_ticket&limit=100`)).body.items.some((i: { id: string }) => i.id === id), 'kind=service_ticket')
  t.same((await lk.req('GET', `${P}/tickets?kind=task`)).body.items, [], 'kind=task: none')
  const count = (await lk.lookout.db.query<{ n: number }>('SELECT count(*)::int AS n FROM project_tickets WHERE id = $1', [id])).rows[0]?.n
  t.equal(count, 1, 'stored once')
})

t.test('limits at their edges, category enum, unknown properties', async (t) => {
  t.equal((await raise({ subject: 's'.repeat(160) })).status, 201, 'subject 160')
  t.equal((await raise({ subject: 's'.repeat(161) })).status, 422, 'subject 161')
  t.equal((await raise({ subject: '' })).status, 422, 'subject 0')
  const long = await raise({ body: 'b'.repeat(20000) })
  t.equal(long.status, 201, 'body 20000')
  t.equal(long.body.body.length, 20000, 'the ticket keeps the whole body')
  t.equal(long.body.task.description.length, 6000, 'the task description holds what fits its bound')
  t.equal((await raise({ body: 'b'.repeat(20001) })).status, 422, 'body 20001')
  t.equal((await raise({ body: '' })).status, 422, 'body 0')
  t.equal((await raise()).body.category, 'general', 'category defaults to general')
  for (const c of ['general', 'technical', 'billing', 'change']) t.equal((await raise({ category: c })).body.category, c)
  t.equal((await raise({ category: 'other' })).body.detail[0].type, 'enum')
  t.equal((await raise({ category: null })).status, 422, 'category is not nullable')
  t.equal((await raise({ priority: 'high' })).body.detail[0].type, 'extra_forbidden')
  const missing = await lk.req('POST', `${P}/tickets`, { idempotency_key: key(), body: 'b' })
  t.equal(missing.status, 422)
  t.equal(missing.body.detail[0].type, 'missing')
  t.equal((await lk.req('POST', `${P}/tickets`, { subject: 's', body: 'b' })).status, 422, 'idempotency_key required')
  t.equal((await raise({ resource: 'not-a-uuid' })).status, 422)
})

t.test('references: board placement, unknown resource, a credential limited to other resources', async (t) => {
  const board = await api.board()
  const placed = await raise({ board_id: board.id })
  t.equal(placed.body.task.board_id, board.id)
  const unknownBoard = await raise({ board_id: randomUUID() })
  t.same(unknownBoard.body.detail[0].loc, ['body', 'board_id'])
  const unknownRes = await raise({ resource: randomUUID() })
  t.equal(unknownRes.status, 422)
  t.same(unknownRes.body.detail[0].loc, ['body', 'resource'])
  t.equal(unknownRes.body.detail[0].type, 'reference_not_found')
  const mine = await lk.resource()
  const other = await lk.resource()
  const limited = { authorization: `Bearer ${await lk.token_(['project:read', 'project:write'], [mine])}` }
  t.equal((await raise({ resource: mine }, limited)).status, 201)
  t.equal((await raise({ resource: other }, limited)).status, 403)
  const service = randomUUID()
  const withService = await raise({ service })
  t.equal(withService.body.service, service)
  t.equal(withService.body.task.service, service, 'the task carries the service too')
  const readOnly = { authorization: `Bearer ${await lk.token_(['project:read'])}` }
  t.equal((await raise({}, readOnly)).status, 403, 'creating needs project:write')
})

t.test('replies: idempotent, bounded, visibility, oldest first in pages', async (t) => {
  const ticket = (await raise()).body
  const id = ticket.id
  const k = key()
  const first = await lk.req('POST', `${P}/tickets/${id}/replies`, { idempotency_key: k, body: 'We are on it.' })
  t.equal(first.status, 201)
  t.match(first.body, { ticket_id: id, body: 'We are on it.', visibility: 'shared', author: 1 })
  const again = await lk.req('POST', `${P}/tickets/${id}/replies`, { idempotency_key: k, body: 'We are on it.' })
  t.equal(again.status, 200)
  t.same(again.body, first.body)
  t.equal((await lk.req('POST', `${P}/tickets/${id}/replies`, { idempotency_key: k, body: 'Other words.' })).status, 409)
  t.equal((await reply(id, { body: 'r'.repeat(20000) })).status, 201, 'body 20000')
  t.equal((await reply(id, { body: 'r'.repeat(20001) })).status, 422, 'body 20001')
  t.equal((await reply(id, { body: '' })).status, 422, 'body 0')
  t.equal((await reply(id, { visibility: 'private' })).body.detail[0].type, 'enum')
  t.equal((await reply(id, { revision: 1 })).body.detail[0].type, 'extra_forbidden')
  t.equal((await reply(id, { visibility: 'internal' }, outsider)).status, 403, 'internal replies need staff')
  const internal = await reply(id, { body: 'staff: check the RAID', visibility: 'internal' })
  t.equal(internal.status, 201)
  t.equal((await reply(id, { body: 'from the customer' }, outsider)).status, 201, 'anyone with project:write can reply shared')

  const staffView = await lk.req('GET', `${P}/tickets/${id}`)
  t.equal(staffView.status, 200)
  t.match(staffView.body, { id, subject: ticket.subject, task: { id } })
  t.same(staffView.body.replies.map((r: { body: string }) => r.body.slice(0, 25)),
    ['We are on it.', 'r'.repeat(25), 'staff: check the RAID', 'from the customer'], 'oldest first')
  const outsiderView = await lk.req('GET', `${P}/tickets/${id}`, undefined, outsider)
  t.notOk(outsiderView.body.replies.some((r: { visibility: string }) => r.visibility === 'internal'), 'internal replies hidden')
  t.equal(outsiderView.body.replies.length, 3)

  const seen: string[] = []
  let cursor: string | null = null
  do {
    const q: string = cursor === null ? 'limit=1' : `limit=1&cursor=${encodeURIComponent(cursor)}`
    const r = await lk.req('GET', `${P}/tickets/${id}?${q}`)
    t.equal(r.status, 200)
    seen.push(...r.body.replies.map((x: { id: string }) => x.id))
    cursor = r.body.next_cursor
  } while (cursor !== null)
  t.same(seen, staffView.body.replies.map((x: { id: string }) => x.id), 'pages of one walk the same replies')
  t.equal((await lk.req('GET', `${P}/tickets/${id}?cursor=forged`)).status, 422)
  t.same((await lk.req('GET', `${P}/tickets/${id}?q=raid`)).body.replies.map((r: { id: string }) => r.id), [internal.body.id], 'q filters replies')
})

t.test('reads and replies: unknown ids, plain tasks, boards and the trash', async (t) => {
  t.equal((await lk.req('GET', `${P}/tickets/${randomUUID()}`)).status, 404)
  t.equal((await reply(randomUUID())).status, 404)
  const plain = await api.task()
  t.equal((await lk.req('GET', `${P}/tickets/${plain.id}`)).status, 404, 'a task is not a ticket')
  t.equal((await reply(plain.id)).status, 404)
  const board = await api.board()
  const ticket = (await raise({ board_id: board.id })).body
  t.equal((await lk.req('GET', `${P}/tickets/${ticket.id}?board_id=${board.id}`)).status, 200)
  const def = (await lk.req('GET', `${P}/project`)).body.default_board_id
  t.equal((await lk.req('GET', `${P}/tickets/${ticket.id}?board_id=${def}`)).status, 404, 'not on that board')
  t.equal((await reply(ticket.id, { board_id: def })).status, 404, 'a reply naming another board')
  t.equal((await reply(ticket.id, { board_id: board.id })).status, 201)
  const del = await lk.req('DELETE', `${P}/tasks/${ticket.id}`, { revision: ticket.task.revision })
  t.equal(del.status, 200)
  t.equal((await lk.req('GET', `${P}/tickets/${ticket.id}`)).status, 404, 'its task in the trash hides it')
  const trashed = await lk.req('GET', `${P}/tickets/${ticket.id}?deleted=true`)
  t.equal(trashed.status, 200)
  t.equal(trashed.body.task.deleted, true)
  t.equal((await reply(ticket.id)).body.detail[0].type, 'LOOKOUT_PROJECT_ITEM_DELETED', 'no replies while trashed')
})

t.test('the OpenAPI document marks the ticket routes as Lookout extensions', async (t) => {
  const doc = (await lk.req('GET', '/v1/openapi.json')).body
  const base = '/v1/workspaces/{workspace_id}/tickets'
  t.equal(doc.paths[base].post['x-lookout-extension'], true)
  t.equal(doc.paths[`${base}/{item_id}`].get['x-lookout-extension'], true)
  t.equal(doc.paths[`${base}/{item_id}/replies`].post['x-lookout-extension'], true)
  t.equal(doc.paths[base].get['x-lookout-extension'], undefined, 'the list is the contract\'s own')
  t.same(doc.paths[base].post.requestBody.content['application/json'].schema.properties.category.enum, ['general', 'technical', 'billing', 'change'])
})
