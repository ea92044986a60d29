// The cloud SIGKILLed on each side of a task creation's commit, at its trace
// points (api/projects/routes/trace.ts), with a real desktop pushing to it:
// killed before the commit, the creation is made by the retry; killed after
// the commit and before the answer, the retry is the cloud's replay of the
// committed creation (same idempotency key). Either way every task is on the
// cloud exactly once and the desktop shows its canonical id and number. One
// cloud and one desktop for both points (the cloud restarts between them),
// and for a comment's creation killed after its commit.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { cloudTasks, desktopTasks, startCloud, startPortalDesktop, until, type Cloud } from './portal-helpers.ts'

/** Resolves once the cloud printed the trace point `point` and was SIGKILLed right in that line's handler. */
function killAt(cloud: Cloud, point: 'begin' | 'committed', op = 'task.create'): Promise<string> {
  return new Promise((resolve) => {
    let seen = false
    cloud.child.stderr?.on('data', (d: Buffer) => {
      const m = new RegExp(`lookout-trace ${op} ${point} (\\S+)`).exec(d.toString())
      if (m === null || seen) return
      seen = true
      void cloud.kill().then(() => resolve(m[1] as string))
    })
  })
}

const cloud = await startCloud({ LOOKOUT_TRACE_PROJECT: '1', LOOKOUT_TRACE_PROJECT_HOLD: 'begin' })
t.teardown(() => cloud.stop())
const desk = await startPortalDesktop()
t.teardown(() => desk.stop())

t.test('SIGKILL before and after a creation commits: never lost, never duplicated', async (t) => {
  const titles = ['kill 1', 'kill 2', 'kill 3']
  for (const title of titles) t.equal((await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), title })).status, 201)

  // Before the commit: the request waits at "begin" (the hold) and the cloud dies there.
  const before = killAt(cloud, 'begin')
  t.equal((await desk.owner('POST', '/v1/portal/connection', { url: cloud.url, token: cloud.token })).status, 200)
  t.ok(await before, 'killed at "begin" of a creation')
  t.equal((await desk.owner('POST', '/v1/portal/sync')).body.state, 'offline')
  await cloud.restart({ LOOKOUT_TRACE_PROJECT_HOLD: 'committed' })
  t.equal((await cloudTasks(cloud)).length, 0, 'nothing committed before the kill')

  // After the commit, before the answer: the request waits at "committed" and the cloud dies there.
  const after = killAt(cloud, 'committed')
  const round = desk.owner('POST', '/v1/portal/sync')
  t.ok(await after, 'killed at "committed" of a creation')
  t.equal((await round).body.state, 'offline', 'the answer never came')
  await cloud.restart({ LOOKOUT_TRACE_PROJECT: '', LOOKOUT_TRACE_PROJECT_HOLD: '' })
  const committed = await cloudTasks(cloud)
  t.ok(committed.length >= 1, `the cloud holds ${committed.length} creation(s) it never answered`)
  const here0 = await desktopTasks(desk)
  t.notOk(committed.some((c) => here0.some((x) => x.id === c.id)), 'the desktop never learnt their canonical ids')

  await until('convergence', async () => (await desk.owner('POST', '/v1/portal/sync')).body, (r) => r.state === 'connected' && r.pushed === 0)
  const onCloud = await cloudTasks(cloud)
  for (const title of titles) t.equal(onCloud.filter((x) => x.title === title).length, 1, `${title}: once on the cloud`)
  t.equal(onCloud.length, titles.length)
  for (const c of committed) t.ok(onCloud.some((x) => x.id === c.id), `${c.title}: the committed creation was replayed, not made again`)
  const here = await desktopTasks(desk)
  t.equal(here.length, titles.length, 'no duplicate on the desktop')
  for (const c of onCloud) {
    const local = here.find((x) => x.id === c.id)
    t.ok(local, `${c.title}: canonical id on the desktop`)
    t.equal(local?.number, c.number, `${c.title}: the portal number`)
  }
  const st = (await desk.owner('GET', '/v1/portal/connection')).body
  t.equal(st.pending_operations, 0)
  t.equal(st.conflicts, 0)
})

t.test('SIGKILL after a comment\'s creation commits, before the answer: the comment is on the cloud once, under its canonical id', async (t) => {
  const task = (await desktopTasks(desk))[0]
  const made = await desk.owner('POST', `/v1/workspaces/${desk.workspaceId}/tasks/${task.id}/comments`, { idempotency_key: randomUUID(), body: 'killed mid-push' })
  t.equal(made.status, 201)
  await cloud.kill()
  await cloud.restart({ LOOKOUT_TRACE_PROJECT: '1', LOOKOUT_TRACE_PROJECT_HOLD: 'comment.create:committed' })
  const after = killAt(cloud, 'committed', 'comment.create')
  const round = desk.owner('POST', '/v1/portal/sync')
  t.ok(await after, 'killed at "committed" of the comment\'s creation')
  t.equal((await round).body.state, 'offline', 'the answer never came')
  await cloud.restart({ LOOKOUT_TRACE_PROJECT: '', LOOKOUT_TRACE_PROJECT_HOLD: '' })
  const path = `/v1/workspaces/${cloud.workspaceId}/tasks/${task.id}/comments`
  const committed = (await cloud.req('GET', path)).body.items
  t.equal(committed.length, 1, 'the cloud committed the comment it never answered')
  await until('convergence', async () => (await desk.owner('POST', '/v1/portal/sync')).body, (r) => r.state === 'connected' && r.pushed === 0)
  const there = (await cloud.req('GET', path)).body.items
  t.same(there.map((c: any) => [c.id, c.body]), [[committed[0].id, 'killed mid-push']], 'replayed, not made again')
  const here = (await desk.owner('GET', `/v1/workspaces/${desk.workspaceId}/tasks/${task.id}/comments`)).body.items
  t.same(here.map((c: any) => [c.id, c.body]), [[committed[0].id, 'killed mid-push']], 'the desktop holds it once, under the canonical id')
  const st = (await desk.owner('GET', '/v1/portal/connection')).body
  t.equal(st.pending_operations, 0)
  t.equal(st.conflicts, 0)
})
