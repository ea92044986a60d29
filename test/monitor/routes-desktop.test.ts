// Desktop monitoring routes on a real Lookout (its monitor role running on
// real time): owner-only configuration and actions, reads, heartbeats, and
// a check going healthy, down (incident + outbox row) and back.
import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'
import { startTcp } from '../helpers/servers.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const rid = await lk.resource('desktop-monitored')
const otherRid = await lk.resource('desktop-other')
const target = await startTcp()
t.teardown(() => target.close())

async function waitFor<T>(what: string, get: () => Promise<T>, ok: (v: T) => boolean, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await get()
    if (ok(v)) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(v).slice(0, 500)}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

const overview = async (r = rid) => (await lk.ownerReq('GET', `/v1/monitoring?resource_id=${r}`)).body
const checkOf = async (id: string) => (await overview()).checks.find((c: { id: string }) => c.id === id)

t.test('configuration is owner-only; bodies are validated', async (t) => {
  const body = { resource_id: rid, name: 'web', config: { kind: 'tcp', host: '127.0.0.1', port: target.port } }
  const viaToken = await lk.req('POST', '/v1/monitoring/checks', body)
  t.equal(viaToken.status, 403, 'no HTTP grant can configure monitoring')
  t.equal(viaToken.body.error.code, 'LOOKOUT_FORBIDDEN')
  t.equal((await lk.req('POST', '/v1/monitoring/actions', { id: crypto.randomUUID(), revision: 1, action: 'run' })).status, 403)

  const bad = async (b: unknown, re: RegExp, status = 400) => {
    const r = await lk.ownerReq('POST', '/v1/monitoring/checks', b)
    t.equal(r.status, status, JSON.stringify(b).slice(0, 120))
    t.match(r.body?.error?.message, re)
  }
  await bad({ ...body, extra: 1 }, /extra/i)
  await bad({ ...body, config: { host: 'x', port: 1 } }, /kind/)
  await bad({ ...body, config: { kind: 'ftp', host: 'x', port: 1 } }, /kind/)
  await bad({ ...body, config: { kind: 'tcp', host: '127.0.0.1', port: 70000 } }, /port/)
  await bad({ ...body, config: { kind: 'tcp', host: '127.0.0.1', port: 1, colour: 'red' } }, /colour/)
  await bad({ ...body, config: { kind: 'tcp', host: '-oProxyCommand', port: 1 } }, /host/)
  await bad({ ...body, config: { kind: 'tcp', host: '127.0.0.1', port: 1, interval_seconds: 0 } }, /interval_seconds/)
  await bad({ ...body, config: { kind: 'tcp', host: '127.0.0.1', port: 1, interval_seconds: 5, timeout_seconds: 6 } }, /timeout_seconds/)
  await bad({ ...body, config: { kind: 'https', url: 'ftp://example.com/' } }, /url/)
  await bad({ ...body, config: { kind: 'https', url: 'https://example.com/', headers: { Authorization: 'Bearer x' } } }, /credential_header/)
  await bad({ ...body, config: { kind: 'postgresql', host: 'db', user: 'u', credential: { password: 'hunter2' } } }, /credential/)
  await bad({ ...body, config: { kind: 'postgresql', host: 'db', user: 'u', credential: { env: 'DATABASE_URL' } } }, /LOOKOUT_SECRET_/)
  await bad({ ...body, config: { kind: 'postgresql', host: 'db', user: 'u', credential: { file: 'relative/path' } } }, /absolute/)
  await bad({ ...body, config: { kind: 'heartbeat', location: 'public' } }, /heartbeat/)
  await bad({ ...body, name: '' }, /name/)
  await bad({ ...body, name: 'x'.repeat(101) }, /name/)
  await bad({ ...body, id: crypto.randomUUID() }, /revision/)
  await bad({ ...body, resource_id: crypto.randomUUID() }, /resource not found/, 404)
})

