// Secrets on the embedded default: without LOOKOUT_SECRET_KEY a server on its
// data directory makes a key file on first start (0600 in 0700, said once in
// the log) and seals with it; an unsafe file is refused; a missing file while
// sealed secrets exist stops the start; a configured key wins; a server on
// PostgreSQL makes no file and keeps refusing secret writes.
import t from 'tap'
import { execFile, execFileSync, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { ALL_SCOPES, createToken, createWorkspace, openSshKey, registerResource } from '../../workspace/internal.ts'
import { SecretBox } from '../../core/index.ts'
import { loadConfig, secretKeyPath, startLookout, type Lookout } from '../../deploy/index.ts'
import { postgresAvailable, startTestPostgres } from '../helpers/postgres.ts'
import { startTestDesktop } from '../desktop/desktop-helpers.ts'

const keyDir = mkdtempSync(join(tmpdir(), 'lookout-sk-keys-'))
t.teardown(() => rmSync(keyDir, { recursive: true, force: true }))
execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'sk@test', '-f', join(keyDir, 'ed')])
const privateKey = readFileSync(join(keyDir, 'ed'), 'utf8')

interface Started {
  lookout: Lookout
  lines: string[]
}

async function start(dataDir: string, env: Record<string, string> = {}): Promise<Started> {
  const lines: string[] = []
  const logStream = new Writable({
    write(chunk, _enc, cb) {
      lines.push(String(chunk))
      cb()
    },
  })
  const config = loadConfig({ LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0', ...env })
  const lookout = await startLookout(config, { roles: ['api'], logger: { level: 'info' }, logStream, secretKeyFile: true })
  return { lookout, lines }
}

/** A workspace, a token and a resource, and a PUT of an SSH key over HTTP. */
async function putKey(lookout: Lookout): Promise<{ status: number; body: any; ws: string; rid: string }> {
  const ws = (await createWorkspace(lookout.db, 'sk')).id
  const { token } = await createToken(lookout.db, { workspaceId: ws, scopes: ALL_SCOPES, resources: 'all', name: 'sk' })
  const rid = (await registerResource(lookout.db, ws, { external_id: `sk-${Math.random()}`, name: 'sk' })).resource.id
  const res = await fetch(`${lookout.url}/v1/workspaces/${ws}/resources/${rid}/ssh-key`, {
    method: 'PUT',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ alias: `sk-${rid.slice(0, 8)}`, host: '127.0.0.1', port: 22, username: 'deploy', private_key: privateKey }),
  })
  return { status: res.status, body: await res.json(), ws, rid }
}

const created = (lines: string[]) => lines.filter((l) => l.includes('created a random secret key')).length

t.test('fresh embedded server, no key configured: a key file is made once and secrets are sealed with it', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-sk-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const path = secretKeyPath(dataDir)
  t.equal(path, join(dataDir, 'keys', 'secret.key'))
  t.notOk(existsSync(path), 'no key before the first start')

  const first = await start(dataDir)
  let put: Awaited<ReturnType<typeof putKey>>
  try {
    t.equal(statSync(path).mode & 0o777, 0o600, 'the key file is 0600')
    t.equal(statSync(join(dataDir, 'keys')).mode & 0o777, 0o700, 'in a 0700 directory')
    const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64')
    t.equal(key.length, 32, '32 random bytes')
    t.equal(created(first.lines), 1, 'the log says so once')
    t.notOk(first.lines.join('').includes(key.toString('base64')), 'the key itself is never logged')
    put = await putKey(first.lookout)
    t.equal(put.status, 200, `PUT ssh-key works with no LOOKOUT_SECRET_KEY (${JSON.stringify(put.body).slice(0, 200)})`)
    const row = await first.lookout.db.query<{ sealed_with: string }>('SELECT sealed_with FROM resource_ssh_keys WHERE resource_id = $1', [put.rid])
    t.equal(row.rows[0]?.sealed_with, new SecretBox(key).keyId, 'sealed with the file\'s key')
    t.equal((await openSshKey(first.lookout.db, new SecretBox(key), put.ws, put.rid)).private_key, privateKey, 'the file\'s key opens it')
  } finally {
    await first.lookout.stop()
  }
  const keyBefore = readFileSync(path, 'utf8')

  const second = await start(dataDir)
  try {
    t.equal(created(second.lines), 0, 'a restart uses the file and says nothing')
    t.equal(readFileSync(path, 'utf8'), keyBefore, 'the same key')
  } finally {
    await second.lookout.stop()
  }

  // Readable by others: refused at start, the file left as it is.
  chmodSync(path, 0o644)
  await t.rejects(start(dataDir), { code: 'LOOKOUT_SECRET_KEY_FILE_UNSAFE', message: /open to other users/ }, 'a 0644 key file is refused')
  chmodSync(path, 0o640)
  await t.rejects(start(dataDir), { code: 'LOOKOUT_SECRET_KEY_FILE_UNSAFE' }, 'group-readable is refused too')
  chmodSync(path, 0o600)
  chmodSync(join(dataDir, 'keys'), 0o755)
  await t.rejects(start(dataDir), { code: 'LOOKOUT_SECRET_KEY_FILE_UNSAFE', message: /keys is open to other users/ }, 'an open directory is refused')
  chmodSync(join(dataDir, 'keys'), 0o700)
  t.equal(readFileSync(path, 'utf8'), keyBefore, 'nothing replaced the key')

  // Gone while a sealed secret exists: a start-up error, never a new key.
  const saved = readFileSync(path)
  unlinkSync(path)
  await t.rejects(start(dataDir), { code: 'LOOKOUT_SECRET_KEY_FILE_MISSING', message: /sealed secrets/ }, 'missing key file with sealed secrets')
  t.notOk(existsSync(path), 'no new key was made')
  writeFileSync(path, saved, { mode: 0o600 })
  const third = await start(dataDir)
  try {
    t.equal((await openSshKey(third.lookout.db, new SecretBox(Buffer.from(saved.toString().trim(), 'base64')), put.ws, put.rid)).private_key, privateKey,
      'with the file restored the server starts and the secret opens')
  } finally {
    await third.lookout.stop()
  }
})

