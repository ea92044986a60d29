// Structured logs: the server started as `lookout serve` starts it (its own
// logger, at trace level, into a captured stream), driven with credentials,
// tokens, SSH private keys, passwords and query strings in every place a
// request can carry them; none may reach a log line, and every request line
// carries the request id the response announced.
import t from 'tap'
import { execFileSync } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Writable } from 'node:stream'
import { ALL_SCOPES, createToken, createWorkspace, registerResource } from '../../api/index.ts'
import { loadConfig, startLookout } from '../../deploy/index.ts'

const dir = mkdtempSync(join(tmpdir(), 'lookout-logging-'))
execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'log@test', '-f', join(dir, 'key')])
const privateKey = readFileSync(join(dir, 'key'), 'utf8')
const keyBody = (privateKey.split('\n')[2] as string).slice(0, 40)

const lines: string[] = []
const stream = new Writable({
  write(chunk, _enc, cb) {
    for (const l of String(chunk).split('\n')) if (l !== '') lines.push(l)
    cb()
  },
})
const config = loadConfig({
  LOOKOUT_DATA_DIR: join(dir, 'data'), LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '2', LOOKOUT_LOADER_FLUSH_MS: '100',
  LOOKOUT_SECRET_KEY: randomBytes(32).toString('base64'), LOOKOUT_METRICS_TOKEN: 'metrics-secret-token-0123456789',
})
const lookout = await startLookout(config, { logger: { level: 'trace' }, logStream: stream })
t.teardown(async () => {
  await lookout.stop()
  rmSync(dir, { recursive: true, force: true })
})
const ws = (await createWorkspace(lookout.db, 'logging')).id
const { token } = await createToken(lookout.db, { workspaceId: ws, scopes: ALL_SCOPES, resources: 'all', name: 'logs', staffId: 1 })
const rid = (await registerResource(lookout.db, ws, { external_id: 'log-res', name: 'log-res' })).resource.id
const unknownToken = `lkt_${'0'.repeat(32)}_${'A'.repeat(43)}`
const P = `/v1/workspaces/${ws}`

async function send(method: string, path: string, headers: Record<string, string>, body?: string): Promise<Response> {
  return fetch(lookout.url + path, { method, headers, body })
}

const json = { 'content-type': 'application/json' }
const responses: Response[] = []
// Credentials in the Authorization header, valid and not.
responses.push(await send('GET', `${P}/resources/${rid}`, { authorization: `Bearer ${token}` }))
responses.push(await send('GET', `${P}/resources/${rid}`, { authorization: `Bearer ${unknownToken}` }))
responses.push(await send('GET', `${P}/resources/${rid}`, { authorization: 'Basic dXNlcjpodW50ZXIy' }))
// Tokens and secrets in query strings, and a token in a path.
responses.push(await send('GET', `${P}/resources?cursor=${token}&password=hunter2`, { authorization: `Bearer ${token}` }))
responses.push(await send('GET', `/v1/nowhere/${token}?access_token=${token}`, {}))
responses.push(await send('GET', `/v1/health?token=${token}`, {}))
// A caller-chosen request id that is itself a token.
responses.push(await send('GET', '/v1/health', { 'x-request-id': token }))
// An SSH private key and its passphrase: stored, refused, and inside a body that is not JSON.
responses.push(await send('PUT', `${P}/resources/${rid}/ssh-key`, { authorization: `Bearer ${token}`, ...json },
  JSON.stringify({ alias: 'logs', host: 'h.example', username: 'deploy', private_key: privateKey, passphrase: 'correct horse battery' })))
responses.push(await send('PUT', `${P}/resources/${rid}/ssh-key`, { authorization: `Bearer ${token}`, ...json },
  JSON.stringify({ alias: 'BAD ALIAS', host: 'h.example', username: 'deploy', private_key: privateKey, passphrase: 'correct horse battery' })))
responses.push(await send('PUT', `${P}/resources/${rid}/ssh-key`, { authorization: `Bearer ${token}`, ...json },
  `{"private_key": ${JSON.stringify(privateKey)}, oops}`))
// A database password in a monitor check's credential and configuration.
responses.push(await send('POST', `${P}/resources/${rid}/monitoring`, { authorization: `Bearer ${token}`, ...json },
  JSON.stringify({ name: 'db', kind: 'postgresql', configuration: { url: 'postgres://app:hunter2@db.example:5432/app?sslmode=require' }, credential: { password: 'hunter2' } })))
