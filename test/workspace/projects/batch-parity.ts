// The batch route (`POST …/tasks/batch`, written by createTasks in a few
// multi-row statements) against the single route (`POST …/tasks`, createTask
// per item): the same items make the same tasks (fields, consecutive numbers in
// item order), the same activity entries and assignment events, the same
// refusals at the same fields, the same replays and conflicts. Run by
// tasks.test.ts on its cloud.
import { randomUUID } from 'node:crypto'
import type { Test } from 'tap'
import { readProjectEvents } from '../../../workspace/internal.ts'
import { createSubscription, updateSubscription } from '../../../alerting/index.ts'
import type { TestLookout } from '../../helpers/lookout.ts'
import { key, type ProjectApi } from './project-helpers.ts'

type Item = Record<string, unknown> & { idempotency_key: string }
type Result = { status: number; task?: any; detail?: { loc: (string | number)[]; type: string; msg: string }[] }

/** The varied items, each with a fresh key: defaults, every field, named and default statuses, another board, taxonomy, a deliverable, refusals, a repeated key, a reused one. */
async function itemsFor(lk: TestLookout, api: ProjectApi, reused: Item): Promise<Item[]> {
  const board = await api.board()
  const doing = (await api.statuses()).items.find((s: { category: string }) => s.category === 'doing').id
  const label = await api.choice('label', `parity ${randomUUID().slice(0, 8)}`)
  const type = (await api.taxonomy()).types[0].id
  const deliverable = (await api.deliverable()).id
  const k = () => ({ idempotency_key: key() })
  // Calendar days from the test's own clock: today + n days, YYYY-MM-DD.
  const day = (n: number) => new Date(Date.now() + n * 86_400_000).toISOString().slice(0, 10)
  const repeated = { ...k(), title: 'sent twice in one go' }
  return [
    { ...k(), title: 'defaults' },
    { ...k(), title: 'every field', description: 'd', acceptance: 'a', priority: 'high', assignee: 7, reviewer: 8, starts_on: day(1), due_on: day(5) },
    { ...k(), title: 'a named status', status_id: doing },
    { ...k(), title: 'another board', board_id: board.id },
    { ...k(), title: 'bad status', status_id: randomUUID() },
    { ...k(), title: 'taxonomy', type_id: type, label_ids: [label, label.toUpperCase()] },
    { ...k(), title: 'no such board', board_id: randomUUID() },
    repeated,
    { ...k(), title: 'a deliverable', deliverable, assignee: 9 },
    { ...k(), title: 'two problems', label_ids: [randomUUID()], starts_on: day(33), due_on: day(32) },
    repeated,
    { ...reused, title: 'other content' },
    { ...k(), title: 'last' },
  ]
}

/** What a result says without its ids, times and number (numbers are compared as offsets). */
function shape(r: Result, first: number): unknown {
  // A field's location without the item's place (['body', 'items', i, …] in a batch, ['body', …] alone).
  const field = (loc: (string | number)[]) => (loc[1] === 'items' ? loc.slice(3) : loc.slice(1))
  if (r.task === undefined) return { status: r.status, detail: r.detail?.map((d) => ({ ...d, loc: field(d.loc) })) }
  const { id: _i, number, created_at: _c, updated_at: _u, ...rest } = r.task
  return { status: r.status, number: number - first, ...rest }
}

