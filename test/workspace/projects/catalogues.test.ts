// Boards, board statuses (BoardConfigure) and the task taxonomy
// (TaxonomyConfigure): every action, the 64-character revision token, the rules.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startTestLookout } from '../../helpers/lookout.ts'
import { key, projectApi, settle } from './project-helpers.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
await settle(lk)
const api = projectApi(lk)
const { P } = api

t.test('boards: create (200, replay 200, conflict 409), client-chosen id, rename / archive / restore with revisions', async (t) => {
  const k = key()
  const first = await lk.req('POST', `${P}/project/boards`, { idempotency_key: k, name: 'Ops' })
  t.equal(first.status, 200, 'the contract answers 200 for board creation')
  t.match(first.body, { name: 'Ops', revision: 1, archived: false, is_default: false })
  t.equal(first.body.statuses_revision.length, 64)
  const replay = await lk.req('POST', `${P}/project/boards`, { idempotency_key: k, name: 'Ops' })
  t.same(replay.body, first.body)
  t.equal((await lk.req('POST', `${P}/project/boards`, { idempotency_key: k, name: 'Other' })).status, 409)
  const chosen = randomUUID()
  const withId = await lk.req('POST', `${P}/project/boards`, { idempotency_key: key(), name: 'Chosen', board_id: chosen })
  t.equal(withId.body.id, chosen)
  const dup = await lk.req('POST', `${P}/project/boards`, { idempotency_key: key(), name: 'Again', board_id: chosen })
  t.equal(dup.body.detail[0].type, 'LOOKOUT_PROJECT_DUPLICATE')
  t.equal((await lk.req('POST', `${P}/project/boards`, { idempotency_key: key(), name: 'n'.repeat(120) })).status, 200, 'name 120')
  t.equal((await lk.req('POST', `${P}/project/boards`, { idempotency_key: key(), name: 'n'.repeat(121) })).status, 422, 'name 121')
  t.equal((await lk.req('POST', `${P}/project/boards`, { idempotency_key: key(), name: '' })).status, 422, 'name 0')
  const id = first.body.id
  const rename = await lk.req('POST', `${P}/project/boards/${id}`, { revision: 1, action: 'rename', name: 'Operations' })
  t.match(rename.body, { name: 'Operations', revision: 2 })
  t.equal((await lk.req('POST', `${P}/project/boards/${id}`, { revision: 1, action: 'rename', name: 'Late' })).body.detail[0].type, 'LOOKOUT_PROJECT_STALE_REVISION')
  t.same((await lk.req('POST', `${P}/project/boards/${id}`, { revision: 2, action: 'rename' })).body.detail[0].loc, ['body', 'name'], 'rename needs a name')
  t.equal((await lk.req('POST', `${P}/project/boards/${id}`, { revision: 2, action: 'delete' })).body.detail[0].type, 'enum')
  const arch = await lk.req('POST', `${P}/project/boards/${id}`, { revision: 2, action: 'archive' })
  t.match(arch.body, { archived: true, revision: 3 })
  t.equal((await lk.req('POST', `${P}/project/boards/${id}`, { revision: 3, action: 'archive' })).body.detail[0].type, 'LOOKOUT_PROJECT_TRANSITION')
  t.same((await lk.req('GET', `${P}/project/boards?archived=true`)).body.items.map((b: { id: string }) => b.id), [id], 'the archive lists it')
  t.notOk((await lk.req('GET', `${P}/project/boards?limit=100`)).body.items.some((b: { id: string }) => b.id === id), 'live boards do not')
  t.match((await lk.req('POST', `${P}/project/boards/${id}`, { revision: 3, action: 'restore' })).body, { archived: false, revision: 4 })
  t.equal((await lk.req('POST', `${P}/project/boards/${id}`, { revision: 4, action: 'restore' })).status, 409)
  t.equal((await lk.req('POST', `${P}/project/boards/${randomUUID()}`, { revision: 1, action: 'archive' })).status, 404)
  const def = (await api.statuses()).board_id
  const noArchive = await lk.req('POST', `${P}/project/boards/${def}`, { revision: 1, action: 'archive' })
  t.equal(noArchive.body.detail[0].type, 'LOOKOUT_PROJECT_CATALOGUE_RULE', 'the default board stays')
  const feed = await lk.req('GET', `${P}/project/activity?board_id=${id}`)
  t.same(feed.body.items.map((e: { action: string }) => e.action), ['restore', 'archive', 'rename', 'create'])
  t.match(feed.body.items[2], { entity: 'board', before: { name: 'Ops' }, after: { name: 'Operations' } })
})