// Logs with a token inside events, and the metrics token.
responses.push(await send('POST', `${P}/resources/${rid}/logs`, { authorization: `Bearer ${token}`, ...json },
  JSON.stringify({ events: [{ message: `user pasted ${token} and password=hunter2` }] })))
responses.push(await send('GET', '/metrics', { authorization: 'Bearer metrics-secret-token-0123456789' }))
responses.push(await send('GET', '/metrics', { authorization: 'Bearer wrong-metrics-token-000000' }))
for (const r of responses) await r.arrayBuffer()
// Whatever code logs through the process logger gets the same treatment.
lookout.app!.log.warn({
  headers: { authorization: `Bearer ${token}`, cookie: 'session=abc' },
  request: { url: `https://example.com/callback?code=secret-code&state=xyz` },
  credentials: { user: 'app', password: 'hunter2' },
  probe: { password: 'hunter2', private_key: privateKey, host: 'db.example' },
  database: 'postgres://app:hunter2@db.example:5432/app',
  note: `token ${token} pasted in text`,
  err: new Error(`connect failed for postgres://app:hunter2@db.example/app with ${token}`),
}, `could not reach https://hooks.example/notify?sig=secret-signature with Bearer ${token}`)

const all = lines.join('\n')
const SECRETS: [string, string][] = [
  ['the access token', token],
  ['the token\'s secret part', token.split('_')[2] as string],
  ['the unknown token', unknownToken],
  ['a Basic credential', 'dXNlcjpodW50ZXIy'],
  ['the SSH private key', keyBody],
  ['a PEM header', 'PRIVATE KEY-----\\n'],
  ['the passphrase', 'correct horse battery'],
  ['the password', 'hunter2'],
  ['the metrics token', 'metrics-secret-token'],
  ['a query string', 'password='],
  ['a query string', 'access_token='],
  ['a query string', 'cursor='],
  ['a query string', 'sslmode='],
  ['a query string', 'code=secret-code'],
  ['a query string', 'sig=secret-signature'],
  ['a cookie', 'session=abc'],
]

t.test('the log is JSON lines with levels, times and request ids', async (t) => {
  t.ok(lines.length >= 2 * responses.length, `${lines.length} lines for ${responses.length} requests`)
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, any>)
  for (const p of parsed) {
    t.type(p.level, 'string')
    t.type(p.time, 'number')
    t.ok(Math.abs(p.time - Date.now()) < 3_600_000, 'epoch milliseconds')
  }
  const completed = parsed.filter((p) => p.msg === 'request completed')
  t.ok(completed.length >= responses.length - 1, 'one completion line per request')
  const ids = new Set(completed.map((p) => p.reqId))
  for (const r of responses) {
    const id = r.headers.get('x-request-id') ?? ''
    if (id.startsWith('lkt_')) continue // the caller's own id, which is a token: redacted in the log
    t.ok(ids.has(id), `request ${id} is in the log`)
  }
  const incoming = parsed.find((p) => p.msg === 'incoming request' && p.req?.route === '/v1/workspaces/:workspace_id/resources')
  t.ok(incoming, 'request lines carry the route')
  t.equal(incoming?.req.url, `${P}/resources`, 'the path only, no query')
  t.equal(incoming?.req.headers, undefined, 'no headers')
  const warn = parsed.find((p) => p.level === 'warn' && p.msg?.startsWith('could not reach'))
  t.ok(warn, 'an object logged by code is kept')
  t.equal(warn?.headers.authorization, '[redacted]')
  t.equal(warn?.credentials, '[redacted]', 'a key naming a secret hides its whole value')
  t.same(warn?.probe, { password: '[redacted]', private_key: '[redacted]', host: 'db.example' })
  t.equal(warn?.database, 'postgres://app:[redacted]@db.example:5432/app')
  t.match(warn?.err.message, /connect failed for postgres:\/\/app:\[redacted\]@db\.example\/app with lkt_\[redacted\]/)
  t.equal(warn?.msg, 'could not reach https://hooks.example/notify?[query redacted] with Bearer [redacted]')
})

t.test('no credential, token, key, password or query string in any line', async (t) => {
  t.ok(all.includes('/v1/nowhere/lkt_[redacted]'), 'a token in a path is cut out')
  for (const [what, secret] of SECRETS) t.notOk(all.includes(secret), `no ${what} (${secret.slice(0, 12)}...)`)
  t.notOk(/\?[A-Za-z_]+=/.test(all), 'no key=value query string at all')
})
