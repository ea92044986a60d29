// The route-access table, derived from the rules the loopback listener's
// routes declare (config.access; desktop/route-access.ts): every route has a
// decision; every owner-only
// route refuses a token holding every scope (and the same grant acted with on
// the socket) with 403 and works for the owner on the socket; a route added
// without a decision is caught here and refused to grants at run time; the
// README's table is the code's table.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { ALL_SCOPES, SCOPES, createToken } from '../../workspace/index.ts'
import { OWNER_ONLY, accessTable, routeKey, undecidedRoutes } from '../../desktop/internal.ts'
import { buildApp, registeredRoutes } from '../../api/index.ts'
import { Client } from 'undici'
import { freePort, httpReq, startTestDesktop, type Res } from './desktop-helpers.ts'

const td = await startTestDesktop({ sizeCapEveryMs: 3_600_000 })
t.teardown(() => td.stop())
const rid = await td.resource('route-access')
const db = td.desktop.lookout.db
const port = await freePort()
const rev = (await td.owner('GET', '/v1/settings')).body.revision
t.equal((await td.owner('PATCH', '/v1/settings', { revision: rev, loopback_enabled: true, loopback_port: port })).status, 200)
const base = `http://127.0.0.1:${port}`
const everything = await createToken(db, { workspaceId: td.workspaceId, scopes: [...ALL_SCOPES], resources: 'all', name: 'every scope' })
const bearer = { authorization: `Bearer ${everything.token}` }
const ZERO = '00000000-0000-4000-8000-000000000000'

/** A concrete path for a route pattern: this workspace and resource, a zero uuid for other ids. */
function pathOf(url: string): string {
  return url.replace(':workspace_id', td.workspaceId).replace(':resource_id', rid).replace(/:[a-z_]+/g, ZERO).replace('*', 'x')
}

function bodyOf(method: string): unknown {
  return method === 'GET' || method === 'HEAD' || method === 'DELETE' ? undefined : {}
}

const routes = td.desktop.service.loopbackRoutes() ?? []
const ROUTE_ACCESS = accessTable(routes)
const accessOf = (method: string, url: string) => ROUTE_ACCESS.get(routeKey(method, url))

t.test('every route of the loopback listener has a decision in the table', async (t) => {
  t.ok(routes.length > 100, `the listener's route table was read (${routes.length} routes)`)
  t.same(undecidedRoutes(routes), [], 'no route without a decision')
  // Control: the check catches a route added without a decision.
  t.same(undecidedRoutes([...routes, { method: 'POST', url: '/v1/backups' }]), ['POST /v1/backups'], 'a new route without a decision is reported')
  t.equal(accessOf('HEAD', '/v1/settings'), OWNER_ONLY, 'HEAD follows GET')
})

const ownerOnly = routes.filter((r) => accessOf(r.method, r.url) === OWNER_ONLY)