t.test('statuses: create, update, default, reorder, retire; the token changes each time and a stale one is 409', async (t) => {
  const b = await api.board('statuses')
  const cat0 = await api.statuses(b.id)
  t.equal(cat0.revision.length, 64)
  t.same(cat0.items.map((s: { name: string; category: string }) => [s.name, s.category]), [['To do', 'todo'], ['In progress', 'doing'], ['Done', 'done']])
  const post = (body: Record<string, unknown>) => lk.req('POST', `${P}/project/statuses`, { board_id: b.id, ...body })
  const created = await post({ revision: cat0.revision, action: 'create', name: 'Review', category: 'doing', color: 'purple' })
  t.equal(created.status, 200)
  t.not(created.body.revision, cat0.revision, 'a new token')
  const review = created.body.items.find((s: { name: string }) => s.name === 'Review')
  t.match(review, { category: 'doing', color: 'purple', position: 3, is_default: false })
  const stale = await post({ revision: cat0.revision, action: 'create', name: 'Lost', category: 'todo' })
  t.equal(stale.status, 409)
  t.equal(stale.body.detail[0].type, 'LOOKOUT_PROJECT_STALE_REVISION')
  t.notOk((await api.statuses(b.id)).items.some((s: { name: string }) => s.name === 'Lost'), 'nothing changed')
  let rev = created.body.revision
  const step = async (body: Record<string, unknown>) => {
    const r = await post({ revision: rev, ...body })
    if (r.status === 200) {
      t.not(r.body.revision, rev, `${String(body.action)} changes the token`)
      rev = r.body.revision
    }
    return r
  }
  t.equal((await step({ action: 'create', name: 'review', category: 'todo' })).body.detail[0].type, 'LOOKOUT_PROJECT_DUPLICATE', 'names are unique per board, any case')
  t.same((await step({ action: 'create', category: 'todo' })).body.detail[0].loc, ['body', 'name'])
  t.same((await step({ action: 'create', name: 'x' })).body.detail[0].loc, ['body', 'category'])
  t.equal((await step({ action: 'create', name: 'n'.repeat(61), category: 'todo' })).body.detail[0].type, 'string_too_long', 'name 61')
  t.equal((await step({ action: 'create', name: 'n'.repeat(60), category: 'todo' })).status, 200, 'name 60')
  t.equal((await step({ action: 'create', name: 'c', category: 'later' })).body.detail[0].type, 'enum')
  t.equal((await post({ revision: 'a'.repeat(63), action: 'create', name: 'x', category: 'todo' })).body.detail[0].type, 'string_too_short', 'token 63')
  t.equal((await post({ revision: 'a'.repeat(65), action: 'create', name: 'x', category: 'todo' })).body.detail[0].type, 'string_too_long', 'token 65')
  t.equal((await post({ revision: 'a'.repeat(64), action: 'create', name: 'x', category: 'todo' })).status, 409, 'token 64 but not current')
  const upd = await step({ action: 'update', status_id: review.id, name: 'In review', color: 'teal' })
  t.match(upd.body.items.find((s: { id: string }) => s.id === review.id), { name: 'In review', color: 'teal', category: 'doing' })
  const def = await step({ action: 'default', status_id: review.id })
  t.same(def.body.items.filter((s: { is_default: boolean }) => s.is_default).map((s: { id: string }) => s.id), [review.id], 'one default')
  const task = await api.task({ board_id: b.id })
  t.equal(task.status_id, review.id, 'new tasks land on the default status')
  t.equal(task.state, 'in_progress', 'whose category sets the initial state')
  const ids = def.body.items.map((s: { id: string }) => s.id)
  const reversed = [...ids].reverse()
  const ro = await step({ action: 'reorder', status_ids: reversed })
  t.same(ro.body.items.map((s: { id: string }) => s.id), reversed)
  t.equal((await step({ action: 'reorder', status_ids: reversed.slice(1) })).status, 422, 'reorder must list every active status')
  t.equal((await step({ action: 'reorder', status_ids: [...reversed.slice(1), reversed[1]] })).status, 422, 'no repeats')
  t.equal((await step({ action: 'reorder' })).status, 422, 'status_ids required')
  // Retire the default status that holds a task: the task moves, the replacement becomes the default.
  const todo = ro.body.items.find((s: { name: string }) => s.name === 'To do')
  t.equal((await step({ action: 'retire', status_id: review.id })).status, 422, 'replacement required')
  t.equal((await step({ action: 'retire', status_id: review.id, replacement_id: review.id })).status, 422, 'not itself')
  const ret = await step({ action: 'retire', status_id: review.id, replacement_id: todo.id })
  t.equal(ret.status, 200)
  t.notOk(ret.body.items.some((s: { id: string }) => s.id === review.id), 'gone from the active catalogue')
  t.equal(ret.body.items.find((s: { id: string }) => s.id === todo.id).is_default, true)
  const retired = (await lk.req('GET', `${P}/project/statuses?board_id=${b.id}&archived=true`)).body.items
  t.match(retired, [{ id: review.id, retired: true, replacement_id: todo.id }])
  const moved = (await lk.req('GET', `${P}/tasks/${task.id}`)).body
  t.match(moved, { status_id: todo.id, revision: 2 }, 'the task moved and got a new revision')
  t.equal((await step({ action: 'retire', status_id: review.id, replacement_id: todo.id })).body.detail[0].type, 'LOOKOUT_PROJECT_CATALOGUE_RULE', 'already retired')
  t.equal((await step({ action: 'default', status_id: review.id })).status, 409, 'a retired status is not the default')
  const assign = await lk.req('PATCH', `${P}/tasks/${task.id}`, { revision: 2, status_id: review.id })
  t.equal(assign.body.detail[0].type, 'reference_archived', 'nor assignable')
  t.equal((await step({ action: 'update', status_id: randomUUID(), name: 'x' })).body.detail[0].type, 'reference_not_found')
  t.equal((await lk.req('GET', `${P}/project/statuses?board_id=${randomUUID()}`)).status, 422)
  const feed = (await lk.req('GET', `${P}/project/activity?board_id=${b.id}&limit=100`)).body.items
  t.ok(feed.some((e: { entity: string; action: string; after: { moved_tasks?: number } }) => e.entity === 'status' && e.action === 'retire' && e.after.moved_tasks === 1))
  t.ok(feed.some((e: { item_id: string; after: { status_id?: string } }) => e.item_id === task.id && e.after?.status_id === todo.id), 'the move is in the task\'s history')
})

