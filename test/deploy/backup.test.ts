// Backups while the service runs, restored into another data directory (as on
// another machine), or into a running `lookout serve` (which restarts itself on
// it): the log rows accepted before the backup began, the project store, the
// sealing key; the webhook restore by itself (subscriptions gone, a
// fresh source identity); refusals (a running service, data already there).
import t from 'tap'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestLookout } from '../helpers/lookout.ts'
import { randomUUID } from 'node:crypto'
import { cli, startCloud, until } from '../desktop/portal/portal-helpers.ts'
import { secretKeyPath } from '../../deploy/index.ts'

const lk = await startTestLookout()
let lkStopped: Promise<void> | null = null
const stopLk = () => (lkStopped ??= lk.stop())
t.teardown(stopLk)
const env = { ...process.env, LOOKOUT_DATA_DIR: lk.dataDir }
const rid = await lk.resource('backed-up')
const logs = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
const batch = (n: number, tag: string) => ({ events: Array.from({ length: n }, (_, i) => ({ message: `${tag} ${i}`, severity: 'INFO', timestamp: new Date().toISOString() })) })
for (let i = 0; i < 5; i++) {
  const r = await lk.req('POST', logs, batch(100, `before-${i}`))
  if (r.status !== 200) throw new Error(`ingest: ${r.status} ${JSON.stringify(r.body)}`)
}
const hook = await lk.ownerReq('POST', '/v1/webhooks', { url: 'http://127.0.0.1:9/agent' })
if (hook.status !== 201) throw new Error(`webhook: ${hook.status} ${JSON.stringify(hook.body)}`)
const instanceBefore = (await lk.lookout.db.query<{ v: Buffer }>(`SELECT value AS v FROM server_secrets WHERE name = 'instance-id'`)).rows[0]?.v.toString('hex')

let manifest: any
t.test('lookout backup create: a consistent copy while ingest goes on', async (t) => {
  // Ingest keeps running during the backup: the service is not stopped.
  let during = 0
  let stop = false
  const writer = (async () => {
    while (!stop) if ((await lk.req('POST', logs, batch(20, 'during'))).status === 200) during++
  })()
  const r = await cli(env, ['backup', 'create'])
  stop = true
  await writer
  t.equal(r.code, 0, r.stderr)
  manifest = JSON.parse(r.stdout)
  t.match(manifest, { format: 'lookout-backup-1', broker: { drained: true }, postgres: { file: 'postgres.tar.gz' }, logs: { file: 'logs.native.zst' } })
  t.ok(during > 0, 'requests were accepted while the backup ran')
  t.ok(manifest.logs.rows >= 500, `every event accepted before the backup began is in it (${manifest.logs.rows})`)
  const dir = join(lk.dataDir, 'backups', manifest.id)
  t.equal(statSync(dir).mode & 0o777, 0o700, 'the backup is private')
  t.equal(statSync(join(dir, 'postgres.tar.gz')).size, manifest.postgres.bytes)
  // This test server seals with LOOKOUT_SECRET_KEY or nothing (no key file); the desktop and `lookout serve` keep one.
  t.equal(manifest.secret_key, existsSync(secretKeyPath(lk.dataDir)), 'the sealing key file when the data directory has one')
  t.equal(existsSync(join(dir, 'secret.key')), manifest.secret_key)
  const list = await cli(env, ['backup', 'list'])
  t.match(list.stdout, new RegExp(`^${manifest.id}\\t`))
  t.equal((await lk.req('POST', logs, batch(1, 'after'))).status, 200, 'the service still runs')
})

t.test('restore into another data directory: stores, key, and the webhook restore by itself', async (t) => {
  const other = mkdtempSync(join(tmpdir(), 'lookout-restore-'))
  t.teardown(() => rmSync(other, { recursive: true, force: true }))
  const src = join(lk.dataDir, 'backups', manifest.id)
  const running = await cli(env, ['backup', 'restore', manifest.id])
  t.equal(running.code, 1)
  t.match(running.stderr, /stop it, then restore/, 'never under a running service')
  const r = await cli(env, ['backup', 'restore', src, '--data-dir', other])
  t.equal(r.code, 0, r.stderr)
  const result = JSON.parse(r.stdout)
  t.equal(result.logs.rows, manifest.logs.rows)
  t.equal(result.webhooks.cleared_subscriptions, 1, 'subscriptions cleared')
  t.not(result.webhooks.instance_id, instanceBefore, 'a fresh source identity')
  t.equal(existsSync(secretKeyPath(other)), manifest.secret_key)
  const again = await cli(env, ['backup', 'restore', src, '--data-dir', other])
  t.equal(again.code, 1)
  t.match(again.stderr, /already holds data.*--force/)

  // One chdb data directory per process: the original stops before the copy starts here.
  await stopLk()
  const restored = await startTestLookout({ dataDir: other, keepData: true })
  t.teardown(() => restored.stop())
  t.equal(restored.workspaceId, lk.workspaceId, 'the same workspace')
  const rows = await restored.waitRows(rid, manifest.logs.rows)
  t.equal(rows.length, manifest.logs.rows, 'the log rows')
  t.ok(rows.some((x) => String(x.message) === 'before-4 99'))
  t.equal((await restored.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}`)).status, 200, 'the project store')
  t.same((await restored.ownerReq('GET', '/v1/webhooks')).body.items, [], 'no subscription fires again')
  t.equal((await restored.req('POST', logs, batch(1, 'restored'))).status, 200, 'it ingests')
  t.ok(existsSync(join(other, 'nats')), 'a fresh broker')
})

t.test('bad references are refused in one line', async (t) => {
  const r = await cli(env, ['backup', 'restore', 'no-such-backup', '--data-dir', join(tmpdir(), 'nowhere-lookout')])
  t.equal(r.code, 1)
  t.match(r.stderr, /no backup no-such-backup/)
  const u = await cli(env, ['backup', 'restore'])
  t.equal(u.code, 2)
})

t.test('lookout serve restores itself: lookout backup restore while it runs, then it serves the backup', async (t) => {
  const cloud = await startCloud()
  t.teardown(() => cloud.stop())
  const env = { ...process.env, LOOKOUT_DATA_DIR: cloud.dir }
  const P = `/v1/workspaces/${cloud.workspaceId}`
  t.equal((await cloud.req('POST', `${P}/tasks`, { idempotency_key: randomUUID(), title: 'in the backup' })).status, 201)
  const taken = await cli(env, ['backup', 'create'])
  t.equal(taken.code, 0, taken.stderr)
  const backup = JSON.parse(taken.stdout)
  t.equal((await cloud.req('POST', `${P}/tasks`, { idempotency_key: randomUUID(), title: 'after the backup' })).status, 201)
  const r = await cli(env, ['backup', 'restore', backup.id])
  t.equal(r.code, 0, r.stderr)
  t.match(JSON.parse(r.stdout), { ok: true, id: backup.id })
  const titles = await until('the restored cloud answering', async () => cloud.req('GET', `${P}/tasks`), (x) => x.status === 200)
  t.same(titles.body.items.map((x: any) => x.title), ['in the backup'], 'the same process and port, on the backup\'s data')
  t.equal(cloud.child.exitCode, null, 'no restart of the process')
})
