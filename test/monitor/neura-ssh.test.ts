// `neura` checks through an SSH tunnel: a real sshd (Debian openssh-server) on
// loopback, the resource's key registered through PUT …/ssh-key, the monitor
// role of a real Lookout as the managed runtime. The tunnel is proven by
// sshd's own log of the forward; a changed host key is refused; without the
// key the check cannot run. Checks run every 3 s with 3 s timeouts: setting up
// the tunnel took 0.5 to 1.7 s on the shared 2-core test machine.
import t from 'tap'
import { randomBytes } from 'node:crypto'
import { existsSync, readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { startTestLookout } from '../helpers/lookout.ts'
import { postgresAvailable, startHttp, startPostgresServer, startTcp } from '../helpers/servers.ts'
import { sshdAvailable, startSshd } from '../helpers/sshd.ts'
import { until as waitUntil } from '../helpers/until.ts'

if (!sshdAvailable()) {
  t.plan(0, 'openssh-server / openssh-client not installed (Debian packages)')
  process.exit(0)
}

const sshd = await startSshd()
t.teardown(() => sshd.stop())
const target = await startTcp({ banner: 'hello-through-ssh\n' })
t.teardown(() => target.close())
const lk = await startTestLookout({ env: { LOOKOUT_SECRET_KEY: randomBytes(32).toString('hex') } })
t.teardown(() => lk.stop())

const rid = await lk.resource('bastion-reached')
const R = `/v1/workspaces/${lk.workspaceId}/resources/${rid}`

// Tunnels take 0.5-1.7 s to set up on a busy machine: a longer default wait.
const until = <T>(what: string, read: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 90_000): Promise<T> => waitUntil(what, read, ok, timeoutMs)

/** The ssh client's private directories (key and known_hosts) that exist right now, with their modes (the monitor role makes them under <data dir>/ssh). */
function sshDirs(): { dir: number; files: Record<string, number> }[] {
  const out: { dir: number; files: Record<string, number> }[] = []
  const base = join(lk.dataDir, 'ssh')
  for (const name of existsSync(base) ? readdirSync(base) : []) {
    if (!name.startsWith('lookout-ssh-')) continue
    try {
      const dir = join(base, name)
      const files: Record<string, number> = {}
      for (const f of readdirSync(dir)) files[f] = statSync(join(dir, f)).mode & 0o777
      out.push({ dir: statSync(dir).mode & 0o777, files })
    } catch {
      // removed meanwhile
    }
  }
  return out
}

const check = async (id: string) => ((await lk.req('GET', `${R}/monitoring`)).body.checks as { id: string; health: string; last_result: { status: string; code: string; reason: string; details: Record<string, unknown> } | null }[])
  .find((c) => c.id === id)
const sshKey = async () => (await lk.req('GET', `${R}/ssh-key`)).body

t.test('ssh is for neura checks, and for the kinds that can tunnel', async (t) => {
  const pub = await lk.req('POST', `${R}/monitoring`, { name: 'x', kind: 'tcp', configuration: { host: '127.0.0.1', port: 1, ssh: true } })
  t.equal(pub.status, 422)
  t.same(pub.body.detail[0].loc, ['body', 'configuration', 'ssh'])
  const icmp = await lk.req('POST', `${R}/monitoring`, { name: 'x', kind: 'icmp', location: 'neura', configuration: { host: '127.0.0.1', ssh: true } })
  t.equal(icmp.status, 422, 'icmp cannot go through a tunnel')
  const ok = await lk.req('POST', `${R}/monitoring`, { name: 'x', kind: 'tcp', location: 'neura', enabled: false, configuration: { host: '127.0.0.1', port: 1, ssh: true } })
  t.equal(ok.status, 200)
  t.equal(ok.body.configuration.ssh, true)
  const verify = await lk.req('POST', `${R}/monitoring`, { name: 'x', kind: 'postgresql', location: 'neura', configuration: { host: '127.0.0.1', user: 'u', tls: 'verify', ssh: true } })
  t.equal(verify.status, 422, 'certificate verification cannot work through the tunnel\'s local socket')
  t.same(verify.body.detail[0].loc, ['body', 'configuration', 'tls'])
  const toPublic = await lk.req('POST', `${R}/monitoring`, { id: ok.body.id, location: 'public' })
  t.equal(toPublic.status, 422, 'moving a tunnelled check to public is refused')
})

t.test('the runtime installs the key: host key pinned on first use, status installed', async (t) => {
  const put = await lk.req('PUT', `${R}/ssh-key`, { alias: 'bastion', host: '127.0.0.1', port: sshd.port, username: sshd.user, private_key: sshd.clientKey })
  t.equal(put.status, 200, JSON.stringify(put.body))
  t.equal(put.body.synchronization.status, 'pending', 'a new key waits for the runtime')
  t.equal(put.body.host_trust.mode, 'first_use')
  const installed = await until('installed', sshKey, (k) => k.synchronization.status === 'installed')
  t.same(installed.host_trust.pinned_fingerprints, [sshd.hostFingerprint()], 'the pinned host key is the server\'s')
  t.same(installed.synchronization.host_fingerprints, [sshd.hostFingerprint()])
  t.notOk(JSON.stringify(installed).includes('PRIVATE KEY'), 'no key material in the view')
})

let checkId = ''
t.test('a neura TCP check goes through the tunnel: up, down when the target closes, up again', async (t) => {
  const r = await lk.req('POST', `${R}/monitoring`, {
    name: 'behind the bastion', kind: 'tcp', location: 'neura',
    configuration: { host: '127.0.0.1', port: target.port, expect: 'hello-through-ssh', ssh: true, interval_seconds: 3, timeout_seconds: 3 },
  })
  t.equal(r.status, 200, JSON.stringify(r.body))
  checkId = r.body.id
  const up = await until('healthy', () => check(checkId), (c) => c?.health === 'healthy')
  t.equal(up?.last_result?.code, 'LOOKOUT_PROBE_OK')
  t.type(up?.last_result?.details.ssh_tunnel_ms, 'number', 'the probe reports the tunnel')
  t.comment(`ssh tunnel set up in ${String(up?.last_result?.details.ssh_tunnel_ms)} ms, probe latency ${String((up?.last_result as { latency_ms?: number } | null)?.latency_ms)} ms`)
  t.match(sshd.log(), new RegExp(`server_request_direct_tcpip: .*target 127\\.0\\.0\\.1 port ${target.port}`), 'sshd forwarded to the target')
  t.equal(statSync(join(lk.dataDir, 'ssh')).mode & 0o777, 0o700, 'the work directory is private')
  const seen = await until('a probe\'s private ssh directory', async () => sshDirs(), (d) => d.length > 0, 20_000)
  for (const d of seen) {
    t.equal(d.dir, 0o700, 'the directory is the runtime user\'s only')
    for (const [name, mode] of Object.entries(d.files)) t.equal(mode, 0o600, `${name} is 0600`)
  }
  await target.close()
  const down = await until('unhealthy', () => check(checkId), (c) => c?.health === 'unhealthy')
  t.equal(down?.last_result?.code, 'LOOKOUT_PROBE_REFUSED', 'the refusal behind the tunnel is the target\'s: down')
  t.match(down?.last_result?.reason, /through the SSH tunnel/)
  t.equal((await sshKey()).synchronization.status, 'installed', 'a refused target does not fail the key')
  await target.reopen()
  await until('healthy again', () => check(checkId), (c) => c?.health === 'healthy')
})

t.test('a neura PostgreSQL check through the tunnel', { skip: postgresAvailable() ? false : 'initdb not found (Debian package postgresql)' }, async (t) => {
  const pg = await startPostgresServer()
  t.teardown(() => pg.stop())
  process.env.LOOKOUT_SECRET_NEURA_PG = pg.password
  const r = await lk.req('POST', `${R}/monitoring`, {
    name: 'db behind the bastion', kind: 'postgresql', location: 'neura', credential: { env: 'LOOKOUT_SECRET_NEURA_PG' },
    configuration: { host: '127.0.0.1', port: pg.port, user: pg.user, ssh: true, interval_seconds: 3, timeout_seconds: 3 },
  })
  t.equal(r.status, 200, JSON.stringify(r.body))
  const up = await until('pg healthy', () => check(r.body.id), (c) => c?.health === 'healthy')
  t.match(up?.last_result?.reason, /through the SSH tunnel/)
  t.match(sshd.log(), new RegExp(`target 127\\.0\\.0\\.1 port ${pg.port}`), 'sshd forwarded to PostgreSQL')
  await lk.req('POST', `${R}/monitoring`, { id: r.body.id, enabled: false })
})

t.test('a neura HTTP(S) check through the tunnel', async (t) => {
  const web = await startHttp()
  t.teardown(() => web.close())
  const redirects = await lk.req('POST', `${R}/monitoring`, { name: 'x', kind: 'https', location: 'neura', configuration: { url: web.url, ssh: true, follow_redirects: true } })
  t.equal(redirects.status, 422, 'one tunnel is one origin: no redirects')
  const r = await lk.req('POST', `${R}/monitoring`, {
    name: 'web behind the bastion', kind: 'https', location: 'neura', configuration: { url: web.url, ssh: true, interval_seconds: 3, timeout_seconds: 3 },
  })
  t.equal(r.status, 200, JSON.stringify(r.body))
  const up = await until('http healthy', () => check(r.body.id), (c) => c?.health === 'healthy')
  t.type(up?.last_result?.details.ssh_tunnel_ms, 'number')
  t.match(sshd.log(), new RegExp(`target 127\\.0\\.0\\.1 port ${new URL(web.url).port}`), 'sshd forwarded to the web server')
  await lk.req('POST', `${R}/monitoring`, { id: r.body.id, enabled: false })
})

t.test('a changed host key is refused, not trusted', async (t) => {
  const pinned = sshd.hostFingerprint()
  await sshd.restartWithNewHostKey()
  t.not(sshd.hostFingerprint(), pinned)
  const refused = await until('host key refused', () => check(checkId), (c) => c?.last_result?.code === 'LOOKOUT_PROBE_SSH_HOST_KEY')
  t.equal(refused?.last_result?.status, 'unknown', 'unknown: the path to the target cannot be trusted')
  t.match(refused?.last_result?.reason, /host key/)
  t.ok(refused?.last_result?.reason.includes(sshd.hostFingerprint()), 'the reason names the offered host key')
  t.notOk(refused?.last_result?.reason.includes(lk.dataDir), 'and no path of the server')
  const after = await until('health unknown', () => check(checkId), (c) => c?.health === 'unknown')
  t.equal(after?.health, 'unknown')
  const key = await until('key failed', sshKey, (k) => k.synchronization.status === 'failed')
  t.match(key.synchronization.detail, /host key/)
  t.same(key.host_trust.pinned_fingerprints, [pinned], 'the pin is kept: a new host key is never pinned by itself')
})

t.test('re-pinning by giving the new fingerprint, then removing the key', async (t) => {
  const put = await lk.req('PUT', `${R}/ssh-key`, {
    alias: 'bastion', host: '127.0.0.1', port: sshd.port, username: sshd.user, private_key: sshd.clientKey, host_fingerprint: sshd.hostFingerprint(),
  })
  t.equal(put.status, 200)
  t.equal(put.body.host_trust.mode, 'given')
  t.same(put.body.host_trust.pinned_fingerprints, [], 'a given fingerprint no pinned key matches clears the pin')
  await until('healthy with the new host key', () => check(checkId), (c) => c?.health === 'healthy')
  t.same((await sshKey()).host_trust.pinned_fingerprints, [sshd.hostFingerprint()])
  t.equal((await until('installed again', sshKey, (k) => k.synchronization.status === 'installed')).synchronization.status, 'installed')
  const wrong = await lk.req('PUT', `${R}/ssh-key`, {
    alias: 'bastion', host: '127.0.0.1', port: sshd.port, username: sshd.user, private_key: sshd.clientKey, host_fingerprint: `SHA256:${'A'.repeat(43)}`,
  })
  t.equal(wrong.status, 200)
  const mismatch = await until('given fingerprint refused', () => check(checkId), (c) => c?.last_result?.code === 'LOOKOUT_PROBE_SSH_HOST_KEY')
  t.match(mismatch?.last_result?.reason, /does not match the given fingerprint/)
  t.equal((await lk.req('PUT', `${R}/ssh-key`, { alias: 'bastion', host: '127.0.0.1', port: sshd.port, username: sshd.user, private_key: sshd.clientKey, host_fingerprint: 'md5:00' })).status, 422)
  t.equal((await lk.req('DELETE', `${R}/ssh-key`)).status, 200)
  const none = await until('no key', () => check(checkId), (c) => c?.last_result?.code === 'LOOKOUT_PROBE_SSH_KEY_UNAVAILABLE')
  t.equal(none?.last_result?.status, 'unknown', 'without the key the check cannot run: unknown, never a direct connection')
  t.same(await until('the key files removed', async () => sshDirs(), (d) => d.length === 0, 20_000), [], 'no key file or directory is left behind')
  // A new key after a delete starts over (same revision number, another stored key): pending, then installed.
  const again = await lk.req('PUT', `${R}/ssh-key`, { alias: 'bastion', host: '127.0.0.1', port: sshd.port, username: sshd.user, private_key: sshd.clientKey })
  t.equal(again.body.synchronization.status, 'pending')
  t.same(again.body.host_trust.pinned_fingerprints, [], 'the deleted key\'s host trust went with it')
  await until('installed after a delete and a new PUT', sshKey, (k) => k.synchronization.status === 'installed')
  await until('healthy again', () => check(checkId), (c) => c?.health === 'healthy')
})
