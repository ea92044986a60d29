// The managed runtime's view of the SSH keys (workspace/ssh/runtime.ts) on a real
// PostgreSQL server: which keys wait for installing, host keys pinned once per
// stored key, and reports that apply only to the key they were made with.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { SshKeyRuntime } from '../../../workspace/index.ts'
import { startTestLookout } from '../../helpers/lookout.ts'
import { postgresAvailable, startTestPostgres } from '../../helpers/postgres.ts'

if (!postgresAvailable()) {
  t.plan(0, 'initdb not found (Debian package postgresql)')
  process.exit(0)
}

const dir = mkdtempSync(join(tmpdir(), 'lookout-ssh-runtime-test-'))
t.teardown(() => rmSync(dir, { recursive: true, force: true }))
execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', 'a passphrase', '-f', join(dir, 'k')])
const priv = readFileSync(join(dir, 'k'), 'utf8')
const pg = await startTestPostgres()
const secret = randomBytes(32)
// API role only: no monitor installs (and dials) the keys behind the test's back.
const lk = await startTestLookout({ roles: ['api'], env: { DATABASE_URL: pg.url, LOOKOUT_SECRET_KEY: secret.toString('hex') } })
// Lookout first, then its database (stopped the other way round, Lookout's stop would fail half-way).
t.teardown(async () => {
  await lk.stop()
  await pg.stop()
})
const P = `/v1/workspaces/${lk.workspaceId}`
const HOST_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAINOAKKU0jnD4/8ehLZSF5pN51H4z24JV6T3XzlbsAiXh'
const OTHER_KEY = 'ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIHhxVAHVRTeR8AuptFu9M44RjBuV2v+Jp4RIsivQyGuG'

t.test('pending keys, pins once, reports bound to the stored key', async (t) => {
  const rid = await lk.resource()
  const put = (extra: Record<string, unknown> = {}) => lk.req('PUT', `${P}/resources/${rid}/ssh-key`,
    { alias: 'rt', host: '127.0.0.1', port: 9, username: 'u', private_key: priv, passphrase: 'a passphrase', ...extra })
  t.equal((await put()).status, 200)
  const rt = new SshKeyRuntime(lk.lookout.db, secret)
  t.same(await rt.pending(10, 60_000), [{ workspaceId: lk.workspaceId, resourceId: rid }], 'a new key is pending')
  const e = await rt.sshEndpoint(lk.workspaceId, rid)
  if (e === null) throw new Error('the key did not open')
  t.match(e.privateKey, /BEGIN OPENSSH PRIVATE KEY/)
  // ssh-keygen reads it with an empty passphrase only if it is stored unencrypted: what ssh in batch mode needs.
  writeFileSync(join(dir, 'opened'), e.privateKey, { mode: 0o600 })
  const pub = execFileSync('ssh-keygen', ['-y', '-P', '', '-f', join(dir, 'opened')]).toString().trim()
  t.equal(pub.split(' ').slice(0, 2).join(' '), readFileSync(join(dir, 'k.pub'), 'utf8').split(' ').slice(0, 2).join(' '), 'opened: the same key, decrypted with its passphrase')
  t.same(await rt.pinHostKeys(e, [HOST_KEY]), [HOST_KEY])
  t.same(await rt.pinHostKeys(e, [OTHER_KEY]), [HOST_KEY], 'a second pin does not replace the first')
  await rt.report(e, 'failed', 'the SSH server refused the key')
  t.same(await rt.pending(10, 60_000), [], 'failed a moment ago: not retried yet')
  t.same(await rt.pending(10, 0), [{ workspaceId: lk.workspaceId, resourceId: rid }], 'failed earlier than the retry delay: retried')
  const view = (await lk.req('GET', `${P}/resources/${rid}/ssh-key`)).body
  t.match(view.synchronization, { status: 'failed', detail: 'the SSH server refused the key' })

  t.equal((await put()).status, 200, 'rotated')
  await rt.report(e, 'installed', 'late report about the previous key')
  const after = (await lk.req('GET', `${P}/resources/${rid}/ssh-key`)).body
  t.equal(after.synchronization.status, 'pending', 'a report made with the previous key does not apply to the new one')
  t.same(after.host_trust.pinned_fingerprints.length, 1, 'same host and port: the pin survives the rotation')
  const e2 = await rt.sshEndpoint(lk.workspaceId, rid)
  t.not(e2?.generation, e.generation)
  if (e2 !== null) await rt.report(e2, 'installed', 'ok')
  t.equal((await lk.req('GET', `${P}/resources/${rid}/ssh-key`)).body.synchronization.status, 'installed')
  t.same(await rt.pending(10, 0), [], 'installed keys are not pending')

  t.equal((await put({ port: 10 })).status, 200, 'another port')
  t.same((await lk.req('GET', `${P}/resources/${rid}/ssh-key`)).body.host_trust.pinned_fingerprints, [], 'another destination: the pin is cleared')
})