t.test('owner-only routes: 403 to a token holding every scope, over HTTP and acted with on the socket; served to the owner', async (t) => {
  t.ok(ownerOnly.length >= 30, `${ownerOnly.length} owner-only routes`)
  const actAs = await createToken(db, { workspaceId: td.workspaceId, scopes: [...ALL_SCOPES], resources: 'all', name: 'every scope, acted with' })
  for (const r of ownerOnly) {
    const path = pathOf(r.url)
    const http = await httpReq(base, r.method, path, bodyOf(r.method), bearer)
    t.equal(http.status, 403, `HTTP ${r.method} ${path}: 403`)
    if (r.method !== 'HEAD') t.equal(http.body?.error?.code ?? http.body?.detail?.[0]?.type, 'LOOKOUT_FORBIDDEN', `${r.method} ${r.url}: forbidden`)
    const acted = await td.owner(r.method, path, bodyOf(r.method), { 'x-lookout-act-as-grant': actAs.id })
    t.equal(acted.status, 403, `act-as ${r.method} ${path}: 403`)
  }
  // Last, because the owner's calls change things (a restore clears webhooks, settings may move).
  for (const r of ownerOnly) {
    const path = pathOf(r.url)
    const own: Res = await td.owner(r.method, path, bodyOf(r.method))
    const code = own.body?.error?.code ?? own.body?.detail?.[0]?.type
    t.ok(own.status !== 401 && own.status !== 403 && code !== 'LOOKOUT_FORBIDDEN', `owner ${r.method} ${path}: served (${own.status} ${code ?? ''})`)
    // The one 5xx the contract names: a portal-backed call without a reachable portal (local-desktop-api "fails offline").
    const portalOffline = own.status === 503 && code === 'LOOKOUT_PORTAL_OFFLINE'
    t.ok(own.status < 500 || portalOffline, `owner ${r.method} ${path}: no 5xx (${own.status} ${code ?? ''})`)
  }
  // A desktop has no remote collectors: its owner is told so, not answered 500.
  for (const method of ['GET', 'HEAD']) {
    const c = await td.owner(method, '/v1/collector/checks')
    t.equal(c.status, 404, `owner ${method} /v1/collector/checks: 404`)
    if (method === 'GET') t.equal(c.body?.error?.code ?? c.body?.detail?.[0]?.type, 'LOOKOUT_MONITOR_NOT_A_COLLECTOR')
  }
  t.equal((await td.owner('GET', '/v1/settings')).status, 200, 'the owner reads settings')
  t.equal((await td.owner('GET', '/v1/webhooks')).status, 200, 'the owner lists webhooks')
  t.equal((await td.owner('GET', `/v1/workspaces/${td.workspaceId}/resources/${rid}/ssh-key`)).status, 404, 'the owner reads SSH key metadata (none yet)')
})

t.test('scoped routes: the table\'s scopes are required on top of the route\'s own', async (t) => {
  const noProject = await createToken(db, { workspaceId: td.workspaceId, scopes: ALL_SCOPES.filter((s) => !s.startsWith('project:')), resources: 'all', name: 'no project scopes' })
  const auth = { authorization: `Bearer ${noProject.token}` }
  // The repository view has no scope of its own (any token); the desktop table asks for project:read.
  const repo = await httpReq(base, 'GET', `/v1/workspaces/${td.workspaceId}/resources/${rid}/repository`, undefined, auth)
  t.equal(repo.status, 403, 'repository view without project:read')
  t.match(repo.body, { detail: [{ msg: /project:read/ }] })
  const withRead = await httpReq(base, 'GET', `/v1/workspaces/${td.workspaceId}/resources/${rid}/repository`, undefined, bearer)
  t.not(withRead.status, 403, `with project:read it passes the table (${withRead.status})`)
  t.equal((await httpReq(base, 'GET', '/v1/me', undefined, auth)).status, 200, 'a route open to any grant')
  t.equal((await httpReq(base, 'GET', '/v1/projects/items', undefined, auth)).status, 403, 'project listing needs project:read')
  t.equal((await httpReq(base, 'GET', '/v1/projects/items', undefined, bearer)).status, 200)
  for (const r of routes) {
    const a = accessOf(r.method, r.url)
    t.ok(a === OWNER_ONLY || Array.isArray(a), `${r.method} ${r.url}: decided`)
  }
  t.ok([...ROUTE_ACCESS.values()].every((a) => a === OWNER_ONLY || a.every((s) => (ALL_SCOPES as readonly string[]).includes(s))), 'only known scopes')
  t.equal(SCOPES.projectRead, 'project:read')
})

