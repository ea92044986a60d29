// Concurrent edits on one record, on PGlite and on a real PostgreSQL server:
// revision checks are atomic (exactly one of many edits at one revision wins),
// idempotent creation under a burst of identical requests (single or batch) creates once, and
// task numbers stay unique and gap-free under concurrent creation.
//
// Sending requests together does not by itself make their transactions overlap
// (the first may commit before the next begins). On the server each burst is
// therefore gated: a separate connection holds the contended row's lock while
// the requests arrive and lets go only once several of them are waiting on it
// inside their transactions, so they provably run at the same time. PGlite runs
// one transaction at a time; there the burst checks the interleaving in the API.
import t, { type Test } from 'tap'
import pg from 'pg'
import { readProjectEvents } from '../../../workspace/internal.ts'
import { startTestLookout, type TestLookout } from '../../helpers/lookout.ts'
import { postgresAvailable } from '../../helpers/postgres.ts'
import { key, projectApi, settle, startOnPostgres } from './project-helpers.ts'

/** The row a burst contends for: a task, or the workspace's project row (task counter, taxonomy token). */
type Contended = { table: 'project_items'; id: string } | { table: 'project_workspaces'; workspace_id: string }

/** Runs a burst of requests; on a server, only once they overlap (see the top). */
type Gate = <T>(t: Test, row: Contended, fire: () => Promise<T>[]) => Promise<T[]>

const together: Gate = (_t, _row, fire) => Promise.all(fire())

// The server's pool (core/db/postgres.ts) holds 10 connections: at most 10 transactions can wait at once.
const SERVER_POOL = 10

