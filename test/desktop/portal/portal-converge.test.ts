// The desktop and its portal converge (issue 32), real `lookout serve` and
// `lookout desktop` processes: a desktop connected before its first project
// request adopts the portal's default board and type (no second ones, every
// round after it succeeds); edits of different fields merge three ways; a
// retried conflict shows the desktop's values on both sides; work states and
// approval decisions travel both ways.
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { connectMcp } from '../mcp/mcp-helpers.ts'
import { LOCAL_ONLY_NOTE } from '../../../desktop/mcp/server.ts'
import { cli, cloudTasks, desktopTasks, startCloud, startPortalDesktop, until } from './portal-helpers.ts'
import { deskOps } from './portal-helpers.ts'

const cloud = await startCloud()
t.teardown(() => cloud.stop())
const desk = await startPortalDesktop()
t.teardown(() => desk.stop())
const { owner } = desk
const CW = `/v1/workspaces/${cloud.workspaceId}`

const { create, sync } = deskOps(desk)
const local = async (id: string) => (await owner('GET', `/v1/projects/items/${id}`)).body
const remote = async (id: string) => (await cloud.req('GET', `${CW}/tasks/${id}`)).body
const settled = async (t: Test) => {
  const s = (await owner('GET', '/v1/portal/connection')).body
  t.equal(s.conflicts, 0, JSON.stringify((await owner('GET', '/v1/portal/conflicts')).body))
  t.equal(s.pending_operations, 0)
}

t.test('connect first, then the first project request: one board, one type, every round succeeds', async (t) => {
  const c = await owner('POST', '/v1/portal/connection', { url: cloud.url, token: cloud.token })
  t.equal(c.status, 200, JSON.stringify(c.body))
  t.equal((await sync()).state, 'connected')
  const a = await create('first after connecting')
  t.equal(a.workspace_id, cloud.workspaceId, 'connected first: a new record carries the shared workspace id at once')
  for (let i = 0; i < 2; i++) {
    const round = await sync()
    t.equal(round.state, 'connected', `round ${i + 1}: ${JSON.stringify(round)}`)
  }
  const boards = (await owner('GET', '/v1/projects/boards')).body.items
  const cloudBoards = (await cloud.req('GET', `${CW}/project/boards`)).body.items
  t.equal(boards.length, 1, 'one board on the desktop')
  t.same(cloudBoards.map((b: any) => b.id), boards.map((b: any) => b.id), 'the same board on both sides')
  const types = (await owner('GET', '/v1/projects/taxonomy')).body.types
  const cloudTypes = (await cloud.req('GET', `${CW}/project/taxonomy`)).body.types
  t.equal(types.length, 1, 'one type on the desktop')
  t.same(cloudTypes.map((x: any) => x.id), types.map((x: any) => x.id), 'the same type on both sides')
  const onCloud = await cloudTasks(cloud)
  t.equal(onCloud.length, 1)
  const here = await local(a.id)
  t.equal(here.id, onCloud[0].id, 'the canonical id')
  t.equal(here.number, onCloud[0].number, 'the portal number')
  t.equal((await owner('GET', '/v1/portal/connection')).body.last_error, null)
})

t.test('catalogue writes on a connected workspace need workspace management permission (the owner)', async (t) => {
  const g = await desk.grant(['project:read', 'project:write'])
  const asGrant = { 'x-lookout-act-as-grant': g.id }
  const tax = (await owner('GET', '/v1/projects/taxonomy')).body
  const write = { idempotency_key: randomUUID(), kind: 'label', operation: 'create', name: 'shared label', revision: tax.revision }
  const refused = await owner('POST', '/v1/projects/taxonomy', write, asGrant)
  t.equal(refused.status, 403, JSON.stringify(refused.body))
  t.match(refused.body.error.message, /workspace management permission/)
  const board = (await owner('GET', '/v1/projects/boards')).body.items[0]
  const st = (await owner('GET', `/v1/projects/statuses?board_id=${board.id}`)).body
  const status = await owner('POST', '/v1/projects/statuses', { idempotency_key: randomUUID(), board_id: board.id, revision: st.revision, action: 'create', name: 'Waiting', category: 'doing', color: 'gray' }, asGrant)
  t.equal(status.status, 403, 'statuses too')
  t.equal((await owner('POST', '/v1/projects/taxonomy', { ...write, idempotency_key: randomUUID() })).status, 200, 'the owner may')
  t.equal((await sync()).state, 'connected')
  t.ok((await cloud.req('GET', `${CW}/project/taxonomy`)).body.labels.some((l: any) => l.name === 'shared label'), 'and it reaches the portal')
})

