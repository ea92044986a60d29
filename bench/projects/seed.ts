// The benchmark's workspace: a large seeded task list (one INSERT ... SELECT) and the
// filter combinations the list scenario cycles through. Shared by run.ts and page-cost.ts.
import { randomUUID } from 'node:crypto'
import { ALL_SCOPES, createToken, createWorkspace, projectStore, type ItemFilters } from '../../workspace/internal.ts'
import { migrate, type Database } from '../../core/index.ts'
import { PG_MIGRATIONS } from '../../deploy/index.ts'

export interface World {
  workspaceId: string
  token: string
  boardId: string
  statuses: string[]
  types: string[]
  labels: string[]
  /** Seeded task ids at revision 1, split between the baseline and the API runs of the update scenario. */
  idsForRaw: string[]
  idsForApi: string[]
}

// pinned-date: calendar dates the code never compares with the clock
export async function seed(db: Database, tasks = Number(process.env.BENCH_TASKS ?? 100_000)): Promise<World> {
  await migrate(db, PG_MIGRATIONS)
  const ws = await createWorkspace(db, 'bench')
  const { token } = await createToken(db, { workspaceId: ws.id, scopes: ALL_SCOPES, resources: 'all', name: 'bench', staffId: 1 })
  const boardId = await projectStore.ensureProject(db, ws.id)
  const statuses = (await db.query<{ id: string }>('SELECT id FROM project_statuses WHERE board_id = $1 ORDER BY position', [boardId])).rows.map((r) => r.id)
  const types: string[] = []
  const labels: string[] = []
  for (const [kind, list, n] of [['type', types, 2], ['label', labels, 5]] as const) {
    for (let i = 0; i < n; i++) {
      const id = randomUUID()
      await db.query('INSERT INTO project_taxonomy (id, workspace_id, kind, name, position) VALUES ($1, $2, $3, $4, $5)', [id, ws.id, kind, `${kind} ${i}`, i + 10])
      list.push(id)
    }
  }
  await db.query(
    `INSERT INTO project_items (id, workspace_id, item_type, kind, board_id, number, title, description, type_id, label_ids, status_id,
       priority, assignee, due_on, state, created_by)
     SELECT gen_random_uuid(), $1, 'task', CASE WHEN g % 50 = 0 THEN 'service_ticket' ELSE 'task' END, $2, g,
       'Task ' || g || ' ' || (ARRAY['deploy', 'invoice', 'backup', 'upgrade', 'review', 'incident'])[1 + g % 6], 'seeded for the benchmark',
       (ARRAY[$3::uuid, $4::uuid])[1 + g % 2],
       CASE g % 4 WHEN 0 THEN ARRAY[$5::uuid] WHEN 1 THEN ARRAY[$6::uuid] WHEN 2 THEN ARRAY[$5::uuid, $7::uuid] ELSE '{}'::uuid[] END,
       (ARRAY[$8::uuid, $9::uuid, $10::uuid])[1 + g % 3],
       (ARRAY['low', 'normal', 'high', 'urgent'])[1 + (g / 3) % 4],
       CASE WHEN g % 7 = 0 THEN NULL ELSE 1 + g % 20 END,
       DATE '2026-01-01' + (g % 365),
       (ARRAY['open', 'in_progress', 'done'])[1 + g % 3], 1
     FROM generate_series(1, $11::integer) g`,
    [ws.id, boardId, types[0], types[1], labels[0], labels[1], labels[2], statuses[0], statuses[1], statuses[2], tasks])
  await db.query('UPDATE project_workspaces SET next_number = $2 WHERE workspace_id = $1', [ws.id, tasks + 1])
  await db.exec('ANALYZE')
  const ids = (await db.query<{ id: string }>('SELECT id FROM project_items WHERE workspace_id = $1 ORDER BY seq', [ws.id])).rows.map((r) => r.id)
  const half = Math.floor(ids.length / 2)
  return { workspaceId: ws.id, token, boardId, statuses, types, labels, idsForRaw: ids.slice(0, half), idsForApi: ids.slice(half) }
}

// pinned-date: calendar dates the code never compares with the clock
/** The filter combinations the list scenario cycles through (query string and the same filters for the raw SQL). */
export function listCases(w: World): { query: string; filters: ItemFilters }[] {
  return [
    { query: 'limit=50', filters: {} },
    { query: `status_id=${w.statuses[1]}&priority=high&limit=50`, filters: { status_id: w.statuses[1], priority: 'high' } },
    { query: 'assignee_id=7&limit=50', filters: { assignee_id: 7 } },
    { query: `label_ids=${w.labels[1]}&type_ids=${w.types[1]}&limit=50`, filters: { label_ids: [w.labels[1] as string], type_ids: [w.types[1] as string] } },
    { query: 'due_before=2026-03-01&priority=urgent&limit=50', filters: { due_before: '2026-03-01', priority: 'urgent' } },
    { query: 'kind=service_ticket&state=open&limit=50', filters: { kind: 'service_ticket', state: 'open' } },
  ]
}

