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
import { connect } from 'node:net'
import { Writable } from 'node:stream'
import { ALL_SCOPES, createToken, createWorkspace, registerResource } from '../../workspace/index.ts'
import { buildApp } from '../../api/index.ts'
import { createAjv } from '../../core/index.ts'
import { loadConfig, startLookout } from '../../deploy/index.ts'
import { tokenSecret } from '../helpers/lookout.ts'

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
  JSON.stringify({ alias: 'logs', host: '127.0.0.1', username: 'deploy', private_key: privateKey, passphrase: 'correct horse battery' })))
responses.push(await send('PUT', `${P}/resources/${rid}/ssh-key`, { authorization: `Bearer ${token}`, ...json },
  JSON.stringify({ alias: 'BAD ALIAS', host: '127.0.0.1', username: 'deploy', private_key: privateKey, passphrase: 'correct horse battery' })))
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
// A request Node's HTTP parser refuses (a header line without a colon): Fastify logs the
// client error at trace with the raw bytes read, credential and query string included.
await new Promise<void>((resolve, reject) => {
  const socket = connect(Number(new URL(lookout.url).port), '127.0.0.1', () => {
    socket.end(`GET /v1/health?token=${token} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${token}\r\nbroken header\r\n\r\n`)
  })
  socket.on('error', reject)
  socket.on('close', () => resolve())
  socket.resume()
})
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
// A real Ajv validation error (verbose, as the contract's validators are: each refused value is kept in it).
const validate = createAjv().compile({ type: 'object', properties: { passphrase: { type: 'string', maxLength: 8 } } })
validate({ passphrase: 'correct horse battery' })
lookout.app!.log.warn({ err: Object.assign(new Error('body/passphrase must NOT have more than 8 characters'), { validation: validate.errors }) }, 'validation error logged by code')
// Child bindings (pino writes them once into the child, past the log formatter) and printf arguments.
lookout.app!.log.child({ role: 'probe', token, dsn: 'postgres://app:hunter2@db.example/app' }).info('child with secrets in its bindings')
lookout.app!.log.info('interpolated %j and %o and %s', { password: 'hunter2' }, { credential: { value: 'hunter2' } }, `Bearer ${token}`)

// A request that fails inside a route (a 500 logged by the error handler) with secrets all over the
// error: an app built with buildApp's own logger option, on the same components.
const appLines: string[] = []
const appStream = new Writable({
  write(chunk, _enc, cb) {
    for (const l of String(chunk).split('\n')) if (l !== '') appLines.push(l)
    cb()
  },
})
const failing = await buildApp({
  db: lookout.db, ingest: lookout.ingest as never, store: lookout.store, maxEventLoopDelayMs: 0, logger: { level: 'trace', stream: appStream },
})
await failing.register(async (group) => {
  group.post('/v1/fails', { schema: { summary: 'fails' } }, async () => {
    const err = new Error(`upstream postgres://app:hunter2@db.example/app refused Bearer ${token}`, { cause: new Error('passphrase="correct horse battery" refused') })
    Object.assign(err, {
      statusCode: 500,
      headers: { authorization: `Bearer ${token}` },
      details: [{ loc: ['body', 'credential'], msg: 'bad', type: 'value_error', input: { user: 'app', value: 'hunter2' } }],
    })
    throw err
  })
})
const failed = await failing.inject({ method: 'POST', url: `/v1/fails?password=hunter2`, headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' }, payload: '{}' })
await failing.close()

const all = [...lines, ...appLines].join('\n')

/** Every string of a parsed line (keys and values), decoded: a secret JSON-escaped in the raw line is found here. */
function stringsOf(v: unknown, out: string[] = []): string[] {
  if (typeof v === 'string') out.push(v)
  else if (Array.isArray(v)) for (const x of v) stringsOf(x, out)
  else if (v !== null && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(k), stringsOf(x, out)
  return out
}
const decoded = [...lines, ...appLines].flatMap((l) => stringsOf(JSON.parse(l)))
const SECRETS: [string, string][] = [
  ['the access token', token],
  ['the token\'s secret part', tokenSecret(token)],
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

t.test('secrets in child bindings, printf arguments, client errors and a failing route are filtered, not dropped', async (t) => {
  const parsed = lines.map((l) => JSON.parse(l) as Record<string, any>)
  const child = parsed.find((p) => p.msg === 'child with secrets in its bindings')
  t.same([child?.role, child?.token, child?.dsn], ['probe', '[redacted]', '[redacted]'], 'child bindings')
  const printf = parsed.find((p) => typeof p.msg === 'string' && p.msg.startsWith('interpolated'))
  t.equal(printf?.msg, 'interpolated {"password":"[redacted]"} and {"credential":"[redacted]"} and Bearer [redacted]', 'printf arguments')
  const client = parsed.find((p) => p.msg === 'client error')
  t.ok(client, 'the refused request was logged as a client error')
  t.match(client?.err?.message, /Parse Error/, 'with its parser error')

  t.equal(failed.statusCode, 500)
  const app = appLines.map((l) => JSON.parse(l) as Record<string, any>)
  const logged = app.find((p) => p.msg === 'request failed')
  t.ok(logged, 'the error handler logged the failure')
  t.match(logged?.err.message, /^upstream postgres:\/\/app:\[redacted\]@db\.example\/app refused Bearer \[redacted\]: passphrase="\[redacted\]" refused$/)
  t.same(logged?.err.headers, { authorization: '[redacted]' })
  const ajv = parsed.find((p) => p.msg === 'validation error logged by code')
  t.ok(validate.errors?.[0]?.data === 'correct horse battery', 'Ajv kept the refused value in its error')
  t.same(ajv?.err.validation, [{ instancePath: '/passphrase', keyword: 'maxLength', message: 'must NOT have more than 8 characters' }], 'the log keeps where and why, not the value')
  t.same(logged?.err.details, [{ loc: ['body', 'credential'], msg: 'bad', type: 'value_error' }])
  t.ok(app.some((p) => p.msg === 'incoming request' && p.req?.url === '/v1/fails'), 'the app\'s request lines, path only')
})

t.test('no credential, token, key, password or query string in any line', async (t) => {
  t.ok(all.includes('/v1/nowhere/lkt_[redacted]'), 'a token in a path is cut out')
  t.ok(decoded.length > 4 * lines.length, `${decoded.length} strings read back from ${lines.length + appLines.length} lines`)
  for (const [what, secret] of SECRETS) {
    t.same([...lines, ...appLines].filter((l) => l.includes(secret)), [], `no ${what} (${secret.slice(0, 12)}...) in the raw lines`)
    t.notOk(decoded.some((x) => x.includes(secret.replace('\\n', '\n'))), `no ${what} in any decoded string`)
  }
  t.notOk(/\?[A-Za-z_]+=/.test(all), 'no key=value query string at all')
  // The checks can fail: the same scan finds a secret in a line that carries one.
  const leak = JSON.stringify({ msg: `pasted ${token}`, note: { value: 'correct horse battery' } })
  t.ok(SECRETS.filter(([, secret]) => leak.includes(secret) || stringsOf(JSON.parse(leak)).some((x) => x.includes(secret))).length >= 3, 'a leaking line is caught')
})