t.test('catalogue layout syncs: status order, default and retirement both ways; type order and default', async (t) => {
  const board = (await owner('GET', '/v1/projects/boards')).body.items[0].id
  const statuses = async (archived = false) => (await owner('GET', `/v1/projects/statuses?board_id=${board}&archived=${archived}`)).body
  const cloudStatuses = async (archived = false) => (await cloud.req('GET', `${CW}/project/statuses?board_id=${board}&archived=${archived}`)).body
  const configure = async (body: Record<string, unknown>) => {
    const r = await owner('POST', '/v1/projects/statuses', { idempotency_key: randomUUID(), board_id: board, revision: (await statuses()).revision, ...body })
    t.equal(r.status, 200, JSON.stringify(r.body))
  }
  for (const name of ['Layout A', 'Layout B']) await configure({ action: 'create', name, category: 'doing', color: 'blue' })
  const onA = await create('on status A')
  await sync()
  const id = (name: string, list: any[]) => list.find((s: any) => s.name === name).id
  const here = (await statuses()).items
  const [A, B] = [id('Layout A', here), id('Layout B', here)]
  await configure({ action: 'reorder', status_ids: [B, ...here.map((s: any) => s.id).filter((x: string) => x !== B)] })
  await configure({ action: 'default', status_id: A })
  let me = await local((await desktopTasks(desk)).find((x) => x.title === 'on status A').id)
  t.equal((await owner('PATCH', `/v1/projects/items/${me.id}`, { idempotency_key: randomUUID(), revision: me.revision, status_id: A })).status, 200)
  t.not(onA.id, me.id)
  await sync()
  const there = (await cloudStatuses()).items
  t.equal(there[0].id, B, 'the desktop\'s order reached the cloud')
  t.equal(there.find((s: any) => s.is_default).id, A, 'and its default')
  // Retired on the cloud (the task on it moves to the replacement on both sides).
  t.equal((await cloud.req('POST', `${CW}/project/statuses`, { board_id: board, revision: (await cloudStatuses()).revision, action: 'retire', status_id: A, replacement_id: B })).status, 200)
  await sync()
  t.same((await statuses(true)).items.map((s: any) => [s.id, s.replacement_id]), [[A, B]], 'the cloud\'s retirement reached the desktop')
  me = await local(me.id)
  t.equal(me.status_id, B, 'its task moved to the replacement here too')
  t.equal((await statuses()).items.find((s: any) => s.is_default).id, B, 'the default followed')
  // Retired here; the cloud changes the order meanwhile.
  const todo = (await statuses()).items.find((s: any) => s.category === 'todo').id
  await configure({ action: 'retire', status_id: B, replacement_id: todo })
  const co = (await cloudStatuses()).items.map((s: any) => s.id)
  t.equal((await cloud.req('POST', `${CW}/project/statuses`, { board_id: board, revision: (await cloudStatuses()).revision, action: 'reorder', status_ids: [...co].reverse() })).status, 200)
  await sync()
  t.ok((await cloudStatuses(true)).items.some((s: any) => s.id === B && s.replacement_id === todo), 'the desktop\'s retirement reached the cloud')
  t.same((await statuses()).items.map((s: any) => s.id), (await cloudStatuses()).items.map((s: any) => s.id), 'the cloud\'s order reached the desktop')
  t.equal((await remote(me.id)).status_id, todo, 'the task is on the replacement on the cloud')
  // Types: a new type first and default here; the cloud's default change comes back.
  const tax = (await owner('GET', '/v1/projects/taxonomy')).body
  const made = await owner('POST', '/v1/projects/taxonomy', { idempotency_key: randomUUID(), revision: tax.revision, kind: 'type', operation: 'create', name: 'Layout type' })
  t.equal(made.status, 200)
  const T = id('Layout type', made.body.types)
  const tx2 = (await owner('GET', '/v1/projects/taxonomy')).body
  t.equal((await owner('POST', '/v1/projects/taxonomy', { idempotency_key: randomUUID(), revision: tx2.revision, kind: 'type', operation: 'reorder', order: [T, ...tx2.types.map((x: any) => x.id).filter((x: string) => x !== T)] })).status, 200)
  const tx3 = (await owner('GET', '/v1/projects/taxonomy')).body
  const oldDefault = tx3.types.find((x: any) => x.is_default).id
  t.equal((await owner('POST', '/v1/projects/taxonomy', { idempotency_key: randomUUID(), revision: tx3.revision, kind: 'type', operation: 'default', id: T })).status, 200)
  await sync()
  const ct = (await cloud.req('GET', `${CW}/project/taxonomy`)).body
  const TC = id('Layout type', (await owner('GET', '/v1/projects/taxonomy')).body.types)
  t.not(TC, T, 'the new type took the portal\'s id')
  t.equal(ct.types[0].id, TC, 'the type order reached the cloud')
  t.equal(ct.types.find((x: any) => x.is_default).id, TC, 'and the default type')
  t.equal((await cloud.req('POST', `${CW}/project/taxonomy`, { revision: ct.revision, kind: 'type', operation: 'default', id: oldDefault })).status, 200)
  await sync()
  t.equal((await owner('GET', '/v1/projects/taxonomy')).body.types.find((x: any) => x.is_default).id, oldDefault, 'the cloud\'s default type came back')
  await settled(t)
})

