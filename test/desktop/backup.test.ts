// Backups of a running `lookout desktop` over its owner socket (`lookout
// backup create|list --desktop`), never reachable with a grant, restored into
// another data directory with its sealing key, where a desktop starts with the logs.
import t from 'tap'
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