function serverGate(url: string): Gate {
  return async (t, row, fire) => {
    const holder = new pg.Client({ connectionString: url })
    const watcher = new pg.Client({ connectionString: url })
    await holder.connect()
    await watcher.connect()
    try {
      await holder.query('BEGIN')
      const locked = row.table === 'project_items'
        ? await holder.query('SELECT 1 FROM project_items WHERE id = $1 FOR UPDATE', [row.id])
        : await holder.query('SELECT 1 FROM project_workspaces WHERE workspace_id = $1 FOR UPDATE', [row.workspace_id])
      t.equal(locked.rowCount, 1, 'the contended row is held')
      const pending = Promise.all(fire())
      let waiting = 0
      const deadline = Date.now() + 30_000
      while (waiting < SERVER_POOL && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50))
        const r = await watcher.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND state = 'active' AND wait_event_type = 'Lock'`)
        waiting = r.rows[0]?.n ?? 0
      }
      t.ok(waiting >= 2, `${waiting} transactions of the burst were waiting on the row at the same time`)
      await holder.query('COMMIT')
      return await pending
    } finally {
      await holder.end()
      await watcher.end()
    }
  }
}

const N = 50

async function suite(t: Test, lk: TestLookout, burst: Gate): Promise<void> {
  const api = projectApi(lk)
  const { P } = api
  const workspaceRow: Contended = { table: 'project_workspaces', workspace_id: lk.workspaceId }

  t.test(`${N} concurrent PATCHes at one revision: exactly one wins, the rest are 409 and change nothing`, async (t) => {
    const task = await api.task({ title: 'contended' })
    const results = await burst(t, { table: 'project_items', id: task.id }, () => Array.from({ length: N }, (_, i) => lk.req('PATCH', `${P}/tasks/${task.id}`, { revision: 1, title: `writer ${i}` })))
    const won = results.filter((r) => r.status === 200)
    const lost = results.filter((r) => r.status === 409)
    t.equal(won.length, 1, 'one winner')
    t.equal(lost.length, N - 1, 'everyone else conflicts')
    t.ok(lost.every((r) => r.body.detail[0].type === 'LOOKOUT_PROJECT_STALE_REVISION'))
    const now = (await lk.req('GET', `${P}/tasks/${task.id}`)).body
    t.equal(now.revision, 2, 'one increment')
    t.equal(now.title, won[0]?.body.title, 'the winner\'s edit is the one stored')
    const feed = (await lk.req('GET', `${P}/project/activity?limit=100`)).body.items.filter((e: { item_id: string; action: string }) => e.item_id === task.id && e.action === 'update')
    t.equal(feed.length, 1, 'one activity entry')
  })

  t.test(`${N} concurrent claims with different users: one assignment, one outbox event`, async (t) => {
    const task = await api.task({ title: 'claimed' })
    const since = (await readProjectEvents(lk.lookout.db, 0, 100_000)).at(-1)?.seq ?? 0
    const results = await burst(t, { table: 'project_items', id: task.id }, () => Array.from({ length: N }, (_, i) => api.act(task.id, 'claim', 1, { assignee: 100 + i })))
    const won = results.filter((r) => r.status === 200)
    t.equal(won.length, 1)
    t.equal(results.filter((r) => r.status === 409).length, N - 1)
    const events = (await readProjectEvents(lk.lookout.db, since, 1000)).filter((e) => e.task_id === task.id)
    t.equal(events.length, 1)
    t.equal(events[0]?.assignee, won[0]?.body.assignee)
    t.equal((await lk.req('GET', `${P}/tasks/${task.id}`)).body.assignment_revision, 2)
  })

  t.test(`${N} concurrent desktop PATCHes (distinct keys) at one revision: one wins`, async (t) => {
    const task = (await lk.req('POST', '/v1/projects/items', { idempotency_key: key(), title: 'desk contended' })).body
    const results = await burst(t, { table: 'project_items', id: task.id }, () => Array.from({ length: N }, (_, i) => lk.req('PATCH', `/v1/projects/items/${task.id}`, { idempotency_key: key(), revision: 1, title: `d${i}` })))
    t.equal(results.filter((r) => r.status === 200).length, 1)
    t.equal(results.filter((r) => r.status === 409).length, N - 1)
    t.equal((await lk.req('GET', `/v1/projects/items/${task.id}`)).body.revision, 2)
  })

  t.test('a burst of identical creations with one key creates one task and answers every request with its body', async (t) => {
    const body = { idempotency_key: key(), title: `burst ${Math.random()}` }
    // On the server the first holder of the key waits for the task counter, the others for its key.
    const results = await burst(t, workspaceRow, () => Array.from({ length: 20 }, () => lk.req('POST', `${P}/tasks`, body)))
    t.equal(results.filter((r) => r.status === 201).length, 1, 'one creation')
    t.equal(results.filter((r) => r.status === 200).length, 19, 'the rest are replays')
    const first = results.find((r) => r.status === 201)?.body
    t.ok(results.every((r) => JSON.stringify(r.body) === JSON.stringify(first)), 'identical bodies')
    const listed = await lk.req('GET', `${P}/tasks?q=${encodeURIComponent(body.title)}`)
    t.equal(listed.body.items.length, 1)
  })

  t.test('a burst of identical task batches creates each task once and answers every request with its bodies', async (t) => {
    const items = [0, 1, 2, 3, 4].map((i) => ({ idempotency_key: key(), title: `batch burst ${i} ${Math.random()}` }))
    // On the server the first batch holds the keys and waits for the task counter, the others wait for the keys.
    const results = await burst(t, workspaceRow, () => Array.from({ length: 10 }, () => lk.req('POST', `${P}/tasks/batch`, { items })))
    t.ok(results.every((r) => r.status === 200), results.map((r) => r.status).join(' '))
    const statuses = results.map((r) => (r.body.items as { status: number }[]).map((x) => x.status).join(','))
    t.equal(statuses.filter((x) => x === '201,201,201,201,201').length, 1, 'one batch created them')
    t.equal(statuses.filter((x) => x === '200,200,200,200,200').length, 9, 'the rest are replays')
    const bodies = results.map((r) => JSON.stringify((r.body.items as { task: unknown }[]).map((x) => x.task)))
    t.ok(bodies.every((b) => b === bodies[0]), 'identical bodies')
    for (const it of items) t.equal((await lk.req('GET', `${P}/tasks?q=${encodeURIComponent(it.title)}`)).body.items.length, 1, `${it.title}: once`)
  })

  t.test('concurrent creations get unique, consecutive numbers', async (t) => {
    const results = await burst(t, workspaceRow, () => Array.from({ length: 30 }, (_, i) => lk.req('POST', `${P}/tasks`, { idempotency_key: key(), title: `numbered ${i}` })))
    t.ok(results.every((r) => r.status === 201))
    const numbers = results.map((r) => r.body.number as number).sort((a, b) => a - b)
    const first = numbers[0] as number
    t.same(numbers, Array.from({ length: 30 }, (_, i) => first + i))
  })

  t.test('concurrent catalogue changes with one token: one wins', async (t) => {
    const rev = (await api.taxonomy()).revision
    const results = await burst(t, workspaceRow, () => Array.from({ length: 20 }, (_, i) => lk.req('POST', `${P}/project/taxonomy`, { revision: rev, kind: 'label', operation: 'create', name: `race ${i}` })))
    t.equal(results.filter((r) => r.status === 200).length, 1)
    t.equal(results.filter((r) => r.status === 409).length, 19)
    t.equal((await api.taxonomy()).labels.filter((l: { name: string }) => l.name.startsWith('race ')).length, 1)
  })
}

t.test('PGlite', async (t) => {
  const lk = await startTestLookout()
  t.teardown(() => lk.stop())
  await settle(lk)
  await suite(t, lk, together)
})

t.test('PostgreSQL server', { skip: postgresAvailable() ? false : 'PostgreSQL binaries not installed' }, async (t) => {
  const { lk, url } = await startOnPostgres(t)
  t.equal(lk.lookout.db.embedded, false, 'running on the server')
  await suite(t, lk, serverGate(url))
})