const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10)
let shared: any

t.test('edits of different fields merge three ways: both sides end with both edits', async (t) => {
  shared = await create('merge me')
  await sync()
  const mine = await local(shared.id)
  t.equal((await owner('PATCH', `/v1/projects/items/${mine.id}`, { idempotency_key: randomUUID(), revision: mine.revision, priority: 'high' })).status, 200)
  const theirs = await remote(mine.id)
  const due = day(9)
  t.equal((await cloud.req('PATCH', `${CW}/tasks/${mine.id}`, { revision: theirs.revision, due_on: due })).status, 200)
  const round = await sync()
  t.equal(round.state, 'connected', JSON.stringify(round))
  const [here, there] = [await local(mine.id), await remote(mine.id)]
  t.equal(there.priority, 'high', 'the desktop\'s priority reached the cloud')
  t.equal(there.due_on, due, 'the cloud kept its due date')
  t.equal(here.priority, 'high', 'the desktop kept its priority')
  t.equal(here.due_on, due, 'the cloud\'s due date reached the desktop')
  const s = (await owner('GET', '/v1/portal/connection')).body
  t.equal(s.conflicts, 0, 'different fields are no conflict')
  t.equal(s.pending_operations, 0)
})

t.test('the same field changed on both sides is a conflict; retry shows the desktop\'s value on both sides', async (t) => {
  const mine = await local(shared.id)
  t.equal((await owner('PATCH', `/v1/projects/items/${mine.id}`, { idempotency_key: randomUUID(), revision: mine.revision, title: 'desktop title', description: 'desktop text' })).status, 200)
  const theirs = await remote(mine.id)
  t.equal((await cloud.req('PATCH', `${CW}/tasks/${mine.id}`, { revision: theirs.revision, title: 'portal title' })).status, 200)
  await sync()
  t.equal((await remote(mine.id)).description, 'desktop text', 'the field changed only here went through')
  t.equal((await remote(mine.id)).title, 'portal title')
  t.equal((await local(mine.id)).title, 'portal title', 'the desktop shows the portal\'s value while in conflict')
  const list = (await owner('GET', '/v1/portal/conflicts')).body.items
  t.equal(list.length, 1)
  t.same(list[0].payload, { title: 'desktop title' }, 'only the field changed on both sides is in conflict')
  const shown = await cli(desk.env, ['portal', 'conflicts'])
  t.equal(shown.code, 0, shown.stderr)
  t.match(shown.stdout, new RegExp(`^${list[0].seq}\\s+task #${mine.number} "portal title"\\n\\s+conflict: title \\(`), 'the CLI names the task by number and title, and the field')
  const resolved = await cli(desk.env, ['portal', 'resolve', list[0].seq, 'retry'])
  t.equal(resolved.code, 0, resolved.stderr)
  const round = await cli(desk.env, ['portal', 'sync'])
  t.equal(round.code, 0, round.stderr)
  // The decision starts a round of its own, so this one may find nothing left to push.
  t.match(round.stdout, /^state\s+connected\ncaptured\s+\d+\npushed\s+\d+\npulled\s+\d+\nconflicts opened\s+0\n$/, 'the CLI prints what the round did')
  t.equal((await remote(mine.id)).title, 'desktop title', 'the cloud takes the retried value')
  t.equal((await local(mine.id)).title, 'desktop title', 'and the desktop shows it too')
  const s = (await owner('GET', '/v1/portal/connection')).body
  t.equal(s.conflicts, 0)
  t.equal(s.pending_operations, 0)
  t.equal((await sync()).pushed, 0, 'nothing left to send')
})

