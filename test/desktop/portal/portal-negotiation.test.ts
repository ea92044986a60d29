// task-taxonomy-v1 is negotiated: a portal that does not offer it (an older
// portal, here LOOKOUT_PORTAL_FEATURES=none) gets the existing behaviour: tasks
// sync without types and labels, and the desktop's taxonomy stays local.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { httpReq } from '../desktop-helpers.ts'
import { cloudTasks, desktopTasks, startCloud, startPortalDesktop } from './portal-helpers.ts'

const cloud = await startCloud({ LOOKOUT_PORTAL_FEATURES: 'none' })
t.teardown(() => cloud.stop())
const desk = await startPortalDesktop()
t.teardown(() => desk.stop())

t.test('a portal configured without the feature advertises nothing', async (t) => {
  const none = await httpReq(cloud.url, 'GET', '/v1/me', undefined, { authorization: `Bearer ${cloud.token}`, 'x-service-desktop-features': 'task-taxonomy-v1' })
  t.equal(none.status, 200)
  t.equal(none.headers['x-service-desktop-features'], undefined)
})

t.test('without task-taxonomy-v1 tasks sync without types and labels', async (t) => {
  const tax = (await desk.owner('GET', '/v1/projects/taxonomy')).body
  const label = await desk.owner('POST', '/v1/projects/taxonomy', { idempotency_key: randomUUID(), kind: 'label', operation: 'create', name: 'desk-only', revision: tax.revision })
  const labelId = label.body.labels.find((l: any) => l.name === 'desk-only').id
  const task = await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), title: 'labelled here', label_ids: [labelId] })
  t.equal(task.status, 201)
  t.equal((await desk.owner('POST', '/v1/portal/connection', { url: cloud.url, token: cloud.token })).status, 200)
  const round = (await desk.owner('POST', '/v1/portal/sync')).body
  t.equal(round.state, 'connected', JSON.stringify(round))
  const s = (await desk.owner('GET', '/v1/portal/connection')).body
  t.equal(s.task_taxonomy, false)
  t.same(s.features, [])
  const [c] = await cloudTasks(cloud)
  t.equal(c.title, 'labelled here')
  t.same(c.label_ids, [], 'no label sent to a portal without task-taxonomy-v1')
  const cloudTax = (await cloud.req('GET', `/v1/workspaces/${cloud.workspaceId}/project/taxonomy`)).body
  t.notOk(cloudTax.labels.some((l: any) => l.name === 'desk-only'), 'the desktop\'s taxonomy is not uploaded')
  const [d] = await desktopTasks(desk)
  t.equal(d.id, c.id)
  t.equal(d.number, c.number)
  t.same(d.label_ids, [labelId], 'the local label stays on the local task')
  // A portal edit comes back without touching the local labels.
  t.equal((await cloud.req('PATCH', `/v1/workspaces/${cloud.workspaceId}/tasks/${c.id}`, { revision: c.revision, title: 'renamed on the portal' })).status, 200)
  await desk.owner('POST', '/v1/portal/sync')
  const [d2] = await desktopTasks(desk)
  t.equal(d2.title, 'renamed on the portal')
  t.same(d2.label_ids, [labelId])
  t.equal((await desk.owner('GET', '/v1/portal/connection')).body.conflicts, 0)
})

t.test('tasks on an archived portal board arrive, with their board', async (t) => {
  const CW = `/v1/workspaces/${cloud.workspaceId}`
  const board = await cloud.req('POST', `${CW}/project/boards`, { idempotency_key: randomUUID(), name: 'old project' })
  t.equal(board.status, 200)
  const status = (await cloud.req('GET', `${CW}/project/statuses?board_id=${board.body.id}`)).body.items[0]
  const task = await cloud.req('POST', `${CW}/tasks`, { idempotency_key: randomUUID(), title: 'on an archived board', board_id: board.body.id, status_id: status.id })
  t.equal(task.status, 201)
  t.equal((await cloud.req('POST', `${CW}/project/boards/${board.body.id}`, { revision: board.body.revision, action: 'archive' })).status, 200)
  const round = (await desk.owner('POST', '/v1/portal/sync')).body
  t.equal(round.state, 'connected')
  const here = (await desktopTasks(desk)).find((x) => x.id === task.body.id)
  t.ok(here, 'the task is on the desktop')
  t.equal(here?.board_id, board.body.id)
  const boards = (await desk.owner('GET', '/v1/projects/boards?archived=true')).body.items
  t.ok(boards.some((b: any) => b.id === board.body.id), 'its board is here, archived')
})

t.test('notes sync both ways (portal notes have no trash: a trashed note is refused and listed)', async (t) => {
  const CW = `/v1/workspaces/${cloud.workspaceId}`
  const made = await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), item_type: 'note', title: 'a note', body: 'written offline' })
  t.equal(made.status, 201, JSON.stringify(made.body))
  t.equal((await desk.owner('POST', '/v1/portal/sync')).body.state, 'connected')
  const notes = (await cloud.req('GET', `${CW}/notes`)).body.items
  t.equal(notes.length, 1)
  t.equal(notes[0].body, 'written offline')
  const local = (await desk.owner('GET', `/v1/projects/items/${made.body.id}`)).body
  t.equal(local.id, notes[0].id, 'the note takes the canonical id')
  t.equal((await cloud.req('PATCH', `${CW}/notes/${notes[0].id}`, { revision: notes[0].revision, body: 'edited on the portal' })).status, 200)
  await desk.owner('POST', '/v1/portal/sync')
  const back = (await desk.owner('GET', `/v1/projects/items/${local.id}`)).body
  t.equal(back.body, 'edited on the portal')
  t.equal((await desk.owner('POST', `/v1/projects/items/${local.id}/actions`, { idempotency_key: randomUUID(), revision: back.revision, action: 'archive' })).status, 200)
  await desk.owner('POST', '/v1/portal/sync')
  t.equal((await cloud.req('GET', `${CW}/notes/${local.id}`)).body.archived, true, 'the archive reaches the portal')
  const portalNote = await cloud.req('POST', `${CW}/notes`, { idempotency_key: randomUUID(), body: 'from the portal' })
  t.equal(portalNote.status, 201)
  await desk.owner('POST', '/v1/portal/sync')
  t.equal((await desk.owner('GET', `/v1/projects/items/${portalNote.body.id}`)).body.body, 'from the portal')
  const cur = (await desk.owner('GET', `/v1/projects/items/${portalNote.body.id}`)).body
  t.equal((await desk.owner('DELETE', `/v1/projects/items/${cur.id}`, { idempotency_key: randomUUID(), revision: cur.revision })).status, 200)
  await desk.owner('POST', '/v1/portal/sync')
  const conflicts = (await desk.owner('GET', '/v1/portal/conflicts')).body.items
  t.equal(conflicts.length, 1)
  t.equal(conflicts[0].state, 'refused')
  t.match(conflicts[0].last_error, /cannot be trashed/)
})

