// ssh:// repository resources: the server mirrors a git remote over SSH with
// the resource's registered key and pinned host trust (the managed runtime's
// strict ssh client as GIT_SSH_COMMAND), against a real sshd on loopback.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { existsSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestLookout } from '../../helpers/lookout.ts'
import { sshdAvailable, startSshd } from '../../helpers/sshd.ts'
import { until } from '../../helpers/until.ts'

if (!sshdAvailable()) {
  t.plan(0, 'openssh-server / openssh-client not installed (Debian packages)')
  process.exit(0)
}

const base = mkdtempSync(join(tmpdir(), 'lookout-sshrepo-'))
t.teardown(() => rmSync(base, { recursive: true, force: true }))
const repo = join(base, 'app')
const gitEnv = { ...process.env, GIT_AUTHOR_NAME: 'Ada', GIT_AUTHOR_EMAIL: 'ada@example.net', GIT_COMMITTER_NAME: 'Ada', GIT_COMMITTER_EMAIL: 'ada@example.net' }
const git = (...args: string[]) => execFileSync('git', ['-C', repo, ...args], { env: gitEnv }).toString().trim()
execFileSync('git', ['init', '-q', '-b', 'main', repo])
writeFileSync(join(repo, 'README.md'), 'reached over ssh\n')
git('add', '-A')
git('commit', '-qm', 'first commit')

const sshd = await startSshd()
t.teardown(() => sshd.stop())
// The API role alone: the repository routes open the key themselves (no monitor needed).
const lk = await startTestLookout({ roles: ['api'], env: { LOOKOUT_SECRET_KEY: randomBytes(32).toString('hex') } })
t.teardown(() => lk.stop())
const P = `/v1/workspaces/${lk.workspaceId}`
const url = `ssh://${sshd.user}@127.0.0.1:${sshd.port}${repo}`

async function repository(externalId: string, repositoryUrl: string): Promise<string> {
  const r = await lk.req('POST', `${P}/resources`, { external_id: externalId, name: externalId, kind: 'repository', details: { repository_url: repositoryUrl } })
  if (r.status !== 201) throw new Error(`resource: ${r.status} ${JSON.stringify(r.body)}`)
  return r.body.id
}
const putKey = (rid: string) => lk.req('PUT', `${P}/resources/${rid}/ssh-key`, { alias: `git-${rid.slice(0, 8)}`, host: '127.0.0.1', port: sshd.port, username: sshd.user, private_key: sshd.clientKey })

// The repository routes make the ssh client's key directories under <data dir>/repositories/.ssh.
const sshBase = join(lk.dataDir, 'repositories', '.ssh')
const sshDirs = () => (existsSync(sshBase) ? readdirSync(sshBase) : []).filter((n) => n.startsWith('lookout-ssh-'))

t.test('an ssh:// repository needs the resource\'s key, for that destination', async (t) => {
  const rid = await repository('git-nokey', url)
  const none = await lk.req('GET', `${P}/resources/${rid}/repository`)
  t.equal(none.status, 409)
  t.match(none.body.detail[0].msg, /SSH key/)
  const other = await repository('git-otherport', `ssh://${sshd.user}@127.0.0.1:1${repo}`)
  t.equal((await putKey(other)).status, 200)
  const wrongPort = await lk.req('POST', `${P}/resources/${other}/repository/refresh`)
  t.equal(wrongPort.status, 409, 'the URL must point at the key\'s destination')
  t.match(wrongPort.body.detail[0].msg, /destination/)
  const withPassword = await repository('git-password', `ssh://${sshd.user}:pw@127.0.0.1:${sshd.port}${repo}`)
  t.equal((await lk.req('GET', `${P}/resources/${withPassword}/repository`)).status, 409, 'no password in the URL')
})

t.test('mirrored over SSH with the registered key; the host key pinned on first use', async (t) => {
  const rid = await repository('git-ssh', url)
  t.equal((await putKey(rid)).status, 200)
  const R = `${P}/resources/${rid}/repository`
  const ready = await until('ready', async () => (await lk.req('GET', R)).body, (b) => b.state === 'ready' || b.state === 'failed')
  t.equal(ready.state, 'ready', JSON.stringify(ready))
  t.equal(ready.head.subject, 'first commit')
  const file = await lk.req('GET', `${R}?view=file&path=README.md`)
  t.equal(file.body.lines[0].text, 'reached over ssh')
  const key = (await lk.req('GET', `${P}/resources/${rid}/ssh-key`)).body
  t.same(key.host_trust.pinned_fingerprints, [sshd.hostFingerprint()], 'the host key git trusted is pinned')
  t.ok(existsSync(sshBase), 'the key was written under the data directory')
  t.same(sshDirs(), [], 'the key file went with the transfer')

  const pinned = sshd.hostFingerprint()
  await sshd.restartWithNewHostKey()
  writeFileSync(join(repo, 'NEW.md'), 'after the host key changed\n')
  git('add', '-A')
  git('commit', '-qm', 'second commit')
  t.equal((await lk.req('POST', `${R}/refresh`)).status, 200)
  const failed = await until('refresh refused', async () => (await lk.req('GET', R)).body, (b) => !b.refreshing && b.last_error !== null)
  t.match(failed.last_error, /[Hh]ost key/, 'a changed host key is refused')
  t.equal(failed.head.subject, 'first commit', 'the mirror is not updated from an untrusted host')
  t.same((await lk.req('GET', `${P}/resources/${rid}/ssh-key`)).body.host_trust.pinned_fingerprints, [pinned], 'the pin is kept')
  t.same(sshDirs(), [])
})