t.test('work states and approval decisions travel both ways', async (t) => {
  const act = async (id: string, body: Record<string, unknown>) => {
    const cur = await local(id)
    const r = await owner('POST', `/v1/workspaces/${desk.workspaceId}/tasks/${id}/actions`, { revision: cur.revision, ...body })
    t.equal(r.status, 200, `${JSON.stringify(body)}: ${JSON.stringify(r.body)}`)
  }
  await create('reviewed here', { reviewer: 5 })
  await sync()
  const x = (await desktopTasks(desk)).find((i) => i.title === 'reviewed here')
  await act(x.id, { action: 'work' })
  await act(x.id, { action: 'state', state: 'review' })
  await act(x.id, { action: 'approve' })
  t.equal((await local(x.id)).state, 'done')
  t.equal((await sync()).state, 'connected')
  const there = await remote(x.id)
  t.equal(there.state, 'done', 'work, review, approve reached the cloud')
  t.equal(there.status_id, (await local(x.id)).status_id, 'with the same status')
  // From the cloud: reopen, work; then blocked here with its reason.
  const r1 = await cloud.req('POST', `${CW}/tasks/${x.id}/actions`, { revision: there.revision, action: 'reopen' })
  t.equal(r1.status, 200)
  t.equal((await cloud.req('POST', `${CW}/tasks/${x.id}/actions`, { revision: r1.body.revision, action: 'work' })).status, 200)
  await sync()
  t.equal((await local(x.id)).state, 'in_progress', 'the cloud\'s actions came back')
  await act(x.id, { action: 'state', state: 'blocked', blocked_reason: 'waiting for the vendor' })
  await sync()
  const blocked = await remote(x.id)
  t.equal(blocked.state, 'blocked')
  t.equal(blocked.blocked_reason, 'waiting for the vendor')
  // A decision for changes on the cloud comes back as changes_requested.
  await create('changes asked there', { reviewer: 5 })
  await sync()
  const y = (await desktopTasks(desk)).find((i) => i.title === 'changes asked there')
  await act(y.id, { action: 'work' })
  await act(y.id, { action: 'state', state: 'review' })
  await sync()
  const yr = await remote(y.id)
  t.equal(yr.state, 'review')
  t.equal((await cloud.req('POST', `${CW}/tasks/${y.id}/actions`, { revision: yr.revision, action: 'changes', body: 'more tests' })).status, 200)
  await sync()
  t.equal((await local(y.id)).state, 'changes_requested', 'the cloud\'s decision reached the desktop')
  const s = (await owner('GET', '/v1/portal/connection')).body
  t.equal(s.conflicts, 0, JSON.stringify((await owner('GET', '/v1/portal/conflicts')).body))
  t.equal(s.pending_operations, 0)
})

const DW = `/v1/workspaces/${desk.workspaceId}`
const deskComments = async (task: string, deleted = false) => (await owner('GET', `${DW}/tasks/${task}/comments?deleted=${deleted}`)).body.items
const cloudComments = async (task: string, deleted = false) => (await cloud.req('GET', `${CW}/tasks/${task}/comments?deleted=${deleted}`)).body.items

