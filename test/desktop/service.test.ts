// The desktop service's faces: the owner socket (private directory, another
// user cannot connect), settings (owner only, revision-checked), the optional
// loopback listener (token on every route, browser and chunked requests
// refused, 127.0.0.1 only), grants (shown once, revocable, acted with on the
// socket), legacy and OTLP logs from a sender over the listener, every route
// of the local spec mounted, and log retention driven by settings.
import t from 'tap'
import protobuf from 'protobufjs'
import { request as httpRequest } from 'node:http'
import { chmodSync, chownSync, mkdirSync, rmSync, statSync } from 'node:fs'
import { connect, createServer } from 'node:net'
import { networkInterfaces } from 'node:os'
import { join } from 'node:path'
import { checkPrivateDir, ensurePrivateDir } from '../../deploy/index.ts'
import { connectAs, freePort, httpReq, startTestDesktop, type Res } from './desktop-helpers.ts'
import { tokenSecret } from '../helpers/lookout.ts'

const NOBODY = 65534
const td = await startTestDesktop({ sizeCapEveryMs: 3_600_000 })
t.teardown(() => td.stop())
const { owner } = td
const rid = await td.resource('desktop-web')

async function settings(): Promise<Res> {
  return owner('GET', '/v1/settings')
}

async function patch(body: Record<string, unknown>): Promise<Res> {
  const rev = (await settings()).body.revision
  return owner('PATCH', '/v1/settings', { revision: rev, ...body })
}

t.test('the owner socket: 0600 in a 0700 directory of the user; another user gets EACCES', async (t) => {
  const dir = td.desktop.paths.runtimeDir
  t.equal(dir, join(td.base, 'run', 'lookout'), '$XDG_RUNTIME_DIR/lookout')
  const d = statSync(dir)
  t.equal(d.mode & 0o777, 0o700, 'the directory is 0700')
  t.equal(d.uid, process.getuid?.(), 'owned by the user')
  const s = statSync(td.socketPath)
  t.ok(s.isSocket())
  t.equal(s.mode & 0o777, 0o600, 'the socket is 0600')
  t.equal(statSync(td.desktop.paths.dataDir).mode & 0o777, 0o700, 'the data directory is 0700')
  t.equal((await owner('GET', '/v1/me')).body.owner, true, 'the owner is served without a token')

  t.equal(process.getuid?.(), 0, 'these checks run as root, so they can act as another user')
  t.equal(await connectAs(NOBODY, NOBODY, td.socketPath), 'EACCES', 'nobody cannot connect: the private directory stops it')
  // Open the directory: the socket's own mode still stops another user.
  chmodSync(dir, 0o755)
  try {
    t.equal(await connectAs(NOBODY, NOBODY, td.socketPath), 'EACCES', 'with the directory open, the 0600 socket stops it')
    chmodSync(td.socketPath, 0o666)
    t.equal(await connectAs(NOBODY, NOBODY, td.socketPath), 'CONNECTED', 'control: with both open, nobody connects (the check can fail)')
  } finally {
    chmodSync(td.socketPath, 0o600)
    chmodSync(dir, 0o700)
  }
  t.equal(await connectAs(NOBODY, NOBODY, td.socketPath), 'EACCES', 'closed again')
})

t.test('a runtime directory that is not the user\'s own and private is refused', async (t) => {
  const squat = join(td.base, 'squatted')
  mkdirSync(squat, { mode: 0o700 })
  chownSync(squat, NOBODY, NOBODY)
  t.throws(() => ensurePrivateDir(squat), /belongs to uid 65534/, 'another user\'s directory is never used')
  const open = join(td.base, 'open')
  mkdirSync(open, { mode: 0o755 })
  chmodSync(open, 0o755)
  t.throws(() => checkPrivateDir(open), /open to other users/, 'the tool server refuses an open directory')
  ensurePrivateDir(open)
  t.equal(statSync(open).mode & 0o777, 0o700, 'the service closes its own directory')
  t.doesNotThrow(() => checkPrivateDir(open))
})