/** Status and (unless a stream) body of one request; an event stream is not waited for. */
async function answer(method: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const client = new Client(base, { headersTimeout: 20_000, bodyTimeout: 20_000 })
  try {
    const body = bodyOf(method)
    const res = await client.request({ method: method as 'GET', path, headers: body === undefined ? headers : { ...headers, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    if (String(res.headers['content-type']).startsWith('text/event-stream')) {
      res.body.on('error', () => undefined) // the abort below is ours
      res.body.destroy()
      return { status: res.statusCode, body: '' }
    }
    return { status: res.statusCode, body: await res.body.text() }
  } catch (err) {
    return { status: 0, body: `no answer: ${(err as Error).message}` }
  } finally {
    await client.destroy()
  }
}

t.test('every scoped route of the table: each of its scopes is required; with them it is served without a 5xx', async (t) => {
  const scoped = routes.filter((r) => { const a = accessOf(r.method, r.url); return Array.isArray(a) && a.length > 0 })
  t.ok(scoped.length >= 80, `${scoped.length} scoped routes walked`)
  const lacking = new Map<string, string>()
  const tokenLacking = async (scope: string): Promise<string> => {
    let tok = lacking.get(scope)
    if (tok === undefined) {
      tok = (await createToken(db, { workspaceId: td.workspaceId, scopes: ALL_SCOPES.filter((s) => s !== scope), resources: 'all', name: `all but ${scope}` })).token
      lacking.set(scope, tok)
    }
    return tok
  }
  // The served pass works on a resource of its own, so what it changes leaves the other tests alone.
  const spare = await td.resource('route-access-walk')
  for (const r of scoped) {
    const path = pathOf(r.url)
    for (const scope of accessOf(r.method, r.url) as readonly string[]) {
      const refused = await answer(r.method, path, { authorization: `Bearer ${await tokenLacking(scope)}` })
      t.equal(refused.status, 403, `${r.method} ${r.url} without ${scope}: 403`)
      if (r.method !== 'HEAD') t.match(refused.body, scope, `${r.method} ${r.url}: the refusal names ${scope}`)
    }
  }
  for (const r of routes.filter((x) => Array.isArray(accessOf(x.method, x.url)))) {
    const served = await answer(r.method, pathOf(r.url).replace(rid, spare), bearer)
    // A 403 of the route's own (a staff binding, say) is fine; the table's or the token's refusal is not.
    const refusal = served.status === 401 || (served.status === 403 && /lacks the|only available to the owner|no access decision/.test(served.body))
    t.ok(served.status !== 0 && !refusal, `${r.method} ${r.url} with every scope: passes the table (${served.status} ${served.body.slice(0, 120)})`)
    t.ok(served.status < 500, `${r.method} ${r.url} with every scope: no 5xx (${served.status} ${served.body.slice(0, 120)})`)
  }
})

t.test('a route added without a decision is refused to every grant at run time', async (t) => {
  const opts = td.desktop.lookout.appOptions
  if (opts === null) throw new Error('no api role')
  const app = await buildApp({ ...opts, loopback: true, otlpContract: 'desktop', metricsToken: undefined })
  app.get('/v1/backups', { config: { auth: { contract: 'desktop', scope: null } } }, async () => ({ ok: true }))
  await app.ready()
  t.teardown(() => app.close())
  t.same(undecidedRoutes(registeredRoutes(app)), ['GET /v1/backups'], 'the walk reports it')
  const r = await app.inject({ method: 'GET', url: '/v1/backups', headers: bearer })
  t.equal(r.statusCode, 403, 'refused to a token holding every scope')
  t.match(r.json(), { error: { code: 'LOOKOUT_FORBIDDEN', message: /no access decision/ } })
})

t.test('the README\'s route-access table is the code\'s table', async (t) => {
  const readme = readFileSync('desktop/README.md', 'utf8')
  const section = readme.slice(readme.indexOf('## Route access'))
  const rows = new Map<string, string>()
  for (const m of section.matchAll(/^\| (GET|POST|PUT|PATCH|DELETE) \| `([^`]+)` \| ([^|]+) \|/gm)) rows.set(`${m[1]} ${m[2]}`, (m[3] as string).trim())
  t.equal(rows.size, ROUTE_ACCESS.size, 'one README row per table row')
  for (const [key, access] of ROUTE_ACCESS) {
    const want = access === OWNER_ONLY ? 'owner-only' : access.length === 0 ? 'any grant' : access.map((s) => `\`${s}\``).join(', ')
    t.equal(rows.get(key), want, `${key}`)
  }
})