t.test('comments sync both ways: made offline on a provisional task id, edited and deleted on each side', async (t) => {
  const task = await create('commented offline')
  const c1 = await owner('POST', `${DW}/tasks/${task.id}/comments`, { idempotency_key: randomUUID(), body: 'written offline' })
  t.equal(c1.status, 201, JSON.stringify(c1.body))
  t.equal(c1.headers['x-lookout-sync'], undefined, 'a comment is no longer marked local')
  const gone = (await owner('POST', `${DW}/tasks/${task.id}/comments`, { idempotency_key: randomUUID(), body: 'deleted before any round' })).body
  t.equal((await owner('DELETE', `${DW}/tasks/${task.id}/comments/${gone.id}`, { revision: gone.revision })).status, 200)
  t.equal((await sync()).state, 'connected')
  const canonical = (await desktopTasks(desk)).find((x) => x.title === 'commented offline').id
  t.not(canonical, task.id, 'the task took its canonical id')
  const there = await cloudComments(canonical)
  t.same(there.map((c: any) => c.body), ['written offline'], 'once on the cloud, on the canonical task; the one deleted offline never left')
  const here = await deskComments(canonical)
  t.same(here.map((c: any) => c.id), [there[0].id], 'the desktop\'s comment took the canonical id')
  // The old comment id (path) still resolves: an edit by it.
  const e1 = await owner('PATCH', `${DW}/tasks/${task.id}/comments/${c1.body.id}`, { revision: here[0].revision, body: 'edited here' })
  t.equal(e1.status, 200, JSON.stringify(e1.body))
  await sync()
  const r1 = (await cloudComments(canonical))[0]
  t.equal(r1.body, 'edited here', 'the desktop\'s edit reached the cloud')
  t.equal((await cloud.req('PATCH', `${CW}/tasks/${canonical}/comments/${r1.id}`, { revision: r1.revision, body: 'edited there' })).status, 200)
  const fromCloud = await cloud.req('POST', `${CW}/tasks/${canonical}/comments`, { idempotency_key: randomUUID(), body: 'written on the cloud' })
  t.equal(fromCloud.status, 201)
  await sync()
  t.same((await deskComments(canonical)).map((c: any) => [c.id, c.body]), [[r1.id, 'edited there'], [fromCloud.body.id, 'written on the cloud']], 'the cloud\'s edit and comment came back')
  // Deleted on each side.
  const mine = (await deskComments(canonical))[0]
  t.equal((await owner('DELETE', `${DW}/tasks/${canonical}/comments/${mine.id}`, { revision: mine.revision })).status, 200)
  const theirs = (await cloudComments(canonical)).find((c: any) => c.id === fromCloud.body.id)
  t.equal((await cloud.req('DELETE', `${CW}/tasks/${canonical}/comments/${theirs.id}`, { revision: theirs.revision })).status, 200)
  await sync()
  t.same((await cloudComments(canonical)).map((c: any) => c.id), [], 'nothing live on the cloud')
  t.same((await cloudComments(canonical, true)).map((c: any) => c.id).sort(), [mine.id, theirs.id].sort(), 'both deleted there')
  t.same((await deskComments(canonical)).map((c: any) => c.id), [], 'nothing live on the desktop')
  t.ok((await deskComments(canonical, true)).some((c: any) => c.id === theirs.id), 'the cloud\'s deletion reached the desktop')
  await settled(t)
})

t.test('a comment edited on both sides is a conflict; retry sends the desktop\'s body', async (t) => {
  const task = (await desktopTasks(desk)).find((x) => x.title === 'commented offline')
  t.equal((await owner('POST', `${DW}/tasks/${task.id}/comments`, { idempotency_key: randomUUID(), body: 'first' })).status, 201)
  await sync()
  const c = (await deskComments(task.id)).find((x: any) => x.body === 'first')
  t.equal((await owner('PATCH', `${DW}/tasks/${task.id}/comments/${c.id}`, { revision: c.revision, body: 'desktop body' })).status, 200)
  const r = (await cloudComments(task.id)).find((x: any) => x.id === c.id)
  t.equal((await cloud.req('PATCH', `${CW}/tasks/${task.id}/comments/${c.id}`, { revision: r.revision, body: 'cloud body' })).status, 200)
  await sync()
  const list = (await owner('GET', '/v1/portal/conflicts')).body.items
  t.equal(list.length, 1, JSON.stringify(list))
  t.match(list[0], { item_type: 'comment', record_id: c.id, number: task.number, payload: { body: 'desktop body' } }, 'listed with its task and the field')
  t.equal((await deskComments(task.id)).find((x: any) => x.id === c.id).body, 'cloud body', 'the desktop shows the portal\'s body meanwhile')
  const shown = await cli(desk.env, ['portal', 'conflicts'])
  t.match(shown.stdout, new RegExp(`^${list[0].seq}\\s+comment on task #${task.number} "commented offline"\\n\\s+conflict: body \\(`), 'the CLI names the comment by its task')
  t.equal((await owner('POST', `/v1/portal/conflicts/${list[0].seq}`, { action: 'retry' })).status, 200)
  await until('the retried body on both sides', async () => [(await cloudComments(task.id)).find((x: any) => x.id === c.id).body, (await deskComments(task.id)).find((x: any) => x.id === c.id).body],
    (b) => b[0] === 'desktop body' && b[1] === 'desktop body')
  await settled(t)
})