t.test('settings: owner only, revision-checked, validated', async (t) => {
  const s = await settings()
  t.equal(s.status, 200)
  t.match(s.body, {
    loopback_enabled: false, loopback_port: 47800, retention_days: 7, retention_bytes: 1024 ** 3, notification_toasts: true,
    forward_enabled: false, forward_token_set: false,
  }, 'defaults: no listener, 7 days and 1 GiB, toasts on, no forwarding')
  t.notOk('forward_token' in s.body, 'the token is never shown')

  const stale = await owner('PATCH', '/v1/settings', { revision: s.body.revision + 5, retention_days: 9 })
  t.equal(stale.status, 409)
  t.equal(stale.body.error.code, 'LOOKOUT_SETTINGS_STALE_REVISION')
  t.equal((await settings()).body.retention_days, 7, 'a stale change changes nothing')

  t.equal((await patch({ loopback_port: 80 })).status, 400, 'a privileged port is refused')
  t.equal((await patch({ loopback_port: 65536 })).status, 400)
  t.equal((await patch({ retention_days: 0 })).status, 400)
  t.equal((await patch({ nonsense: true })).status, 400, 'unknown settings are refused')
  t.equal((await owner('PATCH', '/v1/settings', { revision: s.body.revision })).status, 400, 'a change names something to change')
  const early = await patch({ forward_enabled: true })
  t.equal(early.status, 400, 'forwarding needs a target first')
  t.match(early.body.error.message, /forward_url, forward_workspace_id and forward_token/)
  t.equal((await patch({ forward_url: 'ftp://example.com' })).status, 400)
  t.equal((await patch({ forward_url: 'https://u:p@example.com' })).status, 400, 'no credentials in the URL')

  const toasts = await patch({ notification_toasts: false, forward_token: 'secret-token', forward_url: 'https://cloud.example' })
  t.equal(toasts.status, 200)
  t.equal(toasts.body.notification_toasts, false)
  t.equal(toasts.body.forward_token_set, true)
  t.notOk(JSON.stringify(toasts.body).includes('secret-token'), 'the token is write-only')
  t.equal(toasts.body.revision, s.body.revision + 1, 'each change adds one to the revision')
  t.equal((await owner('GET', '/v1/notifications/settings')).body.notification_toasts, false, 'the same setting as the notifications area')
  t.equal((await patch({ notification_toasts: true, forward_token: '', forward_url: '' })).status, 200)
})

