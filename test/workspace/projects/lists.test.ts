// The filter set on the list and get routes: each filter, their combinations,
// limits at their edges, signed keyset cursors, and paging while records arrive.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startTestLookout } from '../../helpers/lookout.ts'
import { key, projectApi, settle } from './project-helpers.ts'
import { projectStore } from '../../../workspace/internal.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
await settle(lk)
const api = projectApi(lk)
const { P } = api

// A small world on its own board, so the filters can be checked against a model.
const board = await api.board('filters')
const statuses = (await api.statuses(board.id)).items as { id: string; category: string }[]
const bug = await api.choice('type', 'Bug', 'bug')
const story = await api.choice('type', 'Story', 'story')
const red = await api.choice('label', 'red')
const blue = await api.choice('label', 'blue')
const green = await api.choice('label', 'green')
const deliverable = await api.deliverable({ title: 'launch', board_id: board.id })

interface Spec {
  title: string
  type_id: string
  label_ids: string[]
  assignee: number | null
  priority: string
  due_on: string | null
  status: number
  deliverable?: boolean
  ticket?: boolean
}
const specs: Spec[] = []
for (let i = 0; i < 24; i++) {
  specs.push({
    title: `${i % 3 === 0 ? 'alpha' : 'beta'} item ${i}${i === 5 ? ' 100%_done' : ''}`,
    type_id: i % 2 === 0 ? bug : story,
    label_ids: [[red], [blue], [red, green], []][i % 4] as string[],
    assignee: [null, 1, 2][i % 3] as number | null,
    priority: ['low', 'normal', 'high', 'urgent'][i % 4] as string,
    due_on: i % 5 === 0 ? null : `2026-07-${String(1 + (i % 28)).padStart(2, '0')}`,
    status: i % 3,
    deliverable: i % 6 === 0,
    ticket: i % 8 === 0,
  })
}
const made: { id: string; spec: Spec; state: string }[] = []
for (const s of specs) {
  const task = await api.task({
    title: s.title, board_id: board.id, type_id: s.type_id, label_ids: s.label_ids, assignee: s.assignee, priority: s.priority,
    due_on: s.due_on, status_id: (statuses[s.status] as { id: string }).id, deliverable: s.deliverable === true ? deliverable.id : null,
    source_ticket: s.ticket === true ? randomUUID() : null,
  })
  made.push({ id: task.id, spec: s, state: task.state })
}
const archivedOne = made[1] as { id: string }
await api.act(archivedOne.id, 'archive', 1)
const deletedOne = made[2] as { id: string }
await lk.req('DELETE', `${P}/tasks/${deletedOne.id}`, { revision: 1 })
const live = made.filter((m) => m.id !== archivedOne.id && m.id !== deletedOne.id)

