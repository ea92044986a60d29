// A data directory made before the list documents (migration `projects` 4) upgrades:
// its existing tasks, notes and deliverables get their list document at the first
// start, and the lists send each byte for byte as its own GET route does.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { PG_MIGRATIONS } from '../../../deploy/index.ts'
import { createWorkspace } from '../../../workspace/index.ts'
import { migrate, openPglite } from '../../../core/index.ts'
import { PGLITE_TEMPLATES, startTestLookout } from '../../helpers/lookout.ts'
import { settle } from './project-helpers.ts'

t.test('old rows get their list documents at the first start', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-list-docs-upgrade-'))

  // pinned-date: calendar dates the code never compares with the clock
  // The schema as it was: every migration except the projects stage's from version 4 on.
  const before = PG_MIGRATIONS.map((set) => (set.stage === 'projects' ? { ...set, migrations: set.migrations.filter((m) => m.version < 4) } : set))
  const old = await openPglite(join(dataDir, 'postgres'), { templateDir: PGLITE_TEMPLATES })
  await migrate(old, before)
  const ws = await createWorkspace(old, 'upgrade')
  const cols = (await old.query<{ column_name: string }>(`SELECT column_name FROM information_schema.columns WHERE table_name = 'project_items' AND column_name = 'list_doc'`)).rows
  t.equal(cols.length, 0, 'the old schema has no list document')
  const board = '7d0c8f0e-1111-4c1a-9b1a-000000000001'
  await old.query(`INSERT INTO project_boards (id, workspace_id, name, statuses_token) VALUES ($1, $2, 'old board', 'x')`, [board, ws.id])
  await old.query(`INSERT INTO project_workspaces (workspace_id, default_board_id, taxonomy_token) VALUES ($1, $2, 'x')`, [ws.id, board])
  // Rows as the old code wrote them, nulls and escapes included.
  await old.query(
    `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, number, title, description, label_ids, priority, assignee, due_on, state, created_by)
     VALUES (gen_random_uuid(), $1, 'task', 'task', $2, 1, $3, 'old', ARRAY[gen_random_uuid()], 'high', 4, '2026-01-31', 'open', 1),
            (gen_random_uuid(), $1, 'task', 'service_ticket', $2, 2, 'second', '', '{}', NULL, NULL, NULL, 'done', NULL)`,
    [ws.id, board, 'old "task" \\ é 😀\n'])
  await old.query(`INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, title, body, color, visibility) VALUES (gen_random_uuid(), $1, 'note', 'note', $2, '', 'a note', NULL, 'shared')`, [ws.id, board])
  await old.query(`INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, title, owner, state) VALUES (gen_random_uuid(), $1, 'deliverable', 'deliverable', $2, 'old deliverable', 3, 'open')`, [ws.id, board])
  await old.close()

  const lk = await startTestLookout({ dataDir })
  t.teardown(async () => {
    await lk.stop()
    rmSync(dataDir, { recursive: true, force: true })
  })
  await settle(lk)
  t.equal(lk.workspaceId, ws.id, 'the old workspace')

  const raw = async (path: string) => {
    const res = await fetch(lk.url + path, { headers: { authorization: `Bearer ${lk.token}` } })
    t.equal(res.status, 200, path)
    return res.text()
  }
  const P = `/v1/workspaces/${ws.id}`
  for (const [list, single] of [['tasks', 'tasks'], ['notes', 'notes'], ['deliverables', 'deliverables']] as const) {
    const page = await raw(`${P}/${list}`)
    const items = (JSON.parse(page) as { items: { id: string }[] }).items
    t.equal(items.length, list === 'tasks' ? 2 : 1, `${list}: every old row is listed`)
    for (const item of items) {
      let own = await raw(`${P}/${single}/${item.id}`)
      const extra = own.indexOf(',"progress":')
      if (extra !== -1) own = `${own.slice(0, extra)}}`
      t.ok(page.includes(own), `${list}: ${item.id} listed byte for byte as its GET body`)
    }
  }
  const stale = await lk.lookout.db.query<{ n: number }>('SELECT count(*)::int AS n FROM project_items WHERE list_doc IS DISTINCT FROM project_item_doc(project_items)')
  t.equal(stale.rows[0]?.n, 0, 'every row has its document')
})