t.test('a check is created, run, confirmed healthy, fails, opens one incident and recovers', async (t) => {
  const created = await lk.ownerReq('POST', '/v1/monitoring/checks', {
    resource_id: rid, name: 'tcp port', config: { kind: 'tcp', host: '127.0.0.1', port: target.port, interval_seconds: 1, timeout_seconds: 1 },
  })
  t.equal(created.status, 201)
  const c = created.body
  t.equal(c.kind, 'tcp')
  t.equal(c.revision, 1)
  t.equal(c.health, 'unknown')
  t.equal(c.required, true)
  t.equal(c.state, 'enabled')
  t.same(c.configuration, { host: '127.0.0.1', port: target.port, interval_seconds: 1, timeout_seconds: 1 })
  await waitFor('healthy', () => checkOf(c.id), (x) => x.health === 'healthy')
  await target.close()
  const down = await waitFor('unhealthy', () => checkOf(c.id), (x) => x.health === 'unhealthy')
  t.equal(down.last_result.status, 'down')
  t.equal(down.last_result.code, 'LOOKOUT_PROBE_REFUSED')
  t.ok(down.open_incident_id)
  const o = await overview()
  t.equal(o.health, 'unhealthy', 'the resource is unhealthy')
  t.equal(o.incidents[0].state, 'open')
  t.equal(o.transitions[0].to, 'unhealthy')
  await target.reopen()
  await waitFor('recovered', () => checkOf(c.id), (x) => x.health === 'healthy')
  const rows = await lk.lookout.db.query<{ type: string }>('SELECT type FROM monitor_outbox WHERE check_id = $1 ORDER BY id', [c.id])
  t.same(rows.rows.map((r) => r.type), ['incident.opened', 'incident.closed'], 'one outbox row on open, one on close')
  const after = await overview()
  t.equal(after.health, 'healthy')
  t.equal(after.incidents[0].state, 'closed')

  // Owner actions, each checked against the revision.
  const act = (action: string, revision: number, extra: Record<string, unknown> = {}) =>
    lk.ownerReq('POST', '/v1/monitoring/actions', { id: c.id, revision, action, ...extra })
  const paused = await act('pause', 1)
  t.equal(paused.status, 200)
  t.equal(paused.body.state, 'paused')
  t.equal(paused.body.revision, 2)
  const stale = await act('resume', 1)
  t.equal(stale.status, 409)
  t.equal(stale.body.error.code, 'LOOKOUT_MONITOR_REVISION_CONFLICT')
  const runPaused = await act('run', 2)
  t.equal(runPaused.status, 409)
  t.equal(runPaused.body.error.code, 'LOOKOUT_MONITOR_PAUSED')
  t.equal((await act('resume', 2)).body.state, 'enabled')
  t.equal((await act('maintenance', 3)).status, 400, 'maintenance needs minutes')
  t.equal((await act('run', 3, { minutes: 5 })).status, 400, 'minutes only with maintenance')
  t.equal((await act('maintenance', 3, { minutes: 0 })).status, 400)
  const maint = await act('maintenance', 3, { minutes: 30 })
  t.equal(maint.body.state, 'maintenance')
  t.ok(Date.parse(maint.body.maintenance_until) > Date.now() + 29 * 60_000)
  const ended = await act('end_maintenance', 4)
  t.equal(ended.body.state, 'enabled')
  t.equal(ended.body.maintenance_until, null)
  const run = await act('run', 5)
  t.equal(run.status, 200)
  t.equal(run.body.revision, 5, 'run does not bump the revision')
  t.equal((await act('run', 5)).status, 200)
  const missing = await lk.ownerReq('POST', '/v1/monitoring/actions', { id: crypto.randomUUID(), revision: 1, action: 'run' })
  t.equal(missing.status, 404)
  t.equal(missing.body.error.code, 'LOOKOUT_MONITOR_NOT_FOUND')

  // A revision-checked edit replaces name, required and config.
  const edit = await lk.ownerReq('POST', '/v1/monitoring/checks', {
    id: c.id, revision: 5, resource_id: rid, name: 'renamed', required: false, config: { kind: 'tcp', host: '127.0.0.1', port: target.port, interval_seconds: 60 },
  })
  t.equal(edit.status, 200)
  t.equal(edit.body.name, 'renamed')
  t.equal(edit.body.revision, 6)
  t.equal(edit.body.interval_seconds, 60)
  t.equal(edit.body.timeout_seconds, 10, 'the default timeout')
  const staleEdit = await lk.ownerReq('POST', '/v1/monitoring/checks', { id: c.id, revision: 5, resource_id: rid, name: 'x', config: { kind: 'tcp', host: 'h', port: 1 } })
  t.equal(staleEdit.status, 409)
  const elsewhere = await lk.ownerReq('POST', '/v1/monitoring/checks', { id: c.id, revision: 6, resource_id: otherRid, name: 'x', config: { kind: 'tcp', host: 'h', port: 1 } })
  t.equal(elsewhere.status, 404, 'a check is edited through its own resource')
})

