// A desktop that already holds the duplicates of a connect-first round (made
// by versions before issue 32: a second default board "Board" with its
// statuses and a second type "Task", every round after failing on
// project_boards_pkey) heals on upgrade (a task it agreed before the
// deliverable link was synced takes the portal's link): the duplicates fold into the portal's
// board, statuses and type, and the task made on them reaches the cloud once.
// Then a second desktop of the same portal workspace whose task carries a label
// archived before its first sync: the task is adopted, not a conflict.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { openPglite } from '../../../core/index.ts'
import { startDesktopProcess } from '../desktop-helpers.ts'
import { cloudTasks, startCloud, startPortalDesktop } from './portal-helpers.ts'

const cloud = await startCloud()
t.teardown(() => cloud.stop())

t.test('a desktop holding a connect-first duplicate board and type heals', async (t) => {
  const first = await startPortalDesktop()
  t.teardown(() => first.stop())
  const CW = `/v1/workspaces/${cloud.workspaceId}`
  t.equal((await first.owner('POST', '/v1/portal/connection', { url: cloud.url, token: cloud.token })).status, 200)
  t.equal((await first.owner('POST', '/v1/portal/sync')).body.state, 'connected')
  t.equal((await first.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), title: 'synced before the upgrade' })).status, 201)
  t.equal((await first.owner('POST', '/v1/portal/sync')).body.state, 'connected')
  await first.terminate()

  // What an older version's first project request left behind.
  const dir = join(first.env.LOOKOUT_DATA_DIR as string, 'postgres')
  t.ok(existsSync(dir), 'the desktop\'s PGlite directory')
  const db = await openPglite(dir)
  const ws = first.workspaceId
  // Agreed before the task <-> deliverable link was a synced field.
  await db.query(`UPDATE portal_items SET captured = captured - 'deliverable', base = base - 'deliverable'`)
  const dupBoard = randomUUID()
  const dupTodo = randomUUID()
  const dupType = randomUUID()
  await db.query(`INSERT INTO project_boards (id, workspace_id, name, statuses_token) VALUES ($1, $2, 'Board', 'x')`, [dupBoard, ws])
  for (const [i, [id, name, cat, color]] of [[dupTodo, 'To do', 'todo', 'gray'], [randomUUID(), 'In progress', 'doing', 'blue'], [randomUUID(), 'Done', 'done', 'green']].entries()) {
    await db.query(`INSERT INTO project_statuses (id, workspace_id, board_id, name, category, color, position, is_default) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [id, ws, dupBoard, name, cat, color, i, i === 0])
  }
  await db.query(`UPDATE project_taxonomy SET is_default = false WHERE workspace_id = $1`, [ws])
  await db.query(`INSERT INTO project_taxonomy (id, workspace_id, kind, name, icon, position, is_default) VALUES ($1, $2, 'type', 'Task', 'task', 0, true)`, [dupType, ws])
  await db.query('UPDATE project_workspaces SET default_board_id = $2, portal_shared = false WHERE workspace_id = $1', [ws, dupBoard])
  await db.close()

  // The upgraded desktop starts while the cloud is down; a task lands on the duplicate board and type.
  t.comment(`setup ${performance.now() | 0}`)
  await cloud.kill()
  const desk = await startDesktopProcess({}, first)
  t.teardown(() => desk.stop())
  const made = await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), title: 'on the duplicate board' })
  t.equal(made.status, 201)
  t.equal(made.body.board_id, dupBoard)
  t.equal(made.body.type_id, dupType)
  t.comment(`desktop up ${performance.now() | 0}`)
  await cloud.restart()
  t.comment(`cloud up ${performance.now() | 0}`)
  for (let i = 0; i < 2; i++) {
    const round = (await desk.owner('POST', '/v1/portal/sync')).body
    t.equal(round.state, 'connected', `round ${i + 1} after the upgrade: ${JSON.stringify(round)}`)
  }
  const boards = (await desk.owner('GET', '/v1/projects/boards')).body.items
  const cloudBoards = (await cloud.req('GET', `${CW}/project/boards`)).body.items
  t.equal(boards.length, 1, 'one board left on the desktop')
  t.equal(cloudBoards.length, 1, 'and on the cloud')
  t.equal(boards[0].id, cloudBoards[0].id)
  const types = (await desk.owner('GET', '/v1/projects/taxonomy')).body.types
  t.equal(types.length, 1, 'one type left on the desktop')
  t.equal((await cloud.req('GET', `${CW}/project/taxonomy`)).body.types.length, 1, 'and on the cloud')
  const statuses = (await desk.owner('GET', `/v1/projects/statuses?board_id=${boards[0].id}`)).body.items
  t.same(statuses.map((s: any) => s.name), ['To do', 'In progress', 'Done'], 'the statuses folded by name')
  const onCloud = (await cloudTasks(cloud)).filter((x) => x.title !== 'synced before the upgrade')
  t.equal(onCloud.length, 1, 'the task reached the cloud once')
  const here = (await desk.owner('GET', `/v1/projects/items/${made.body.id}`)).body
  t.equal(here.id, onCloud[0].id, 'under its canonical id (the old one still resolves)')
  t.equal(here.board_id, cloudBoards[0].id)
  t.equal(here.type_id, types[0].id)
  t.equal(onCloud[0].status_id, statuses[0].id, 'on the portal\'s own "To do"')
  const byOld = (await desk.owner('GET', `/v1/projects/items?board_id=${dupBoard}`)).body.items
  t.same(byOld.filter((x: any) => x.title !== 'synced before the upgrade').map((x: any) => x.id), [here.id], 'the old board id still selects its tasks')
  // A task agreed before links were synced: no link sent for it, and the portal's link comes back.
  t.equal((await desk.owner('GET', '/v1/portal/connection')).body.pending_operations, 0)
  const old = (await cloudTasks(cloud)).find((x) => x.title === 'synced before the upgrade')
  const d = await cloud.req('POST', `${CW}/deliverables`, { idempotency_key: randomUUID(), title: 'after the upgrade' })
  t.equal((await cloud.req('PATCH', `${CW}/tasks/${old.id}`, { revision: old.revision, deliverable: d.body.id })).status, 200)
  t.equal((await desk.owner('POST', '/v1/portal/sync')).body.state, 'connected')
  t.equal((await desk.owner('GET', `/v1/projects/items/${old.id}`)).body.deliverable, d.body.id, 'the portal\'s link reached the desktop')
})

t.test('a task whose label was archived before the first sync is adopted, not a conflict', async (t) => {
  const desk = await startPortalDesktop()
  t.teardown(() => desk.stop())
  const CW = `/v1/workspaces/${cloud.workspaceId}`
  const tax = async () => (await desk.owner('GET', '/v1/projects/taxonomy')).body
  const made = await desk.owner('POST', '/v1/projects/taxonomy', { idempotency_key: randomUUID(), kind: 'label', operation: 'create', name: 'old campaign', revision: (await tax()).revision })
  t.equal(made.status, 200)
  const label = made.body.labels.find((l: any) => l.name === 'old campaign')
  const task = await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), title: 'labelled, then the label archived', label_ids: [label.id] })
  t.equal(task.status, 201)
  const gone = await desk.owner('POST', '/v1/projects/taxonomy', { idempotency_key: randomUUID(), kind: 'label', operation: 'archive', id: label.id, revision: (await tax()).revision })
  t.equal(gone.status, 200, JSON.stringify(gone.body))
  t.equal((await desk.owner('POST', '/v1/portal/connection', { url: cloud.url, token: cloud.token })).status, 200)
  const round = (await desk.owner('POST', '/v1/portal/sync')).body
  t.equal(round.state, 'connected', JSON.stringify(round))
  const st = (await desk.owner('GET', '/v1/portal/connection')).body
  t.equal(st.conflicts, 0, JSON.stringify((await desk.owner('GET', '/v1/portal/conflicts')).body))
  t.equal(st.pending_operations, 0)
  const onCloud = (await cloudTasks(cloud)).find((x) => x.title === 'labelled, then the label archived')
  t.ok(onCloud, 'the task reached the cloud')
  const archived = (await cloud.req('GET', `${CW}/project/taxonomy?archived=true`)).body.labels.find((l: any) => l.name === 'old campaign')
  t.ok(archived, 'the label is archived on the cloud too')
  t.same(onCloud.label_ids, [archived.id], 'and the task carries it')
  const here = (await desk.owner('GET', `/v1/projects/items/${task.body.id}`)).body
  t.equal(here.id, onCloud.id)
  t.same(here.label_ids, [archived.id])
})