async function activityOf(lk: TestLookout, ids: string[]): Promise<unknown[]> {
  const r = await lk.lookout.db.query<{ item_id: string; summary: string; board_id: string; entity: string; action: string; actor: unknown; before: unknown; after: unknown; note: string }>(
    'SELECT item_id, summary, board_id, entity, action, actor, before, after, note FROM project_activity WHERE item_id = ANY($1::uuid[]) ORDER BY seq', [ids])
  return r.rows.map(({ item_id, summary, ...e }) => ({ task: ids.indexOf(item_id), summary: summary.replace(/#\d+/, '#N'), ...e }))
}

async function eventsOf(lk: TestLookout, ids: string[]): Promise<unknown[]> {
  const events = (await readProjectEvents(lk.lookout.db, 0, 100_000)).filter((e) => ids.includes(e.task_id))
  return events.map(({ seq: _s, id: _i, occurred_at: _o, task_id, task_number: _n, ...e }) => ({ task: ids.indexOf(task_id), ...e }))
}

async function deliveriesOf(lk: TestLookout, ids: string[]): Promise<unknown[]> {
  const r = await lk.lookout.db.query<{ task_id: string }>(
    `SELECT task_id, event_type, previous_assignee, assignee, assignee_kind, task_revision FROM webhook_deliveries WHERE task_id = ANY($1::uuid[]) ORDER BY task_id`, [ids])
  return r.rows.map(({ task_id, ...d }) => ({ task: ids.indexOf(task_id), ...d })).sort((a, b) => a.task - b.task)
}

export async function batchParity(t: Test, lk: TestLookout, api: ProjectApi): Promise<void> {
  const P = api.P
  // An enabled assignment webhook for one of the assignees: its delivery rows are written with the events (nothing listens on port 9).
  const { subscription } = await createSubscription(lk.lookout.db, lk.workspaceId, { url: 'http://127.0.0.1:9/hook', assignee_ids: [9] }, undefined)
  const on = await updateSubscription(lk.lookout.db, lk.workspaceId, subscription.id, { generation: subscription.generation, enabled: true }, undefined, Date.now())
  // Disabled afterwards (its failing deliveries are cancelled), not deleted: attempts may already name its deliveries.
  t.teardown(() => updateSubscription(lk.lookout.db, lk.workspaceId, subscription.id, { generation: on.subscription.generation, enabled: false }, undefined, Date.now()))
  const reusedOne = { idempotency_key: key(), title: 'first content' }
  const reusedBatch = { idempotency_key: key(), title: 'first content' }
  t.equal((await lk.req('POST', `${P}/tasks`, reusedOne)).status, 201)
  t.equal((await lk.req('POST', `${P}/tasks`, reusedBatch)).status, 201)
  const single: Result[] = []
  for (const item of await itemsFor(lk, api, reusedOne)) {
    const r = await lk.req('POST', `${P}/tasks`, item)
    single.push(r.status === 201 || r.status === 200 ? { status: r.status, task: r.body } : { status: r.status, detail: r.body.detail })
  }
  const batch = await lk.req('POST', `${P}/tasks/batch`, { items: await itemsFor(lk, api, reusedBatch) })
  t.equal(batch.status, 200, JSON.stringify(batch.body))
  const batched: Result[] = batch.body.items
  t.same(batched.map((r) => r.status), single.map((r) => r.status), 'the same outcome per item')
  t.same(batched.map((r) => r.status), [201, 201, 201, 201, 422, 201, 422, 201, 201, 422, 200, 409, 201])
  // Ids of the items' own references (board, label, deliverable) differ between the two runs: compare them by position.
  const refs = (rs: Result[]) => rs.map((r) => [r.task?.board_id, r.task?.label_ids, r.task?.deliverable])
  const strip = (rs: Result[]) => rs.map((r) => (r.task === undefined ? r : { ...r, task: { ...r.task, board_id: null, label_ids: r.task.label_ids.length, deliverable: r.task.deliverable !== null } }))
  const firstOf = (rs: Result[]) => rs.find((r) => r.task !== undefined)?.task.number as number
  const norm = (xs: unknown[]) => JSON.parse(JSON.stringify(xs).replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, 'ID'))
  t.same(norm(strip(batched).map((r) => shape(r, firstOf(batched)))), norm(strip(single).map((r) => shape(r, firstOf(single)))),
    'the same tasks, refusals (at the same fields) and replays; numbers consecutive in item order')
  t.same(refs(batched).map((x) => x.map((v) => v == null)), refs(single).map((x) => x.map((v) => v == null)))
  t.same(batched[10]?.task, batched[7]?.task, 'the repeated key replays its first creation in the batch')
  const ids = (rs: Result[]) => rs.filter((r) => r.status === 201).map((r) => r.task.id as string)
  t.same(norm(await activityOf(lk, ids(batched))), norm(await activityOf(lk, ids(single))), 'the same activity entries, in order')
  const events = await eventsOf(lk, ids(batched))
  t.equal(events.length, 2, 'assignment events of the two assigned tasks')
  t.same(norm(events), norm(await eventsOf(lk, ids(single))), 'the same assignment events')
  const deliveries = await deliveriesOf(lk, ids(batched))
  t.equal(deliveries.length, 1, 'one delivery: the subscription names one of the assignees')
  t.same(deliveries, await deliveriesOf(lk, ids(single)), 'the same webhook deliveries')
  const refused = batched.filter((r) => r.status === 422).map((r) => r.detail?.[0]?.loc)
  t.same(refused.map((l) => l?.slice(0, 3)), [['body', 'items', 4], ['body', 'items', 6], ['body', 'items', 9]], 'refusals located at their items')
}
