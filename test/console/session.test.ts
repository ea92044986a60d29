// Console sessions over plain HTTP (no browser): sign-in by code and by token,
// what each refuses, the CSRF rule, revocation and sign-out, the hashed store,
// and the console-facing extension routes (pipeline, check results and actions).
import t from 'tap'
import { createHash } from 'node:crypto'
import { startTestLookout } from '../helpers/lookout.ts'
import { ConsoleSessions, CODE_TTL_MS } from '../../console/index.ts'
import { revokeToken } from '../../workspace/index.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const ws = lk.workspaceId
const same = { 'content-type': 'application/json', 'x-lookout-csrf': '1' }

async function signIn(body: object, headers: Record<string, string> = same) {
  const r = await fetch(`${lk.url}/console/session`, { method: 'POST', headers, body: JSON.stringify(body) })
  const cookie = r.headers.get('set-cookie') ?? ''
  return { status: r.status, body: await r.json() as any, cookie, session: /lookout_session=([^;]*)/.exec(cookie)?.[1] ?? '' }
}
const get = (path: string, session: string) => fetch(lk.url + path, { headers: { cookie: `lookout_session=${session}` } })

t.test('a pasted access token opens a session; the cookie flags; only the hash is stored', async (t) => {
  const s = await signIn({ token: lk.token })
  t.equal(s.status, 200)
  t.match(s.cookie, /HttpOnly/)
  t.match(s.cookie, /SameSite=Strict/)
  t.match(s.cookie, /Path=\//)
  t.notMatch(s.cookie, /Secure/, 'plain http: not Secure')
  t.notMatch(JSON.stringify(s.body), /lkt_|lookout_session/, 'the body holds no secret')
  const me = await get('/v1/me', s.session)
  t.equal(me.status, 200)
  t.equal(((await me.json()) as any).credential.name, 'test', 'acts as the pasted token')
  const rows = (await lk.lookout.db.query<{ id_hash: Uint8Array }>('SELECT id_hash FROM console_sessions')).rows
  const hash = createHash('sha256').update(s.session).digest()
  t.ok(rows.some((r) => Buffer.from(r.id_hash).equals(hash)), 'the stored key is the SHA-256 of the id')
  t.notOk(JSON.stringify(rows).includes(s.session), 'the id itself is not stored')
  t.same(await (await get('/console/session', s.session)).json(), { signed_in: true, workspace_id: ws })
  t.same(await (await get('/console/session', 'x'.repeat(43))).json(), { signed_in: false })
})

t.test('what sign-in refuses', async (t) => {
  t.equal((await signIn({ token: 'lkt_nope' })).status, 401)
  t.match(JSON.stringify((await signIn({ token: 'lkt_nope' })).body), /LOOKOUT_CONSOLE_SIGNIN_INVALID/)
  const rid = await lk.resource()
  const sender = await lk.token_(['logs:write'], [rid], { kind: 'sender' })
  t.equal((await signIn({ token: sender })).status, 401, 'a sender token cannot sign in')
  t.equal((await signIn({ code: 'A'.repeat(43) })).status, 401, 'an unknown code')
  t.equal((await signIn({ token: lk.token }, { 'content-type': 'application/json' })).status, 403, 'no same-origin header')
  t.equal((await signIn({ token: lk.token, code: 'x' })).status, 422, 'one of code or token')
  t.equal((await signIn({ token: lk.token, extra: 1 })).status, 422)
})

t.test('a code signs in once and expires', async (t) => {
  const link = (await lk.ownerReq('POST', '/admin/console/link', {})).body
  t.equal(link.workspace_id, ws, 'the only workspace')
  const code = /#signin=(.+)$/.exec(link.url)![1]!
  const first = await signIn({ code })
  t.equal(first.status, 200)
  t.equal((await signIn({ code })).status, 401, 'used')
  const sessions = new ConsoleSessions(lk.lookout.db, () => Date.now() - CODE_TTL_MS - 1000)
  const old = await sessions.createCode(link.token_id)
  t.equal((await signIn({ code: old })).status, 401, 'expired')
  const limited = (await lk.ownerReq('POST', '/admin/console/link', { scopes: ['logs:read'], resources: [crypto.randomUUID()] })).body
  const s = await signIn({ code: /#signin=(.+)$/.exec(limited.url)![1]! })
  const me = (await (await get('/v1/me', s.session)).json()) as any
  t.same(me.credential.scopes, ['logs:read'], 'the link can be narrowed')
})

t.test('changes need the header and this origin; reads need only the cookie', async (t) => {
  const s = await signIn({ token: lk.token })
  const body = JSON.stringify({ external_id: `c-${Date.now()}`, name: 'via console' })
  const P = `${lk.url}/v1/workspaces/${ws}/resources`
  const post = (h: Record<string, string>) => fetch(P, { method: 'POST', headers: { cookie: `lookout_session=${s.session}`, 'content-type': 'application/json', ...h }, body })
  t.equal((await post({})).status, 403)
  t.equal((await post({ 'x-lookout-csrf': '1', 'sec-fetch-site': 'cross-site' })).status, 403)
  t.equal((await post({ 'x-lookout-csrf': '1', origin: 'http://127.0.0.1:1' })).status, 403)
  t.equal((await post({ 'x-lookout-csrf': '1', origin: lk.url })).status, 201, 'same origin')
  t.equal((await get(`/v1/workspaces/${ws}/resources`, s.session)).status, 200)
  const bearerWins = await fetch(P, { method: 'POST', headers: { authorization: `Bearer ${lk.token}`, cookie: `lookout_session=${s.session}`, 'content-type': 'application/json' }, body: JSON.stringify({ external_id: `d-${Date.now()}`, name: 'api' }) })
  t.equal(bearerWins.status, 201, 'a bearer request is judged by its token, as before')
})

t.test('revoking the token ends its sessions on the next request; sign out ends one', async (t) => {
  const token = await lk.token_(['logs:read'])
  const s = await signIn({ token })
  t.equal((await get('/v1/me', s.session)).status, 200)
  const me = (await lk.req('GET', '/v1/me', undefined, { authorization: `Bearer ${token}` })).body
  await revokeToken(lk.lookout.db, me.credential.id)
  t.same(await (await get('/console/session', s.session)).json(), { signed_in: false }, 'a revoked token\'s session is not signed in')
  const after = await get('/v1/me', s.session)
  t.equal(after.status, 401)
  t.match(JSON.stringify(await after.json()), /LOOKOUT_CONSOLE_SESSION_INVALID/)
  t.equal((await lk.lookout.db.query('SELECT 1 FROM console_sessions WHERE token_id = $1', [me.credential.id])).rows.length, 0, 'its sessions are gone')
  const s2 = await signIn({ token: lk.token })
  const out = await fetch(`${lk.url}/console/signout`, { method: 'POST', headers: { cookie: `lookout_session=${s2.session}`, 'x-lookout-csrf': '1' } })
  t.equal(out.status, 200)
  t.match(out.headers.get('set-cookie') ?? '', /Max-Age=0/)
  t.equal((await get('/v1/me', s2.session)).status, 401)
})

t.test('GET /v1/pipeline: process samples for a token of every resource', async (t) => {
  const r = await lk.req('GET', '/v1/pipeline')
  t.equal(r.status, 200)
  t.equal(r.body.available, true)
  t.equal(r.body.interval_seconds, 10)
  t.ok(Array.isArray(r.body.samples))
  // A sample is taken at start and every 10 s; the first with rates comes from the second.
  let s = r.body.samples
  for (let i = 0; i < 30 && s.length === 0; i++) {
    await new Promise((res) => setTimeout(res, 1000))
    s = (await lk.req('GET', '/v1/pipeline')).body.samples
  }
  t.ok(s.length > 0, 'a sample within 30 s')
  t.match(s[0], { at: Number, accepted_per_s: Number, stored_per_s: Number, loader_lag_s: Number, refused_per_s: Object })
  const limited = await lk.token_(['logs:read'], [await lk.resource()])
  t.equal((await lk.req('GET', '/v1/pipeline', undefined, { authorization: `Bearer ${limited}` })).status, 403)
  t.equal((await lk.req('GET', '/v1/pipeline?x=1')).status, 422)
})

t.test('check results and actions (extensions beside the monitoring routes)', async (t) => {
  const rid = await lk.resource()
  const P = `/v1/workspaces/${ws}/resources/${rid}/monitoring`
  const c = (await lk.req('POST', P, { name: 'port 9', kind: 'tcp', configuration: { host: '127.0.0.1', port: 9, interval_seconds: 300 } })).body
  const results = await lk.req('GET', `${P}/results?check_id=${c.id}&limit=500`)
  t.equal(results.status, 200)
  t.equal((await lk.req('GET', `${P}/results?check_id=${c.id}&limit=501`)).status, 422, 'limit 501')
  t.equal((await lk.req('GET', `${P}/results`)).status, 422, 'check_id required')
  const paused = await lk.req('POST', `${P}/actions`, { id: c.id, revision: c.revision, action: 'pause' })
  t.equal(paused.status, 200)
  t.equal(paused.body.state, 'paused')
  const resumed = await lk.req('POST', `${P}/actions`, { id: c.id, revision: paused.body.revision, action: 'resume' })
  t.equal(resumed.body.enabled, true)
  t.equal((await lk.req('POST', `${P}/actions`, { id: c.id, revision: resumed.body.revision, action: 'run' })).status, 200)
  t.equal((await lk.req('POST', `${P}/actions`, { id: c.id, revision: resumed.body.revision, action: 'explode' })).status, 422)
  const elsewhere = await lk.resource()
  t.equal((await lk.req('POST', `/v1/workspaces/${ws}/resources/${elsewhere}/monitoring/actions`, { id: c.id, revision: resumed.body.revision, action: 'run' })).status, 404, 'a check of another resource')
  const reader = await lk.token_(['monitor:read'], [rid])
  t.equal((await lk.req('POST', `${P}/actions`, { id: c.id, revision: resumed.body.revision, action: 'run' }, { authorization: `Bearer ${reader}` })).status, 403, 'needs resources:write')
  t.equal((await lk.req('GET', `${P}/results?check_id=${c.id}`, undefined, { authorization: `Bearer ${reader}` })).status, 200)
})
