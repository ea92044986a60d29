// Backups of a running `lookout desktop` over its owner socket (`lookout
// backup create|list --desktop`), never reachable with a grant, restored into
// another data directory with its sealing key, where a desktop starts with the logs.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { startDesktopProcess } from './desktop-helpers.ts'
import { cli, until } from './portal/portal-helpers.ts'
import { secretKeyPath } from '../../deploy/index.ts'

const desk = await startDesktopProcess()
t.teardown(() => desk.stop())
const dataDir = desk.env.LOOKOUT_DATA_DIR as string
const rid = await desk.resource('backed-up')
const events = Array.from({ length: 50 }, (_, i) => ({ id: `e${i}`, timestamp: new Date().toISOString(), severity: 'info', message: `line ${i}`, attributes: {} }))
const logged = await desk.owner('POST', '/v1/logs', { resource_id: rid, events })
if (logged.status !== 200) throw new Error(`logs: ${logged.status} ${JSON.stringify(logged.body)}`)
const messages = async (owner: typeof desk.owner) => ((await owner('GET', `/v1/logs?resource_id=${rid}&limit=100`)).body.events ?? []) as unknown[]
await until('the logs stored', () => messages(desk.owner), (e) => e.length === 50)

let manifest: any
t.test('lookout backup create --desktop: over the owner socket, never with a grant', async (t) => {
  const g = await desk.grant(['project:read', 'project:write', 'logs:read'])
  const acted = await desk.owner('POST', '/admin/backups', undefined, { 'x-lookout-act-as-grant': g.id })
  t.equal(acted.status, 403, 'a grant cannot take a backup')
  t.match(acted.body, { error: { code: 'LOOKOUT_FORBIDDEN' } })
  const mint = await desk.owner('POST', '/admin/tokens', { workspace: desk.workspaceId, scopes: ['project:read'], resources: 'all' }, { 'x-lookout-act-as-grant': g.id })
  t.equal(mint.status, 403, 'nor mint a token')
  const r = await cli(desk.env, ['backup', 'create', '--desktop'])
  t.equal(r.code, 0, r.stderr)
  manifest = JSON.parse(r.stdout)
  t.match(manifest, { secret_key: true, logs: { rows: 50 }, broker: { drained: true } })
  const list = await cli(desk.env, ['backup', 'list', '--desktop'])
  t.match(list.stdout, new RegExp(`^${manifest.id}\\t.*\\t50 log rows`))
})

t.test('lookout backup restore --desktop on the running service: 503 meanwhile, never 500; it restarts on the backup', async (t) => {
  const hook = await desk.owner('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/agent' })
  t.equal(hook.status, 201)
  const taken = await cli(desk.env, ['backup', 'create', '--desktop'])
  t.equal(taken.code, 0, taken.stderr)
  const backup = JSON.parse(taken.stdout)
  const after = await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), item_type: 'task', title: 'made after the backup' })
  t.equal(after.status, 201, JSON.stringify(after.body))
  const instance = (await desk.owner('GET', `/v1/projects/items/${after.body.id}/assignment`)).body.instance_id
  t.type(instance, 'string')
  const more = events.map((e) => ({ ...e, id: `late-${e.id}` })).slice(0, 10)
  t.equal((await desk.owner('POST', '/v1/logs', { resource_id: rid, events: more })).status, 200)
  await until('the later logs stored', () => messages(desk.owner), (e) => e.length === 60)
  // Requests keep coming while the service restores itself: each gets its answer, a 503 or no connection.
  const seen: { status: number | 'down'; body?: any; retry?: unknown }[] = []
  let going = true
  const loop = async () => {
    while (going) {
      try {
        const r = await desk.owner('GET', '/v1/projects/items')
        seen.push({ status: r.status, body: r.body, retry: r.headers['retry-after'] })
      } catch {
        seen.push({ status: 'down' })
        await new Promise((r) => setTimeout(r, 20))
      }
    }
  }
  const loops = [loop(), loop(), loop()]
  const bad = await cli(desk.env, ['backup', 'restore', 'no-such-backup', '--desktop'])
  t.equal(bad.code, 1)
  t.match(bad.stderr, /no backup no-such-backup/, 'a bad reference is refused before anything stops')
  const r = await cli(desk.env, ['backup', 'restore', backup.id, '--desktop'])
  going = false
  await Promise.all(loops)
  t.equal(r.code, 0, r.stderr)
  const out = JSON.parse(r.stdout)
  t.match(out, { ok: true, id: backup.id, result: { logs: { rows: 50 }, webhooks: { cleared_subscriptions: 1 } } })
  t.not(out.result.webhooks.instance_id, instance, 'a fresh source identity')
  const refused = seen.filter((x) => x.status === 503)
  t.ok(refused.length > 0, `requests during the restore were answered 503 (${refused.length} of ${seen.length})`)
  t.ok(refused.every((x) => x.body?.error?.code === 'LOOKOUT_RESTORING' && x.retry !== undefined), 'with LOOKOUT_RESTORING and Retry-After', { seen: refused.filter((x) => x.body?.error?.code !== 'LOOKOUT_RESTORING' || x.retry === undefined).slice(0, 3) })
  t.same(seen.filter((x) => x.status !== 200 && x.status !== 503 && x.status !== 'down').map((x) => x.status), [], 'never a 500')
  // The same service, on the backup's data.
  t.equal((await messages(desk.owner)).length, 50, 'the log rows of the backup')
  const titles = (await desk.owner('GET', '/v1/projects/items')).body.items.map((x: any) => x.title)
  t.notOk(titles.includes('made after the backup'), 'what came after the backup is gone')
  t.same((await desk.owner('GET', '/v1/webhooks')).body.items, [], 'subscriptions cleared')
  t.match(desk.stdout(), /restored backup .*; starting on it/)
})

t.test('restored into another data directory, a desktop starts there with the logs and the key', async (t) => {
  await desk.terminate()
  const other = join(desk.base, 'other')
  const r = await cli(desk.env, ['backup', 'restore', join(dataDir, 'backups', manifest.id), '--data-dir', other])
  t.equal(r.code, 0, r.stderr)
  t.same(readFileSync(secretKeyPath(other)), readFileSync(secretKeyPath(dataDir)), 'the sealing key')
  const again = await startDesktopProcess({ LOOKOUT_DATA_DIR: other, XDG_RUNTIME_DIR: join(desk.base, 'run2') })
  t.teardown(() => again.terminate())
  t.equal(again.workspaceId, desk.workspaceId)
  t.equal((await messages(again.owner)).length, 50, 'the log rows')
})