t.test('taxonomy: types and labels, every operation, archived choices', async (t) => {
  const cat0 = await api.taxonomy()
  t.equal(cat0.revision.length, 64)
  t.match(cat0.types, [{ name: 'Task', icon: 'task', is_default: true }])
  const post = (body: Record<string, unknown>) => lk.req('POST', `${P}/project/taxonomy`, body)
  let rev = cat0.revision
  const step = async (body: Record<string, unknown>) => {
    const r = await post({ revision: rev, ...body })
    if (r.status === 200) rev = r.body.revision
    return r
  }
  const bug = await step({ kind: 'type', operation: 'create', name: 'Bug', icon: 'bug' })
  const bugId = bug.body.types.find((c: { name: string }) => c.name === 'Bug').id
  t.equal((await post({ revision: cat0.revision, kind: 'label', operation: 'create', name: 'late' })).body.detail[0].type, 'LOOKOUT_PROJECT_STALE_REVISION')
  t.equal((await step({ kind: 'type', operation: 'create', name: 'x', icon: 'rocket' })).body.detail[0].type, 'enum', 'icon set')
  t.equal((await step({ kind: 'tag', operation: 'create', name: 'x' })).body.detail[0].type, 'enum', 'kind set')
  t.equal((await step({ kind: 'type', operation: 'delete', name: 'x' })).body.detail[0].type, 'enum', 'operation set')
  t.equal((await step({ kind: 'type', operation: 'create', name: 'BUG' })).body.detail[0].type, 'LOOKOUT_PROJECT_DUPLICATE')
  t.equal((await step({ kind: 'label', operation: 'create', name: 'n'.repeat(61) })).status, 422)
  const l1 = await step({ kind: 'label', operation: 'create', name: 'frontend' })
  const l2 = await step({ kind: 'label', operation: 'create', name: 'backend' })
  const [fe, be] = l2.body.labels.map((c: { id: string }) => c.id)
  t.same(l1.body.labels.map((c: { name: string; icon: unknown }) => [c.name, c.icon]), [['frontend', null]])
  const upd = await step({ kind: 'type', operation: 'update', id: bugId, name: 'Defect', icon: 'maintenance' })
  t.match(upd.body.types.find((c: { id: string }) => c.id === bugId), { name: 'Defect', icon: 'maintenance' })
  t.same((await step({ kind: 'type', operation: 'update', name: 'no id' })).body.detail[0].loc, ['body', 'id'])
  t.equal((await step({ kind: 'label', operation: 'update', id: bugId, name: 'x' })).body.detail[0].type, 'reference_not_found', 'a type id is not a label')
  const def = await step({ kind: 'type', operation: 'default', id: bugId })
  t.same(def.body.types.filter((c: { is_default: boolean }) => c.is_default).map((c: { id: string }) => c.id), [bugId])
  t.equal((await api.task()).type_id, bugId, 'new tasks take the default type')
  const defLabel = await step({ kind: 'label', operation: 'default', id: be })
  t.equal(defLabel.status, 200)
  t.same((await api.task()).label_ids, [be], 'and the default label when they name none')
  t.same((await api.task({ label_ids: [] })).label_ids, [], 'an explicit empty list is kept')
  const ro = await step({ kind: 'label', operation: 'reorder', order: [be, fe] })
  t.same(ro.body.labels.map((c: { id: string }) => c.id), [be, fe])
  t.equal((await step({ kind: 'label', operation: 'reorder', order: [be] })).status, 422)
  const tagged = await api.task({ label_ids: [fe], type_id: bugId })
  const arch = await step({ kind: 'type', operation: 'archive', id: bugId })
  t.notOk(arch.body.types.some((c: { id: string }) => c.id === bugId), 'archived types leave the active catalogue')
  const archived = await lk.req('GET', `${P}/project/taxonomy?archived=true`)
  t.match(archived.body.types, [{ id: bugId, archived: true, is_default: false }])
  t.equal((await step({ kind: 'type', operation: 'archive', id: bugId })).body.detail[0].type, 'LOOKOUT_PROJECT_CATALOGUE_RULE')
  t.equal((await step({ kind: 'type', operation: 'default', id: bugId })).body.detail[0].type, 'LOOKOUT_PROJECT_CATALOGUE_RULE')
  t.equal((await api.task()).type_id, null, 'no default type after archiving the default')
  t.equal((await lk.req('GET', `${P}/tasks/${tagged.id}`)).body.type_id, bugId, 'still on the task that has it')
  const newly = await lk.req('POST', `${P}/tasks`, { idempotency_key: key(), title: 'x', type_id: bugId })
  t.equal(newly.body.detail[0].type, 'reference_archived')
  t.equal((await step({ kind: 'label', operation: 'create', name: 'b', board_id: randomUUID() })).status, 422, 'a named board must exist')
  const feed = (await lk.req('GET', `${P}/project/activity?limit=100&q=Defect`)).body.items
  t.ok(feed.some((e: { entity: string; action: string }) => e.entity === 'type' && e.action === 'archive'))
})