t.test('credentials are references and never come back', async (t) => {
  const r = await lk.ownerReq('POST', '/v1/monitoring/checks', {
    resource_id: rid, name: 'db', config: { kind: 'postgresql', host: '127.0.0.1', port: 1, user: 'app', credential: { env: 'LOOKOUT_SECRET_APP_DB' } },
  })
  t.equal(r.status, 201)
  t.equal(r.body.has_credential, true)
  t.notMatch(JSON.stringify(r.body), /LOOKOUT_SECRET_APP_DB|"credential"/)
  t.notMatch(JSON.stringify(await overview()), /LOOKOUT_SECRET_APP_DB/)
})

t.test('reads need monitor:read and a grant for the resource', async (t) => {
  const noScope = await lk.token_(['logs:read'])
  t.equal((await lk.req('GET', `/v1/monitoring?resource_id=${rid}`, undefined, { authorization: `Bearer ${noScope}` })).status, 403)
  const other = await lk.token_(['monitor:read'], [otherRid])
  t.equal((await lk.req('GET', `/v1/monitoring?resource_id=${rid}`, undefined, { authorization: `Bearer ${other}` })).status, 403)
  const mine = await lk.token_(['monitor:read'], [rid])
  const ok = await lk.req('GET', `/v1/monitoring?resource_id=${rid}`, undefined, { authorization: `Bearer ${mine}` })
  t.equal(ok.status, 200)
  t.ok(Array.isArray(ok.body.checks) && ok.body.checks.length >= 2)
  t.ok(['healthy', 'unhealthy', 'unknown'].includes(ok.body.health))
  t.ok(Array.isArray(ok.body.incidents))
  t.ok(Array.isArray(ok.body.transitions))
  t.equal((await lk.req('GET', '/v1/monitoring')).status, 400, 'resource_id is required')
  t.equal((await lk.req('GET', '/v1/monitoring?resource_id=nope')).status, 400)
  t.equal((await lk.req('GET', `/v1/monitoring?resource_id=${crypto.randomUUID()}`)).status, 404)
})

t.test('heartbeats: scope monitor:heartbeat and an exact resource grant', async (t) => {
  const hb = await lk.ownerReq('POST', '/v1/monitoring/checks', { resource_id: rid, name: 'cron', config: { kind: 'heartbeat', interval_seconds: 60 } })
  t.equal(hb.status, 201)
  t.equal(hb.body.location, 'heartbeat')
  const tcp = (await overview()).checks.find((c: { kind: string }) => c.kind === 'tcp')
  const exact = await lk.token_(['monitor:heartbeat'], [rid])
  const beat = (token: string, body: unknown) => lk.req('POST', '/v1/heartbeat', body, { authorization: `Bearer ${token}` })
  const ok = await beat(exact, { resource_id: rid, check_id: hb.body.id })
  t.equal(ok.status, 200)
  t.equal(ok.body.check_id, hb.body.id)
  t.ok(Date.parse(ok.body.received_at) <= Date.now())
  t.equal((await checkOf(hb.body.id)).last_beat_at, ok.body.received_at)
  t.equal((await beat(lk.token, { resource_id: rid, check_id: hb.body.id })).status, 403, 'an all-resources token is not an exact grant')
  t.equal((await beat(await lk.token_(['monitor:read'], [rid]), { resource_id: rid, check_id: hb.body.id })).status, 403, 'needs the scope')
  t.equal((await beat(await lk.token_(['monitor:heartbeat'], [otherRid]), { resource_id: rid, check_id: hb.body.id })).status, 403)
  t.equal((await beat(exact, { resource_id: rid, check_id: tcp.id })).status, 404, 'only heartbeat checks take beats')
  t.equal((await beat(exact, { resource_id: rid, check_id: crypto.randomUUID() })).status, 404)
  const extra = await beat(exact, { resource_id: rid, check_id: hb.body.id, at: 'now' })
  t.equal(extra.status, 400)
  t.equal((await beat(exact, { resource_id: rid })).status, 400)
})