t.test('a configured LOOKOUT_SECRET_KEY wins: no file, secrets sealed with it', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-sk-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const key = randomBytes(32)
  const s = await start(dataDir, { LOOKOUT_SECRET_KEY: key.toString('hex') })
  try {
    t.notOk(existsSync(secretKeyPath(dataDir)), 'no key file')
    t.equal(created(s.lines), 0)
    const put = await putKey(s.lookout)
    t.equal(put.status, 200)
    const row = await s.lookout.db.query<{ sealed_with: string }>('SELECT sealed_with FROM resource_ssh_keys WHERE resource_id = $1', [put.rid])
    t.equal(row.rows[0]?.sealed_with, new SecretBox(key).keyId, 'sealed with the configured key')
  } finally {
    await s.lookout.stop()
  }
  // A key file present but a configured key too: the configured one is used.
  const fileKey = randomBytes(32)
  mkdirSync(join(dataDir, 'keys'), { mode: 0o700 })
  writeFileSync(secretKeyPath(dataDir), `${fileKey.toString('base64')}\n`, { mode: 0o600 })
  const again = await start(dataDir, { LOOKOUT_SECRET_KEY: key.toString('hex') })
  try {
    const put = await putKey(again.lookout)
    const row = await again.lookout.db.query<{ sealed_with: string }>('SELECT sealed_with FROM resource_ssh_keys WHERE resource_id = $1', [put.rid])
    t.equal(row.rows[0]?.sealed_with, new SecretBox(key).keyId, 'the configured key, not the file\'s')
  } finally {
    await again.lookout.stop()
  }
})

t.test('a server on PostgreSQL (scale-out) makes no key file and keeps requiring the configured key', { skip: !postgresAvailable() && 'no PostgreSQL' }, async (t) => {
  const pg = await startTestPostgres()
  t.teardown(() => pg.stop())
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-sk-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const s = await start(dataDir, { DATABASE_URL: pg.url })
  try {
    t.notOk(existsSync(secretKeyPath(dataDir)), 'no key file')
    const put = await putKey(s.lookout)
    t.equal(put.status, 503, 'secret writes refused')
    t.equal(put.body.detail[0].type, 'LOOKOUT_SECRET_KEY_MISSING')
  } finally {
    await s.lookout.stop()
  }
})

t.test('lookout desktop: the same key file in its data directory; the owner stores an SSH key', async (t) => {
  const td = await startTestDesktop({ sizeCapEveryMs: 3_600_000 })
  t.teardown(() => td.stop())
  const path = secretKeyPath(td.desktop.paths.dataDir)
  t.equal(statSync(path).mode & 0o777, 0o600, 'made on first start, 0600')
  t.ok(td.desktop.config.secretKey?.equals(Buffer.from(readFileSync(path, 'utf8').trim(), 'base64')), 'the service seals with it')
  const rid = await td.resource('desktop-ssh')
  const put = await td.owner('PUT', `/v1/workspaces/${td.workspaceId}/resources/${rid}/ssh-key`,
    { alias: 'desk', host: '127.0.0.1', username: 'deploy', private_key: privateKey })
  t.equal(put.status, 200, `PUT on the owner socket (${put.status})`)
})

t.test('`lookout serve` as a user runs it: the key file is made, an SSH key is stored', async (t) => {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-sk-serve-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  const env: NodeJS.ProcessEnv = { ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0' }
  delete env.LOOKOUT_SECRET_KEY
  delete env.DATABASE_URL
  const child = spawn(process.execPath, ['deploy/lookout.ts', 'serve', '--role', 'api'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  t.teardown(async () => {
    if (child.exitCode === null) child.kill('SIGTERM')
    await exited
  })
  let out = ''
  child.stdout.on('data', (d) => (out += d))
  const url = await new Promise<string>((resolve, reject) => {
    child.stdout.on('data', () => {
      const m = /on (http:\/\/\S+)/.exec(out)
      if (m !== null) resolve(m[1] as string)
    })
    void exited.then(() => reject(new Error(`serve exited: ${out}`)))
  })
  t.match(out, /created a random secret key/, 'said once in the log')
  t.equal(statSync(secretKeyPath(dataDir)).mode & 0o777, 0o600)
  const ws = await cliOut(env, ['workspace', 'create', 'sk'])
  const token = await cliOut(env, ['token', 'create', '--workspace', ws, '--scopes', 'resources:write', '--name', 'sk'])
  const h = { authorization: `Bearer ${token}`, 'content-type': 'application/json' }
  const res = await fetch(`${url}/v1/workspaces/${ws}/resources`, { method: 'POST', headers: h, body: JSON.stringify({ external_id: 'sk', name: 'sk' }) })
  const rid = ((await res.json()) as { id: string }).id
  const put = await fetch(`${url}/v1/workspaces/${ws}/resources/${rid}/ssh-key`, {
    method: 'PUT', headers: h, body: JSON.stringify({ alias: 'served', host: '127.0.0.1', username: 'deploy', private_key: privateKey }),
  })
  t.equal(put.status, 200, 'PUT ssh-key on a fresh `lookout serve` with no key configured')
})

function cliOut(env: NodeJS.ProcessEnv, args: string[]): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(process.execPath, ['deploy/lookout.ts', ...args], { env }, (err, stdout) => (err === null ? resolve(stdout.trim()) : reject(err)))
  })
}