t.test('the loopback listener: off by default, 127.0.0.1 only, a token on every route', async (t) => {
  t.equal((await owner('GET', '/v1/desktop')).body.loopback.listening, false)
  const port = await freePort()
  const on = await patch({ loopback_enabled: true, loopback_port: port })
  t.equal(on.status, 200)
  const status = (await owner('GET', '/v1/desktop')).body
  t.match(status.loopback, { enabled: true, port, listening: true, url: `http://127.0.0.1:${port}`, error: null })
  const base = `http://127.0.0.1:${port}`
  const other = Object.values(networkInterfaces()).flat().find((i) => i !== undefined && !i.internal && i.family === 'IPv4')
  if (other !== undefined) {
    const refused = await new Promise<string>((resolve) => {
      const s = connect(port, other.address)
      s.on('connect', () => {
        s.destroy()
        resolve('CONNECTED')
      })
      s.on('error', (e: NodeJS.ErrnoException) => resolve(e.code ?? e.message))
    })
    t.equal(refused, 'ECONNREFUSED', `not reachable on ${other.address}`)
  }

  const all = await td.grant(['project:read', 'project:write', 'logs:read', 'logs:write', 'monitor:read', 'notifications:read'])
  const bearer = { authorization: `Bearer ${all.token}` }
  for (const path of ['/v1/health', '/v1/ready', '/v1/openapi.json', '/v1/projects/items', '/v1/no-such-route']) {
    const anon = await httpReq(base, 'GET', path)
    t.equal(anon.status, 401, `${path} needs a token`)
  }
  t.equal((await httpReq(base, 'GET', '/v1/health', undefined, { authorization: 'Bearer lkt_nope' })).status, 401, 'a bad token is refused')
  t.equal((await httpReq(base, 'GET', '/v1/health', undefined, bearer)).status, 200, 'health with a token')
  t.equal((await httpReq(base, 'GET', '/v1/ready', undefined, bearer)).status, 200)
  t.equal((await httpReq(base, 'GET', '/v1/projects/items', undefined, bearer)).status, 200)
  t.equal((await httpReq(base, 'GET', '/v1/me', undefined, { ...bearer, 'x-lookout-act-as-grant': all.id })).body.owner, false,
    'the act-as header means nothing here')
  t.equal((await httpReq(base, 'GET', '/v1/me', undefined, { 'x-lookout-act-as-grant': all.id })).status, 401, 'nor replaces a token')

  const browserHeaders: Record<string, string>[] = [{ origin: 'http://evil.example' }, { origin: 'null' }, { 'sec-fetch-site': 'cross-site' }]
  for (const h of browserHeaders) {
    const r = await httpReq(base, 'GET', '/v1/projects/items', undefined, { ...bearer, ...h })
    t.equal(r.status, 403, `browser request refused (${Object.keys(h)[0]})`)
    t.equal(r.body.error.code, 'LOOKOUT_BROWSER_ORIGIN')
  }
  const fromBrowserPost = await httpReq(base, 'POST', '/v1/logs', { resource_id: rid, events: [] }, { ...bearer, origin: 'http://localhost:3000' })
  t.equal(fromBrowserPost.status, 403, 'a browser POST is refused before anything else')

  // A sender with Content-Length is served; the same body chunked is refused.
  const sender = await td.grant(['logs:write'], [rid], 'sender')
  const batch = JSON.stringify({ resource_id: rid, events: [{ id: 'lb-1', timestamp: new Date().toISOString(), severity: 'info', message: 'over loopback' }] })
  const ok = await httpReq(base, 'POST', '/v1/logs', batch, { authorization: `Bearer ${sender.token}`, 'content-type': 'application/json' })
  t.equal(ok.status, 200, 'Content-Length: accepted')
  t.equal(ok.body.accepted, 1)
  const chunked = await new Promise<{ status: number; body: string }>((resolve, reject) => {
    const req = httpRequest(`${base}/v1/logs`, {
      method: 'POST', headers: { authorization: `Bearer ${sender.token}`, 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
    }, (res) => {
      let text = ''
      res.on('data', (d) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
    req.on('error', reject)
    req.write(batch.slice(0, 10))
    setTimeout(() => req.end(batch.slice(10)), 50)
  })
  t.equal(chunked.status, 411, 'chunked: refused')
  t.match(JSON.parse(chunked.body), { error: { code: 'LOOKOUT_LENGTH_REQUIRED' } })

  // Owner-only operations are not reachable with any grant on the listener.
  const ownerOnly: [string, string, unknown?][] = [
    ['GET', '/v1/settings'], ['PATCH', '/v1/settings', { revision: 1, retention_days: 3 }], ['GET', '/v1/desktop'],
    ['GET', '/v1/grants'], ['POST', '/v1/grants', { name: 'x', scopes: ['project:read'] }], ['DELETE', `/v1/grants/${all.id}`],
    ['GET', '/v1/webhooks'], ['POST', '/v1/monitoring/actions', { id: rid, revision: 1, action: 'run' }],
    ['POST', '/v1/monitoring/checks', { resource_id: rid, name: 'c', required: true, config: {} }],
    ['POST', '/v1/notifications/actions', { action: 'read_all' }], ['GET', `/v1/logs/setup?resource_id=${rid}`],
  ]
  for (const [method, path, body] of ownerOnly) {
    const r = await httpReq(base, method, path, body, bearer)
    t.equal(r.status, 403, `${method} ${path}: owner only`)
  }
  t.equal((await owner('GET', '/v1/grants')).status, 200, 'on the socket the owner reaches them')

  // A port that cannot be bound changes nothing.
  const blocker = createServer()
  await new Promise<void>((resolve) => blocker.listen(0, '127.0.0.1', resolve))
  const busy = (blocker.address() as { port: number }).port
  const clash = await patch({ loopback_port: busy })
  t.equal(clash.status, 409)
  t.equal(clash.body.error.code, 'LOOKOUT_LOOPBACK_UNAVAILABLE')
  t.equal((await settings()).body.loopback_port, port, 'the port stays')
  t.equal((await httpReq(base, 'GET', '/v1/health', undefined, bearer)).status, 200, 'the listener still serves')
  blocker.close()

  t.equal((await patch({ loopback_enabled: false })).status, 200)
  t.equal((await owner('GET', '/v1/desktop')).body.loopback.listening, false)
  await t.rejects(httpReq(base, 'GET', '/v1/health', undefined, bearer), { code: 'ECONNREFUSED' }, 'stopped')
})

t.test('logs on the desktop faces: legacy and OTLP from a sender over the loopback listener; portal logs fail offline', async (t) => {
  const port = await freePort()
  t.equal((await patch({ loopback_enabled: true, loopback_port: port })).status, 200)
  t.teardown(async () => {
    await patch({ loopback_enabled: false })
  })
  const base = `http://127.0.0.1:${port}`
  const lrid = await td.resource('desktop-logs')
  const sender = await td.grant(['logs:write'], [lrid], 'sender')
  const auth = { authorization: `Bearer ${sender.token}`, 'content-type': 'application/json' }
  const at = () => new Date().toISOString()

  // Legacy: the whole batch is validated before anything is stored.
  const mixed = { resource_id: lrid, events: [
    { id: 'ok-1', timestamp: at(), severity: 'info', message: 'fine' },
    { id: 'bad-1', timestamp: at(), severity: 'fatal', message: 'unknown severity' },
  ] }
  const refused = await httpReq(base, 'POST', '/v1/logs', JSON.stringify(mixed), auth)
  t.equal(refused.status, 400, 'one invalid event fails the batch')
  t.type(refused.body.error.message, 'string', 'desktop error body')
  const good = { resource_id: lrid, events: [{ id: 'ok-1', timestamp: at(), severity: 'info', message: 'legacy line' }] }
  t.equal((await httpReq(base, 'POST', '/v1/logs', JSON.stringify(good), auth)).status, 200)

  // OTLP/HTTP, JSON and protobuf, on the resource path with the same sender grant.
  const otlp = `/v1/workspaces/${td.workspaceId}/resources/${lrid}/otlp/v1/logs`
  const record = (body: string) => ({ timeUnixNano: String(BigInt(Date.now()) * 1_000_000n), severityNumber: 9, body: { stringValue: body } })
  const json = { resourceLogs: [{ resource: { attributes: [] }, scopeLogs: [{ scope: { name: 't' }, logRecords: [record('otlp json line')] }] }] }
  const j = await httpReq(base, 'POST', otlp, JSON.stringify(json), auth)
  t.equal(j.status, 200)
  t.same(j.body, {}, 'JSON success returns an empty object')
  const root = new protobuf.Root()
  root.resolvePath = (_origin, target) => `proto/${target}`
  root.loadSync('opentelemetry/proto/collector/logs/v1/logs_service.proto')
  const Req = root.lookupType('opentelemetry.proto.collector.logs.v1.ExportLogsServiceRequest')
  const pb = Req.encode(Req.fromObject({ resourceLogs: [{ scopeLogs: [{ logRecords: [record('otlp protobuf line')] }] }] })).finish()
  const p = await httpReq(base, 'POST', otlp, pb, { authorization: auth.authorization, 'content-type': 'application/x-protobuf' })
  t.equal(p.status, 200, 'protobuf accepted')
  const broken = await httpReq(base, 'POST', otlp, '{"resourceLogs": 5}', auth)
  t.equal(broken.status, 400, 'an invalid OTLP body')
  t.type(broken.body.error.message, 'string', 'in the desktop error shape')
  const other = await td.resource('desktop-logs-other')
  const elsewhere = `/v1/workspaces/${td.workspaceId}/resources/${other}/otlp/v1/logs`
  t.equal((await httpReq(base, 'POST', elsewhere, JSON.stringify(json), auth)).status, 403, 'a sender writes to its own resource only')
  t.equal((await httpReq(base, 'GET', `/v1/logs?resource_id=${lrid}`, undefined, auth)).status, 403, 'a sender cannot read')
  const ownerBroken = await owner('POST', otlp, { resourceLogs: 5 })
  t.equal(ownerBroken.status, 400, 'the owner socket speaks the desktop contract on the OTLP path too')
  t.type(ownerBroken.body.error.message, 'string')

  const messages = async () => ((await owner('GET', `/v1/logs?resource_id=${lrid}&limit=100`)).body.events ?? [])
    .map((e: { message: string }) => e.message).sort()
  let got: string[] = []
  for (let i = 0; i < 600 && got.length < 3; i++) {
    got = await messages()
    if (got.length < 3) await new Promise((r) => setTimeout(r, 100))
  }
  t.same(got, ['legacy line', 'otlp json line', 'otlp protobuf line'], 'stored locally; nothing of the refused batch')

  // A resource-scoped reader must name its resource.
  const reader = await td.grant(['logs:read'], [lrid])
  const rauth = { authorization: `Bearer ${reader.token}` }
  t.equal((await httpReq(base, 'GET', `/v1/logs?resource_id=${lrid}`, undefined, rauth)).body.events.length, 3)
  const unnamed = await httpReq(base, 'GET', '/v1/logs', undefined, rauth)
  t.equal(unnamed.status, 403, `a resource-scoped grant must supply its resource_id (${unnamed.status})`)

  // Owner-only log operations.
  t.equal((await owner('GET', `/v1/logs/setup?resource_id=${lrid}`)).status, 200, 'setup metadata for the owner')
  const portal = await owner('GET', `/v1/portal/logs?resource_id=${lrid}`)
  t.equal(portal.status, 503, 'portal logs: no portal connection, so offline')
  t.equal(portal.body.error.code, 'LOOKOUT_PORTAL_OFFLINE')
  t.equal((await owner('GET', '/v1/portal/logs?resource_id=00000000-0000-4000-8000-000000000000')).status, 404)
  t.equal((await owner('GET', '/v1/portal/logs')).status, 400, 'resource_id is required')
  t.equal((await httpReq(base, 'GET', `/v1/portal/logs?resource_id=${lrid}`, undefined, rauth)).status, 403, 'owner only')
  const portalHealth = await owner('GET', `/v1/portal/monitoring?resource_id=${lrid}`)
  t.equal(portalHealth.status, 503, 'portal monitoring: no portal connection, so offline')
  t.equal(portalHealth.body.error.code, 'LOOKOUT_PORTAL_OFFLINE')
  t.equal((await owner('GET', '/v1/portal/monitoring?resource_id=00000000-0000-4000-8000-000000000000')).status, 404)
  t.equal((await owner('GET', '/v1/portal/monitoring')).status, 400, 'resource_id is required')
  t.equal((await httpReq(base, 'GET', `/v1/portal/monitoring?resource_id=${lrid}`, undefined, rauth)).status, 403, 'owner only')
})

t.test('every route of local-desktop-api.md is mounted on the owner socket', async (t) => {
  const id = '00000000-0000-4000-8000-000000000000'
  const routes: [string, string][] = [
    ['GET', '/v1/projects/items'], ['POST', '/v1/projects/items'], ['GET', `/v1/projects/items/${id}`], ['PATCH', `/v1/projects/items/${id}`],
    ['POST', `/v1/projects/items/${id}/actions`], ['GET', `/v1/projects/items/${id}/history`], ['GET', `/v1/projects/items/${id}/assignment`],
    ['GET', '/v1/projects/boards'], ['GET', '/v1/projects/members'], ['GET', '/v1/projects/statuses'], ['GET', '/v1/projects/edges'],
    ['POST', '/v1/projects/statuses'], ['POST', '/v1/projects/edges'], ['DELETE', `/v1/projects/edges/${id}`],
    ['GET', '/v1/projects/taxonomy'], ['POST', '/v1/projects/taxonomy'],
    ['POST', '/v1/logs'], ['GET', '/v1/logs'], ['GET', '/v1/logs/setup'], ['POST', `/v1/workspaces/${td.workspaceId}/resources/${rid}/otlp/v1/logs`],
    ['GET', '/v1/portal/logs'],
    ['GET', '/v1/monitoring'], ['POST', '/v1/monitoring/checks'], ['POST', '/v1/monitoring/actions'], ['POST', '/v1/heartbeat'],
    ['GET', '/v1/notifications'], ['POST', '/v1/notifications/actions'], ['POST', '/v1/notifications/refresh'],
    ['GET', '/v1/webhooks'], ['POST', '/v1/webhooks'], ['PATCH', `/v1/webhooks/${id}`], ['DELETE', `/v1/webhooks/${id}`],
    ['GET', `/v1/webhooks/${id}/deliveries`], ['POST', `/v1/webhooks/${id}/test`], ['POST', `/v1/webhooks/${id}/deliveries/${id}/retry`],
  ]
  const mounted = async (method: string, path: string) => {
    const r = await owner(method, path, method === 'GET' || method === 'DELETE' ? undefined : {})
    return !(r.status === 404 && /^route /.test(r.body?.error?.message ?? ''))
  }
  for (const [method, path] of routes) t.ok(await mounted(method, path), `${method} ${path}`)
  t.ok(await mounted('GET', '/v1/portal/monitoring'), 'GET /v1/portal/monitoring')
  const control = await owner('GET', '/v1/no-such-route')
  t.equal(control.status, 404, 'control: an unknown route is told apart')
  t.match(control.body.error.message, /^route /)
})

t.test('grants: created and shown once, listed without secrets, revoked; acted with on the socket', async (t) => {
  const other = await td.resource('desktop-db')
  const created = await owner('POST', '/v1/grants', { name: 'agent', scopes: ['project:read', 'logs:read'], resources: [rid] })
  t.equal(created.status, 201)
  t.match(created.body, { name: 'agent', kind: 'access', scopes: ['project:read', 'logs:read'], resources: [rid], revoked_at: null })
  t.match(created.body.token, /^lkt_[0-9a-f]{32}_/)
  const id = created.body.id as string
  const listed = await owner('GET', '/v1/grants')
  const mine = listed.body.items.find((g: { id: string }) => g.id === id)
  t.ok(mine, 'listed')
  t.notOk(JSON.stringify(listed.body).includes(tokenSecret(created.body.token)), 'the list never holds a secret')
  t.notOk('token' in (await owner('GET', `/v1/grants/${id}`)).body, 'nor does a read')
  const stored = await td.desktop.lookout.db.query<{ secret_hash: Uint8Array }>('SELECT secret_hash FROM tokens WHERE id = $1', [id])
  t.equal(Buffer.from(stored.rows[0]?.secret_hash ?? []).length, 32, 'only a SHA-256 is stored')

  t.equal((await owner('POST', '/v1/grants', { name: 's', scopes: ['logs:write', 'logs:read'], resources: [rid], kind: 'sender' })).status, 400,
    'a sender grant writes logs only')
  t.equal((await owner('POST', '/v1/grants', { name: 's', scopes: ['logs:write'], kind: 'sender' })).status, 400, 'for one named resource')
  t.equal((await owner('POST', '/v1/grants', { name: 'h', scopes: ['monitor:heartbeat', 'monitor:read'], resources: [rid] })).status, 400,
    'a heartbeat grant has no other scope')
  t.equal((await owner('POST', '/v1/grants', { name: 'x', scopes: ['project:read'], resources: ['00000000-0000-4000-8000-000000000000'] })).status, 404,
    'an unknown resource')
  t.equal((await owner('POST', '/v1/grants', { name: 'x', scopes: ['root'] })).status, 400, 'an unknown scope')

  const act = { 'x-lookout-act-as-grant': id }
  t.equal((await owner('GET', '/v1/projects/items', undefined, act)).status, 200, 'its project:read works')
  const write = await owner('POST', '/v1/projects/items', { idempotency_key: crypto.randomUUID(), title: 'no' }, act)
  t.equal(write.status, 403, 'project:write it does not have')
  t.match(write.body.error.message, /project:write/)
  t.equal((await owner('GET', `/v1/logs?resource_id=${rid}`, undefined, act)).status, 200, 'its resource')
  t.equal((await owner('GET', `/v1/logs?resource_id=${other}`, undefined, act)).status, 403, 'not another resource')
  t.equal((await owner('GET', '/v1/grants', undefined, act)).status, 403, 'acting with a grant is not the owner')
  t.equal((await owner('GET', '/v1/me', undefined, act)).body.owner, false)
  t.equal((await owner('GET', '/v1/me', undefined, { 'x-lookout-act-as-grant': 'not-a-uuid' })).status, 401)

  const revoked = await owner('DELETE', `/v1/grants/${id}`)
  t.equal(revoked.status, 200)
  t.not(revoked.body.revoked_at, null)
  t.equal((await owner('DELETE', `/v1/grants/${id}`)).status, 404, 'revoked once')
  t.equal((await owner('GET', '/v1/projects/items', undefined, act)).status, 401, 'a revoked grant stops at once')
})

t.test('retention: the days set the table TTL and the bytes the size cap, while running', async (t) => {
  const store = td.desktop.lookout.store
  const ddl = async () => (await store.query<{ statement: string }>(`SHOW CREATE TABLE ${store.database}.logs`)).rows[0]?.statement ?? ''
  t.match(await ddl(), /TTL toDateTime\(timestamp\) \+ toIntervalDay\(7\)/, 'the default: 7 days')
  t.equal((await patch({ retention_days: 30 })).status, 200)
  t.match(await ddl(), /TTL toDateTime\(timestamp\) \+ toIntervalDay\(30\)/, 'changed while running')

  // Two daily partitions of incompressible logs, over 1 MiB together.
  const day = 86_400_000
  const events = (at: number) => Array.from({ length: 12 }, (_, i) => ({
    message: Buffer.from(crypto.getRandomValues(new Uint8Array(45_000))).toString('base64'),
    timestamp: new Date(at - i * 1000).toISOString(),
  }))
  const capRid = await td.resource('desktop-cap')
  const path = `/v1/workspaces/${td.workspaceId}/resources/${capRid}/logs`
  t.equal((await owner('POST', path, { events: events(Date.now() - 2 * day) })).status, 200)
  t.equal((await owner('POST', path, { events: events(Date.now()) })).status, 200)
  const count = async () => Number((await store.query<{ n: string }>(
    `SELECT count() AS n FROM ${store.database}.logs WHERE resource_id = {rid:UUID}`, { rid: capRid })).rows[0]?.n)
  for (let i = 0; i < 200 && (await count()) < 24; i++) await new Promise((r) => setTimeout(r, 100))
  t.equal(await count(), 24, 'stored')
  t.equal((await patch({ retention_bytes: 1024 * 1024 })).status, 200)
  t.equal(await count(), 12, 'the older day was dropped to fit 1 MiB; the newest day stays')
  const status = (await owner('GET', '/v1/desktop')).body
  t.same(status.retention, { days: 30, bytes: 1024 * 1024 })
  t.equal((await patch({ retention_bytes: 1024 ** 3, retention_days: 7 })).status, 200)
})