/** Every id the route lists for the query, following cursors. */
async function all(path: string, query: string): Promise<string[]> {
  const ids: string[] = []
  let cursor: string | null = null
  for (let i = 0; i < 50; i++) {
    const r: { status: number; body: any } = await lk.req('GET', `${P}/${path}?board_id=${board.id}&limit=7${query === '' ? '' : `&${query}`}${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    if (r.status !== 200) throw new Error(`${path}?${query} → ${r.status} ${JSON.stringify(r.body)}`)
    ids.push(...r.body.items.map((x: { id: string }) => x.id))
    cursor = r.body.next_cursor
    if (cursor === null) return ids
  }
  throw new Error('too many pages')
}

const expect = (pred: (m: (typeof made)[number]) => boolean) => live.filter(pred).map((m) => m.id).reverse()

// pinned-date: calendar dates the code never compares with the clock
t.test('each filter alone matches the model, newest first, across pages', async (t) => {
  t.same(await all('tasks', ''), expect(() => true), 'no filter')
  t.same(await all('tasks', 'q=ALPHA'), expect((m) => m.spec.title.startsWith('alpha')), 'q is case-insensitive')
  t.same(await all('tasks', `q=${encodeURIComponent('100%_')}`), expect((m) => m.spec.title.includes('100%_')), 'q matches % and _ literally')
  t.same(await all('tasks', 'q=%25'), expect((m) => m.spec.title.includes('%')), 'a lone % is not a wildcard')
  t.same(await all('tasks', `status_id=${(statuses[1] as { id: string }).id}`), expect((m) => m.spec.status === 1), 'status_id')
  t.same(await all('tasks', 'state=in_progress'), expect((m) => m.state === 'in_progress'), 'state (from the status category at creation)')
  t.ok(live.some((m) => m.state === 'in_progress') && live.some((m) => m.state === 'done'), 'the model has several states')
  t.same(await all('tasks', `type_ids=${bug}`), expect((m) => m.spec.type_id === bug), 'type_ids, one value')
  t.same(await all('tasks', `type_ids=${bug}&type_ids=${story}`), expect(() => true), 'type_ids, any of several')
  t.same(await all('tasks', `label_ids=${green}`), expect((m) => m.spec.label_ids.includes(green)), 'label_ids')
  t.same(await all('tasks', `label_ids=${blue}&label_ids=${green}`), expect((m) => m.spec.label_ids.includes(blue) || m.spec.label_ids.includes(green)), 'label_ids match any')
  t.same(await all('tasks', 'assignee_id=2'), expect((m) => m.spec.assignee === 2), 'assignee_id')
  t.same(await all('tasks', 'unassigned=true'), expect((m) => m.spec.assignee === null), 'unassigned')
  t.same(await all('tasks', 'unassigned=false'), expect(() => true), 'unassigned=false does not filter')
  t.same(await all('tasks', 'priority=urgent'), expect((m) => m.spec.priority === 'urgent'), 'priority')
  t.same(await all('tasks', 'due_before=2026-07-10'), expect((m) => m.spec.due_on !== null && m.spec.due_on < '2026-07-10'), 'due_before is exclusive')
  t.same(await all('tasks', 'due_after=2026-07-10'), expect((m) => m.spec.due_on !== null && m.spec.due_on > '2026-07-10'), 'due_after is exclusive')
  t.same(await all('tasks', 'kind=service_ticket'), expect((m) => m.spec.ticket === true), 'kind')
  t.same(await all('tasks', 'kind=task'), expect((m) => m.spec.ticket !== true), 'kind task')
  t.same(await all('tasks', `deliverable_id=${deliverable.id}`), expect((m) => m.spec.deliverable === true), 'deliverable_id')
  t.same(await all('tasks', 'archived=true'), [archivedOne.id], 'archived lists the archive')
  t.same(await all('tasks', 'deleted=true'), [deletedOne.id], 'deleted lists the trash')
})

// pinned-date: calendar dates the code never compares with the clock
t.test('filters combine with AND', async (t) => {
  const combos: [string, (m: (typeof made)[number]) => boolean][] = [
    [`type_ids=${bug}&label_ids=${red}`, (m) => m.spec.type_id === bug && m.spec.label_ids.includes(red)],
    [`q=beta&assignee_id=1&priority=normal`, (m) => m.spec.title.startsWith('beta') && m.spec.assignee === 1 && m.spec.priority === 'normal'],
    [`status_id=${(statuses[0] as { id: string }).id}&unassigned=true&due_after=2026-07-01`, (m) => m.spec.status === 0 && m.spec.assignee === null && m.spec.due_on !== null && m.spec.due_on > '2026-07-01'],
    [`label_ids=${red}&label_ids=${green}&type_ids=${story}&due_before=2026-07-20`, (m) => m.spec.label_ids.some((l) => l === red || l === green) && m.spec.type_id === story && m.spec.due_on !== null && m.spec.due_on < '2026-07-20'],
    [`kind=service_ticket&deliverable_id=${deliverable.id}`, (m) => m.spec.ticket === true && m.spec.deliverable === true],
    ['assignee_id=1&unassigned=true', () => false],
    ['due_after=2026-07-05&due_before=2026-07-12&priority=high', (m) => m.spec.due_on !== null && m.spec.due_on > '2026-07-05' && m.spec.due_on < '2026-07-12' && m.spec.priority === 'high'],
  ]
  for (const [q, pred] of combos) t.same(await all('tasks', q), expect(pred), q)
  const some = expect((m) => m.spec.type_id === bug && m.spec.label_ids.includes(red))
  t.ok(some.length > 0, 'a combination with results')
})

t.test('tickets list: tasks of kind service_ticket with the same filters', async (t) => {
  t.same(await all('tickets', ''), expect((m) => m.spec.ticket === true))
  t.same(await all('tickets', 'priority=low'), expect((m) => m.spec.ticket === true && m.spec.priority === 'low'))
  t.same(await all('tickets', 'kind=task'), [], 'asking tickets for plain tasks finds none')
})

t.test('get routes take the filter set: board and trash narrow the read', async (t) => {
  const one = live[0] as { id: string }
  t.equal((await lk.req('GET', `${P}/tasks/${one.id}?board_id=${board.id}&limit=5&q=x&priority=low`)).status, 200, 'list-only filters are accepted on a get')
  t.equal((await lk.req('GET', `${P}/tasks/${one.id}?board_id=${randomUUID()}`)).status, 404)
  t.equal((await lk.req('GET', `${P}/tasks/${one.id}?deleted=true`)).status, 404, 'a live task is not in the trash')
  t.equal((await lk.req('GET', `${P}/tasks/${one.id}?limit=101`)).status, 422, 'bounds hold on gets too')
  t.equal((await lk.req('GET', `${P}/tasks/${one.id}?unknown=1`)).status, 422, 'unknown query parameters refused')
  const d = await lk.req('GET', `${P}/deliverables/${deliverable.id}?limit=2`)
  t.equal(d.status, 200)
  t.equal(d.body.id, deliverable.id)
  t.equal(d.body.tasks.items.length, 2, 'the deliverable\'s tasks, a page of them')
  t.type(d.body.tasks.next_cursor, 'string')
  const rest = await lk.req('GET', `${P}/deliverables/${deliverable.id}?limit=100&cursor=${encodeURIComponent(d.body.tasks.next_cursor)}`)
  t.same([...d.body.tasks.items, ...rest.body.tasks.items].map((x: { id: string }) => x.id), expect((m) => m.spec.deliverable === true))
  t.same(d.body.progress, { total: expect((m) => m.spec.deliverable === true).length, done: live.filter((m) => m.spec.deliverable === true && m.state === 'done').length })
})

t.test('limit 0/1/100/101, q 160/161, bad values', async (t) => {
  const get = (q: string) => lk.req('GET', `${P}/tasks?${q}`)
  const zero = await get('limit=0')
  t.equal(zero.status, 422)
  t.same(zero.body.detail[0], { loc: ['query', 'limit'], msg: 'Input should be greater than or equal to 1', type: 'greater_than_equal', input: 0, ctx: { ge: 1 } })
  t.equal((await get('limit=1')).body.items.length, 1)
  t.equal((await get('limit=100')).status, 200)
  t.equal((await get('limit=101')).body.detail[0].type, 'less_than_equal')
  t.equal((await get('')).body.items.length, Math.min(50, (await get('limit=100')).body.items.length), 'default 50')
  t.equal((await get(`q=${'q'.repeat(160)}`)).status, 200)
  t.equal((await get(`q=${'q'.repeat(161)}`)).body.detail[0].type, 'string_too_long')
  t.equal((await get('assignee_id=0')).body.detail[0].type, 'greater_than')
  t.equal((await get('priority=meh')).body.detail[0].type, 'enum')
  t.equal((await get('kind=bug')).body.detail[0].type, 'enum')
  t.equal((await get('archived=maybe')).body.detail[0].type, 'bool_type')
  t.equal((await get('due_before=tomorrow')).body.detail[0].type, 'date_parsing')
  t.equal((await get('type_ids=nope')).body.detail[0].type, 'uuid_parsing')
  t.same((await get('status_id=nope')).body.detail[0].loc, ['query', 'status_id'])
  const ids = Array.from({ length: 100 }, () => `label_ids=${randomUUID()}`).join('&')
  t.equal((await get(ids)).status, 200, '100 label ids')
  t.equal((await get(`${ids}&label_ids=${randomUUID()}`)).body.detail[0].type, 'too_long', '101 label ids')
})

t.test('cursors are signed: a forged or foreign cursor is a 422', async (t) => {
  const first = await lk.req('GET', `${P}/tasks?board_id=${board.id}&limit=3`)
  const c = first.body.next_cursor as string
  const [body, sig] = c.split('.') as [string, string]
  const forged = Buffer.from(JSON.stringify(['tasks', '1'])).toString('base64url') + '.' + sig
  const r = await lk.req('GET', `${P}/tasks?cursor=${encodeURIComponent(forged)}`)
  t.equal(r.status, 422)
  t.same(r.body.detail[0].loc, ['query', 'cursor'])
  t.equal((await lk.req('GET', `${P}/notes?cursor=${encodeURIComponent(c)}`)).status, 422, 'a tasks cursor is not a notes cursor')
  t.equal((await lk.req('GET', `${P}/tasks?cursor=garbage`)).status, 422)
  t.equal((await lk.req('GET', `${P}/tasks?board_id=${board.id}&limit=3&cursor=${encodeURIComponent(`${body}.${sig}`)}`)).status, 200)
})

t.test('paging while tasks are added: no repeats, no skips of what existed, new ones at the front', async (t) => {
  const b = await api.board('paging')
  const initial: string[] = []
  for (let i = 0; i < 30; i++) initial.push((await api.task({ board_id: b.id, title: `p${i}` })).id)
  const seen: string[] = []
  let cursor: string | null = null
  let added = 0
  do {
    const r: { body: any } = await lk.req('GET', `${P}/tasks?board_id=${b.id}&limit=4${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    seen.push(...r.body.items.map((x: { id: string }) => x.id))
    cursor = r.body.next_cursor
    // Two arrivals between every page.
    await api.task({ board_id: b.id, title: `late${added++}` })
    await api.task({ board_id: b.id, title: `late${added++}` })
  } while (cursor !== null)
  t.same(seen, [...initial].reverse(), 'exactly the tasks that existed, each once, newest first')
  const fresh = await lk.req('GET', `${P}/tasks?board_id=${b.id}&limit=2`)
  t.match(fresh.body.items[0].title, /^late/, 'a refresh shows the arrivals first')
})

// pinned-date: calendar dates the code never compares with the clock
t.test('lists of the other routes use the same filter set', async (t) => {
  const b = await api.board('others')
  const n1 = await api.note({ board_id: b.id, title: 'shopping', body: 'milk' })
  const n2 = await api.note({ board_id: b.id, title: 'ideas', body: 'more milk' })
  const notes = await lk.req('GET', `${P}/notes?board_id=${b.id}&q=milk`)
  t.same(notes.body.items.map((x: { id: string }) => x.id), [n2.id, n1.id])
  t.same((await lk.req('GET', `${P}/notes?board_id=${b.id}&q=shop`)).body.items.map((x: { id: string }) => x.id), [n1.id])
  const d1 = await api.deliverable({ board_id: b.id, owner: 3, due_on: '2026-08-01' })
  const d2 = await api.deliverable({ board_id: b.id, due_on: '2026-09-01' })
  t.same((await lk.req('GET', `${P}/deliverables?board_id=${b.id}&assignee_id=3`)).body.items.map((x: { id: string }) => x.id), [d1.id], 'assignee_id is the owner for deliverables')
  t.same((await lk.req('GET', `${P}/deliverables?board_id=${b.id}&unassigned=true`)).body.items.map((x: { id: string }) => x.id), [d2.id])
  t.same((await lk.req('GET', `${P}/deliverables?board_id=${b.id}&due_before=2026-08-15`)).body.items.map((x: { id: string }) => x.id), [d1.id])
  const boards = await lk.req('GET', `${P}/project/boards?q=other`)
  t.same(boards.body.items.map((x: { id: string }) => x.id), [b.id])
  t.equal((await lk.req('GET', `${P}/project/boards?limit=101`)).status, 422)
  const one = await lk.req('GET', `${P}/project/boards?limit=1`)
  t.equal(one.body.items.length, 1)
  const two = await lk.req('GET', `${P}/project/boards?limit=1&cursor=${encodeURIComponent(one.body.next_cursor)}`)
  t.not(two.body.items[0].id, one.body.items[0].id, 'boards page too')
  const act = await lk.req('GET', `${P}/project/activity?board_id=${b.id}&q=deliverable`)
  t.ok(act.body.items.length >= 2 && act.body.items.every((e: { board_id: string; summary: string }) => e.board_id === b.id && /deliverable/.test(e.summary)), 'activity by board and text')
  t.equal((await lk.req('GET', `${P}/project/activity?limit=0`)).status, 422)
  const tl = await lk.req('GET', `${P}/project/timeline?board_id=${b.id}`)
  t.same(tl.body.items.map((x: { id: string }) => x.id), [d1.id, d2.id], 'timeline: dated records, earliest first')
  t.same(tl.body.items.map((x: { timeline_date: string }) => x.timeline_date), ['2026-08-01', '2026-09-01'])
  const tl1 = await lk.req('GET', `${P}/project/timeline?board_id=${b.id}&limit=1`)
  const tl2 = await lk.req('GET', `${P}/project/timeline?board_id=${b.id}&limit=1&cursor=${encodeURIComponent(tl1.body.next_cursor)}`)
  t.same([tl1.body.items[0].id, tl2.body.items[0].id, tl2.body.next_cursor], [d1.id, d2.id, null], 'timeline pages')
  t.equal((await lk.req('GET', `${P}/project/timeline?cursor=${encodeURIComponent(tl1.body.next_cursor.slice(0, -1) + (tl1.body.next_cursor.endsWith('A') ? 'B' : 'A'))}`)).status, 422)
})

t.test('project overview, assignees: counts over the filtered tasks', async (t) => {
  const o = await lk.req('GET', `${P}/project?board_id=${board.id}`)
  t.equal(o.status, 200)
  t.equal(o.body.tasks.total, live.length)
  t.equal(o.body.tasks.unassigned, live.filter((m) => m.spec.assignee === null).length)
  t.equal(o.body.tasks.by_state.done, live.filter((m) => m.state === 'done').length)
  t.equal(o.body.tasks.by_priority.urgent, live.filter((m) => m.spec.priority === 'urgent').length)
  t.equal(o.body.deliverables, 1)
  const o2 = await lk.req('GET', `${P}/project?board_id=${board.id}&assignee_id=2&priority=high`)
  t.equal(o2.body.tasks.total, live.filter((m) => m.spec.assignee === 2 && m.spec.priority === 'high').length)
  const a = await lk.req('GET', `${P}/project/assignees?board_id=${board.id}`)
  const byUser = Object.fromEntries(a.body.items.map((m: { user_id: number; tasks: number }) => [m.user_id, m.tasks]))
  t.equal(byUser[1], live.filter((m) => m.spec.assignee === 1).length)
  t.equal(byUser[2], live.filter((m) => m.spec.assignee === 2).length)
  const me = a.body.items.find((m: { user_id: number }) => m.user_id === 1)
  t.match(me, { id: 'profile:1', active: true }, 'user 1 holds a live credential')
  t.equal(a.body.items.find((m: { user_id: number }) => m.user_id === 2).active, false)
  const p1 = await lk.req('GET', `${P}/project/assignees?limit=1`)
  const p2 = await lk.req('GET', `${P}/project/assignees?limit=1&cursor=${encodeURIComponent(p1.body.next_cursor)}`)
  t.ok(p2.body.items[0].user_id > p1.body.items[0].user_id, 'assignees page by user id')
  t.same((await lk.req('GET', `${P}/project/assignees?assignee_id=2`)).body.items.map((m: { user_id: number }) => m.user_id), [2])
  void key
})

// pinned-date: calendar dates the code never compares with the clock
t.test('page texts: closed-set values and the workspace are literals, everything else a parameter', async (t) => {
  const ws = randomUUID()
  const text = (f: Parameters<typeof projectStore.itemPageQuery>[2], limit = 50) => projectStore.itemPageQuery(ws, ['task'], f, true, limit, null)
  const q = text({ state: 'in_progress', priority: 'high', kind: 'service_ticket', assignee_id: 2 })
  t.match(q.text, `workspace_id = '${ws}'::uuid`)
  t.match(q.text, /item_type = 'task' .* state = 'in_progress' .* priority = 'high' .* kind = 'service_ticket'/)
  t.match(q.text, /assignee = \$1::integer .* LIMIT 51$/)
  t.same(q.values, [2], 'the assignee is the one parameter')
  // The state filter is free text in the contract: a value outside the model is bound, never written.
  const odd = text({ state: "x' OR true --" })
  t.notMatch(odd.text, /OR true/)
  t.same(odd.values, ["x' OR true --"])
  t.same((await lk.req('GET', `${P}/tasks?state=${encodeURIComponent("x' OR true --")}`)).body.items, [], 'and matches nothing')
  t.same([1, 10, 11, 25, 37, 50, 51, 100].map((n) => /LIMIT (\d+)$/.exec(text({}, n).text)?.[1]), ['11', '11', '26', '26', '51', '51', '101', '101'], 'a page fetches the smallest size that covers it')
  t.match(text({}, 500).text, /LIMIT \$\d+::integer$/, 'beyond the sizes the limit is a parameter')
  t.match(text({ due_before: '2026-07-10' }).text, /due_on < \$1::date .* LIMIT \$2::integer$/, 'a due-date page keeps its LIMIT a parameter')
  const one = await lk.req('GET', `${P}/tasks?board_id=${board.id}&limit=${live.length}`)
  t.equal(one.body.next_cursor, null)
  t.same(one.body.items.map((x: { id: string }) => x.id), await all('tasks', ''), `one page of ${live.length} (fetching 26) and pages of 7 (fetching 11) agree`)
})
