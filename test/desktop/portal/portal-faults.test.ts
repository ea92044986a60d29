// Faults between a desktop and its portal, real processes on loopback: the
// cloud SIGKILLed in the middle of a sync, and answers lost after the cloud
// committed (a proxy cuts them). After the portal is back every task is on it
// exactly once, the desktop shows canonical ids and numbers, no edit is lost.
import t, { type Test } from 'tap'
import { randomUUID } from 'node:crypto'
import { cloudTasks, CuttingProxy, desktopTasks, startCloud, startPortalDesktop, until } from './portal-helpers.ts'

async function converged(t: Test, cloud: Awaited<ReturnType<typeof startCloud>>, desk: Awaited<ReturnType<typeof startPortalDesktop>>, titles: string[]) {
  const onCloud = await cloudTasks(cloud)
  for (const title of titles) t.equal(onCloud.filter((x) => x.title === title).length, 1, `${title}: once on the cloud`)
  t.equal(onCloud.length, titles.length, 'no other task on the cloud')
  t.equal(new Set(onCloud.map((x) => x.number)).size, titles.length, 'distinct portal numbers')
  const here = await desktopTasks(desk)
  t.equal(here.length, titles.length, 'no duplicate on the desktop')
  for (const c of onCloud) {
    const local = here.find((x) => x.id === c.id)
    t.ok(local, `${c.title}: the desktop has it under the canonical id`)
    t.equal(local?.number, c.number)
    t.equal(local?.title, c.title)
  }
  return onCloud
}

t.test('the cloud is killed in the middle of a sync', async (t) => {
  // One creation per request (no task-batch-v1), so the kill lands between creations; a batch's
  // kill on each side of its commit is portal-kill.test.ts's. The trace lines say when creations commit.
  const cloud = await startCloud({ LOOKOUT_PORTAL_FEATURES: 'task-taxonomy-v1', LOOKOUT_TRACE_PROJECT: '1' })
  t.teardown(() => cloud.stop())
  const desk = await startPortalDesktop()
  t.teardown(() => desk.stop())
  const titles = Array.from({ length: 60 }, (_, i) => `offline task ${i}`)
  for (const title of titles) {
    const r = await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), title })
    t.equal(r.status, 201)
  }
  // Connecting starts a round at once; it is killed once some tasks are on the cloud (three committed).
  let seen = 0
  const some = new Promise<void>((resolve) => cloud.child.stderr?.on('data', (d: Buffer) => {
    seen += (d.toString().match(/lookout-trace task\.create committed/g) ?? []).length
    if (seen >= 3) resolve()
  }))
  const c = await desk.owner('POST', '/v1/portal/connection', { url: cloud.url, token: cloud.token })
  t.equal(c.status, 200, JSON.stringify(c.body))
  await some
  await cloud.kill()
  t.ok(seen < titles.length, `killed mid-sync (${seen} of ${titles.length} had arrived)`)
  const off = (await desk.owner('POST', '/v1/portal/sync')).body
  t.equal(off.state, 'offline')
  // An edit made while the portal is down is kept and sent later.
  const first = (await desktopTasks(desk)).find((x) => x.title === 'offline task 0')
  const e = await desk.owner('PATCH', `/v1/projects/items/${first.id}`, { idempotency_key: randomUUID(), revision: first.revision, description: 'edited while down' })
  t.equal(e.status, 200)
  const st = (await desk.owner('GET', '/v1/portal/connection')).body
  t.equal(st.state, 'offline')
  t.ok(st.pending_operations > 0, `pending operations are shown (${st.pending_operations})`)
  await cloud.restart()
  await until('convergence', async () => (await desk.owner('POST', '/v1/portal/sync')).body, (r) => r.state === 'connected' && r.pushed === 0 && r.captured === 0)
  const onCloud = await converged(t, cloud, desk, titles)
  t.equal(onCloud.find((x) => x.title === 'offline task 0').description, 'edited while down', 'the offline edit arrived')
  const st2 = (await desk.owner('GET', '/v1/portal/connection')).body
  t.equal(st2.pending_operations, 0)
  t.equal(st2.conflicts, 0)
})

t.test('answers lost after the cloud committed: creations and edits are replays, never duplicates', async (t) => {
  const cloud = await startCloud()
  t.teardown(() => cloud.stop())
  const proxy = new CuttingProxy(cloud.port)
  const url = await proxy.start()
  t.teardown(() => proxy.stop())
  const desk = await startPortalDesktop()
  t.teardown(() => desk.stop())
  // Connected first, to a portal whose activity feed is empty: the rounds after it read the feed from its start,
  // not every task again (a list request).
  t.equal((await desk.owner('POST', '/v1/portal/connection', { url, token: cloud.token })).status, 200)
  t.equal((await desk.owner('POST', '/v1/portal/sync')).body.state, 'connected')
  const afterFirst = proxy.requests.length
  const titles = ['lost answer 1', 'lost answer 2', 'lost answer 3']
  for (const title of titles) t.equal((await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), title })).status, 201)
  // The first three creation requests (the three tasks in one batch, and its two retries) lose their answers after the cloud committed.
  proxy.cut(/^POST \/v1\/workspaces\/[0-9a-f-]+\/tasks\/batch HTTP/, 3)
  t.equal((await desk.owner('POST', '/v1/portal/sync')).body.state, 'offline', 'the round lost its answers')
  t.equal(proxy.cuts, 3)
  t.ok((await cloudTasks(cloud)).length >= 1, 'the cloud committed creations whose answers never came back')
  await until('convergence', async () => (await desk.owner('POST', '/v1/portal/sync')).body, (r) => r.state === 'connected' && r.pushed === 0)
  t.equal(proxy.cuts, 3)
  const onCloud = await converged(t, cloud, desk, titles)
  const lists = proxy.requests.slice(afterFirst).filter((x) => /^GET \/v1\/workspaces\/[0-9a-f-]+\/tasks\?/.test(x))
  t.same(lists, [], 'no round after the first read every task again')

  // An edit whose answer is lost: the retry meets a 409, finds its values in place and settles, no conflict.
  const task = (await desktopTasks(desk)).find((x) => x.id === onCloud[0].id)
  proxy.cut(/^PATCH /, 3)
  t.equal((await desk.owner('PATCH', `/v1/projects/items/${task.id}`, { idempotency_key: randomUUID(), revision: task.revision, title: 'renamed, answer lost' })).status, 200)
  const r1 = (await desk.owner('POST', '/v1/portal/sync')).body
  t.equal(r1.state, 'offline', 'the edit\'s answers were cut')
  const cloudNow = (await cloud.req('GET', `/v1/workspaces/${cloud.workspaceId}/tasks/${task.id}`)).body
  t.equal(cloudNow.title, 'renamed, answer lost', 'the cloud committed the edit')
  const r2 = (await desk.owner('POST', '/v1/portal/sync')).body
  t.equal(r2.state, 'connected', JSON.stringify(r2))
  const st = (await desk.owner('GET', '/v1/portal/connection')).body
  t.equal(st.conflicts, 0, 'a landed edit is not a conflict')
  t.equal(st.pending_operations, 0)
  t.equal((await cloud.req('GET', `/v1/workspaces/${cloud.workspaceId}/tasks/${task.id}`)).body.revision, cloudNow.revision, 'applied once')
  t.equal((await cloudTasks(cloud)).length, titles.length)
})
