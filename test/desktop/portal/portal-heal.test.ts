// A desktop that already holds the duplicates of a connect-first round (made
// by versions before issue 32: a second default board "Board" with its
// statuses and a second type "Task", every round after failing on
// project_boards_pkey) heals on upgrade: the duplicates fold into the portal's
// board, statuses and type, and the task made on them reaches the cloud once.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { openPglite } from '../../../core/index.ts'
import { startDesktopProcess } from '../desktop-helpers.ts'
import { cloudTasks, startCloud, startPortalDesktop } from './portal-helpers.ts'

t.test('a desktop holding a connect-first duplicate board and type heals', async (t) => {
  const cloud = await startCloud()
  t.teardown(() => cloud.stop())
  const first = await startPortalDesktop()
  t.teardown(() => first.stop())
  const CW = `/v1/workspaces/${cloud.workspaceId}`
  t.equal((await first.owner('POST', '/v1/portal/connection', { url: cloud.url, token: cloud.token })).status, 200)
  t.equal((await first.owner('POST', '/v1/portal/sync')).body.state, 'connected')
  await first.terminate()

  // What an older version's first project request left behind.
  const dir = join(first.env.LOOKOUT_DATA_DIR as string, 'postgres')
  t.ok(existsSync(dir), 'the desktop\'s PGlite directory')
  const db = await openPglite(dir)
  const ws = first.workspaceId
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
  const onCloud = await cloudTasks(cloud)
  t.equal(onCloud.length, 1, 'the task reached the cloud once')
  const here = (await desk.owner('GET', `/v1/projects/items/${made.body.id}`)).body
  t.equal(here.id, onCloud[0].id, 'under its canonical id (the old one still resolves)')
  t.equal(here.board_id, cloudBoards[0].id)
  t.equal(here.type_id, types[0].id)
  t.equal(onCloud[0].status_id, statuses[0].id, 'on the portal\'s own "To do"')
  const byOld = (await desk.owner('GET', `/v1/projects/items?board_id=${dupBoard}`)).body.items
  t.same(byOld.map((x: any) => x.id), [here.id], 'the old board id still selects its tasks')
})
