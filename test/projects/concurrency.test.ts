// Concurrent edits on one record, on PGlite and on a real PostgreSQL server:
// revision checks are atomic (exactly one of many edits at one revision wins),
// idempotent creation under a burst of identical requests creates once, and
// task numbers stay unique and gap-free under concurrent creation.
import t, { type Test } from 'tap'
import { readProjectEvents } from '../../api/index.ts'
import { startTestLookout, type TestLookout } from '../helpers/lookout.ts'
import { postgresAvailable, startTestPostgres } from '../helpers/postgres.ts'
import { key, projectApi, settle } from './project-helpers.ts'

const N = 50

async function suite(t: Test, lk: TestLookout): Promise<void> {
  const api = projectApi(lk)
  const { P } = api

  t.test(`${N} concurrent PATCHes at one revision: exactly one wins, the rest are 409 and change nothing`, async (t) => {
    const task = await api.task({ title: 'contended' })
    const results = await Promise.all(Array.from({ length: N }, (_, i) => lk.req('PATCH', `${P}/tasks/${task.id}`, { revision: 1, title: `writer ${i}` })))
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
    const results = await Promise.all(Array.from({ length: N }, (_, i) => api.act(task.id, 'claim', 1, { assignee: 100 + i })))
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
    const results = await Promise.all(Array.from({ length: N }, (_, i) => lk.req('PATCH', `/v1/projects/items/${task.id}`, { idempotency_key: key(), revision: 1, title: `d${i}` })))
    t.equal(results.filter((r) => r.status === 200).length, 1)
    t.equal(results.filter((r) => r.status === 409).length, N - 1)
    t.equal((await lk.req('GET', `/v1/projects/items/${task.id}`)).body.revision, 2)
  })

  t.test('a burst of identical creations with one key creates one task and answers every request with its body', async (t) => {
    const body = { idempotency_key: key(), title: `burst ${Math.random()}` }
    const results = await Promise.all(Array.from({ length: 20 }, () => lk.req('POST', `${P}/tasks`, body)))
    t.equal(results.filter((r) => r.status === 201).length, 1, 'one creation')
    t.equal(results.filter((r) => r.status === 200).length, 19, 'the rest are replays')
    const first = results.find((r) => r.status === 201)?.body
    t.ok(results.every((r) => JSON.stringify(r.body) === JSON.stringify(first)), 'identical bodies')
    const listed = await lk.req('GET', `${P}/tasks?q=${encodeURIComponent(body.title)}`)
    t.equal(listed.body.items.length, 1)
  })

  t.test('concurrent creations get unique, consecutive numbers', async (t) => {
    const results = await Promise.all(Array.from({ length: 30 }, (_, i) => lk.req('POST', `${P}/tasks`, { idempotency_key: key(), title: `numbered ${i}` })))
    t.ok(results.every((r) => r.status === 201))
    const numbers = results.map((r) => r.body.number as number).sort((a, b) => a - b)
    const first = numbers[0] as number
    t.same(numbers, Array.from({ length: 30 }, (_, i) => first + i))
  })

  t.test('concurrent catalogue changes with one token: one wins', async (t) => {
    const rev = (await api.taxonomy()).revision
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => lk.req('POST', `${P}/project/taxonomy`, { revision: rev, kind: 'label', operation: 'create', name: `race ${i}` })))
    t.equal(results.filter((r) => r.status === 200).length, 1)
    t.equal(results.filter((r) => r.status === 409).length, 19)
    t.equal((await api.taxonomy()).labels.filter((l: { name: string }) => l.name.startsWith('race ')).length, 1)
  })
}

t.test('PGlite', async (t) => {
  const lk = await startTestLookout()
  t.teardown(() => lk.stop())
  await settle(lk)
  await suite(t, lk)
})

t.test('PostgreSQL server', { skip: postgresAvailable() ? false : 'PostgreSQL binaries not installed' }, async (t) => {
  const pg = await startTestPostgres()
  const lk = await startTestLookout({ env: { DATABASE_URL: pg.url } }).catch(async (err) => {
    await pg.stop()
    throw err
  })
  t.teardown(async () => {
    await lk.stop()
    await pg.stop()
  })
  await settle(lk)
  t.equal(lk.lookout.db.embedded, false, 'running on the server')
  await suite(t, lk)
})