t.test('the tool server\'s comment syncs; a service ticket stays local and says so', async (t) => {
  const task = (await desktopTasks(desk)).find((x) => x.title === 'commented offline')
  const mcp = await connectMcp(t, desk.env as Record<string, string>)
  t.teardown(() => mcp.client.close())
  const r = await mcp.client.callTool({ name: 'project_comment_create', arguments: { item_id: task.id, body: 'from an agent', idempotency_key: randomUUID() } })
  t.notOk(r.isError, JSON.stringify(r.content))
  t.equal((r.content as unknown[]).length, 1, 'no "kept on this desktop" note')
  await sync()
  t.ok((await cloudComments(task.id)).some((c: any) => c.body === 'from an agent'), 'the agent\'s comment reached the cloud')
  const ticket = await owner('POST', `${DW}/tickets`, { idempotency_key: randomUUID(), subject: 'local ticket', body: 'stays here' })
  t.equal(ticket.status, 201, JSON.stringify(ticket.body))
  t.equal(ticket.headers['x-lookout-sync'], 'local', 'a service ticket says it stays local')
  const service = await owner('POST', `${DW}/services`, { idempotency_key: randomUUID(), name: 'local service' })
  t.equal(service.status, 201, JSON.stringify(service.body))
  t.equal(service.headers['x-lookout-sync'], 'local', 'so does a service')
  const st = (await owner('GET', '/v1/portal/connection')).body
  t.ok(st.local_only.includes('service tickets'))
  for (const shared of ['comments', 'deliverables', 'edges']) t.notOk(st.local_only.includes(shared), `${shared} are not listed as local`)
  t.match(LOCAL_ONLY_NOTE, /service tickets/)
})

t.test('deliverables and task links sync both ways: made offline, edited on each side, linked and unlinked', async (t) => {
  const d = await owner('POST', `${DW}/deliverables`, { idempotency_key: randomUUID(), title: 'offline deliverable' })
  t.equal(d.status, 201, JSON.stringify(d.body))
  t.equal(d.headers['x-lookout-sync'], undefined, 'a deliverable is no longer marked local')
  const linked = await owner('POST', `${DW}/tasks`, { idempotency_key: randomUUID(), title: 'linked offline', deliverable: d.body.id })
  t.equal(linked.status, 201, JSON.stringify(linked.body))
  t.equal((await sync()).state, 'connected')
  const there = (await cloud.req('GET', `${CW}/deliverables`)).body.items.filter((x: any) => x.title === 'offline deliverable')
  t.equal(there.length, 1, 'once on the cloud')
  const D = there[0].id
  t.not(D, d.body.id, 'the deliverable took its canonical id')
  const task = (await desktopTasks(desk)).find((x) => x.title === 'linked offline')
  t.equal(task.deliverable, D, 'the desktop\'s link follows the canonical id')
  t.equal((await remote(task.id)).deliverable, D, 'the link reached the cloud')
  // Edited on each side (the old id still resolves here).
  const mine = (await owner('GET', `${DW}/deliverables/${d.body.id}`)).body
  t.equal(mine.id, D)
  t.equal((await owner('PATCH', `${DW}/deliverables/${d.body.id}`, { revision: mine.revision, title: 'renamed here' })).status, 200)
  const theirs = (await cloud.req('GET', `${CW}/deliverables/${D}`)).body
  const due = day(20)
  t.equal((await cloud.req('PATCH', `${CW}/deliverables/${D}`, { revision: theirs.revision, due_on: due })).status, 200)
  await sync()
  const [h, c] = [(await owner('GET', `${DW}/deliverables/${D}`)).body, (await cloud.req('GET', `${CW}/deliverables/${D}`)).body]
  t.same([h.title, h.due_on, c.title, c.due_on], ['renamed here', due, 'renamed here', due], 'both edits on both sides')
  // Made and linked on the cloud; unlinked here.
  const cd = await cloud.req('POST', `${CW}/deliverables`, { idempotency_key: randomUUID(), title: 'cloud deliverable' })
  const ct = await cloud.req('POST', `${CW}/tasks`, { idempotency_key: randomUUID(), title: 'linked on the cloud', deliverable: cd.body.id })
  t.equal(ct.status, 201, JSON.stringify(ct.body))
  await sync()
  t.equal((await owner('GET', `${DW}/deliverables/${cd.body.id}`)).body.title, 'cloud deliverable', 'the cloud\'s deliverable came')
  t.equal((await local(ct.body.id)).deliverable, cd.body.id, 'with its task\'s link')
  const lt = await local(task.id)
  t.equal((await owner('PATCH', `${DW}/tasks/${task.id}`, { revision: lt.revision, deliverable: null })).status, 200)
  // Archived on the cloud.
  const cur = (await cloud.req('GET', `${CW}/deliverables/${cd.body.id}`)).body
  t.equal((await cloud.req('POST', `${CW}/deliverables/${cd.body.id}/actions`, { revision: cur.revision, action: 'archive' })).status, 200)
  await sync()
  t.equal((await remote(task.id)).deliverable, null, 'the unlink reached the cloud')
  t.equal((await owner('GET', `${DW}/deliverables/${cd.body.id}`)).body.archived, true, 'the cloud\'s archive reached the desktop')
  await settled(t)
})

t.test('the CLI says what happened: a failed round exits 1, the status follows the last attempt, no service is one line', async (t) => {
  await cloud.kill()
  const failed = await cli(desk.env, ['portal', 'sync'])
  t.equal(failed.code, 1, 'a failed round exits non-zero')
  t.match(failed.stdout, /state\s+offline/)
  t.match(failed.stderr, /^lookout portal sync: the round failed \(offline\): /)
  const off = (await owner('GET', '/v1/portal/connection')).body
  t.equal(off.state, 'offline')
  t.ok(off.last_error)
  const attempt = off.last_attempt_at
  t.ok(attempt, 'the last attempt is shown')
  await cloud.restart()
  const ok = await cli(desk.env, ['portal', 'sync'])
  t.equal(ok.code, 0, ok.stderr)
  const st = await cli(desk.env, ['portal', 'status'])
  t.match(st.stdout, /state\s+connected\n/)
  t.match(st.stdout, /last_error\s+-\n/, 'a stale error is cleared')
  t.match(st.stdout, /local by design\s+logs, monitoring configuration, credentials and grants, local incidents and notifications/)
  const after = (await owner('GET', '/v1/portal/connection')).body
  t.ok(after.last_attempt_at > attempt)
  // A portal read that cannot reach the portal is an attempt too.
  await cloud.kill()
  const rid = await desk.resource('cli-web')
  t.equal((await owner('GET', `/v1/portal/monitoring?resource_id=${rid}`)).status, 503)
  t.equal((await owner('GET', '/v1/portal/connection')).body.state, 'offline', 'the status says offline at once, not after the next round')
  await cloud.restart()

  const gone = await cli(desk.env, ['portal', 'status', '--socket', `${desk.base}/nothing-here.sock`])
  t.equal(gone.code, 1)
  t.equal(gone.stderr.trim().split('\n').length, 1, 'one line')
  t.match(gone.stderr, /^lookout: the desktop service is not running \(no owner socket at .*nothing-here\.sock\): start it with `lookout desktop`/)
  const usage = await cli(desk.env, ['portal'])
  t.match(usage.stdout, /^Usage:\n  lookout portal connect/)
  t.notMatch(usage.stdout, /lookout lookout/)
})
