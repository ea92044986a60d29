// Identity routes: health (public), me, workspaces, project-endpoint,
// api-entitlements and agent-context, with their scope checks.
import t from 'tap'
import { createToken, createWorkspace } from '../../../workspace/index.ts'
import { startTestLookout, tokenSecret, retryWhenShed } from '../../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
retryWhenShed(lk)
const P = `/v1/workspaces/${lk.workspaceId}`
const as = (token: string) => ({ authorization: `Bearer ${token}` })

t.test('health answers without a credential', async (t) => {
  const r = await lk.req('GET', '/v1/health', undefined, { authorization: '' })
  t.equal(r.status, 200)
  t.equal(r.body.status, 'ok')
  t.ok(r.headers.get('x-request-id'), 'every response carries a request id')
})

t.test('me: the credential, its workspace and staff binding; never the secret', async (t) => {
  const tok = await lk.token_(['logs:read', 'usage:read'], 'all', { staffId: 5 })
  const r = await lk.req('GET', '/v1/me', undefined, as(tok))
  t.equal(r.status, 200)
  t.match(r.body, {
    owner: false,
    credential: { kind: 'access', scopes: ['logs:read', 'usage:read'], resources: 'all', staff_id: 5 },
    workspace: { id: lk.workspaceId, name: 'test' },
    staff: null,
  })
  t.notOk(JSON.stringify(r.body).includes(tokenSecret(tok)), 'the token secret is not returned')
  await lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: 5, name: 'Eve', can_read_request_history: true })
  const s = await lk.req('GET', '/v1/me', undefined, as(tok))
  t.same(s.body.staff, { staff_id: 5, name: 'Eve', active: true, permissions: { manage_services: true, log_time: true, read_request_history: true } })
  t.equal((await lk.req('GET', '/v1/me', undefined, { authorization: '' })).status, 401)
  t.equal((await lk.req('GET', '/v1/me', undefined, as('lkt_0_x'))).status, 401)
  const rid = await lk.resource('me-sender')
  const sender = await lk.token_(['logs:write'], [rid], { kind: 'sender' })
  t.equal((await lk.req('GET', '/v1/me', undefined, as(sender))).status, 403, 'a sender token only ingests')
  const owner = await lk.ownerReq('GET', '/v1/me')
  t.equal(owner.status, 200)
  t.match(owner.body, { owner: true, credential: { id: null, kind: 'owner', resources: 'all' } })
})

t.test('workspaces: a token sees its own; the local owner sees all', async (t) => {
  const other = await createWorkspace(lk.lookout.db, 'second')
  const r = await lk.req('GET', '/v1/workspaces')
  t.equal(r.status, 200)
  t.same(r.body.items.map((w: { id: string }) => w.id), [lk.workspaceId])
  const foreign = (await createToken(lk.lookout.db, { workspaceId: other.id, scopes: ['logs:read'], resources: 'all' })).token
  t.same((await lk.req('GET', '/v1/workspaces', undefined, as(foreign))).body.items.map((w: { name: string }) => w.name), ['second'])
  t.equal((await lk.req('GET', '/v1/workspaces', undefined, { authorization: '' })).status, 401)
  const all = await lk.ownerReq('GET', '/v1/workspaces')
  t.ok(all.body.items.length >= 2)
  t.ok(all.body.items.some((w: { id: string }) => w.id === other.id))
})

t.test('project-endpoint: project:read; resolves, never proxies', async (t) => {
  const r = await lk.req('GET', `${P}/project-endpoint`)
  t.equal(r.status, 200)
  t.match(r.body, {
    workspace_id: lk.workspaceId, proxied: false, storage: { engine: 'postgresql', embedded: true },
    api: { base_url: `${lk.url}${P}`, routes: { tasks: `${lk.url}${P}/tasks`, boards: `${lk.url}${P}/project/boards` } },
    tools: { transport: 'stdio', command: ['lookout', 'mcp'] },
  })
  const no = await lk.token_(['logs:read'])
  const f = await lk.req('GET', `${P}/project-endpoint`, undefined, as(no))
  t.equal(f.status, 403)
  t.match(f.body.detail[0].msg, /project:read/)
  const other = await createWorkspace(lk.lookout.db, 'third')
  t.equal((await lk.req('GET', `/v1/workspaces/${other.id}/project-endpoint`)).status, 403, 'another workspace')
  t.equal((await lk.req('GET', '/v1/workspaces/nope/project-endpoint')).status, 403, 'not this token\'s workspace')
})

t.test('api-entitlements: usage:read; version, terms and limits', async (t) => {
  const r = await lk.req('GET', `${P}/api-entitlements`)
  t.equal(r.status, 200)
  t.match(r.body, {
    workspace_id: lk.workspaceId, api_version: '1.9.0', terms: { plan: 'self-hosted', accepted: true },
    limits: { list_page_size: { max: 100, default: 50 }, log_batch_events: { max: 1000 }, time_entry_minutes: { max: 6_000_000 } },
  })
  const no = await lk.token_(['project:read'])
  t.equal((await lk.req('GET', `${P}/api-entitlements`, undefined, as(no))).status, 403)
})

t.test('agent-context: workspace, credential, endpoints with what this token may call', async (t) => {
  const tok = await lk.token_(['logs:read', 'services:read'])
  const r = await lk.req('GET', `${P}/agent-context`, undefined, as(tok))
  t.equal(r.status, 200)
  t.match(r.body, {
    workspace: { id: lk.workspaceId }, credential: { scopes: ['logs:read', 'services:read'] },
    api: { base_url: lk.url, workspace_url: `${lk.url}${P}`, api_version: '1.9.0', request_id_header: 'x-request-id' },
    project_endpoint: `${lk.url}${P}/project-endpoint`, staff: null,
  })
  const find = (method: string, suffix: string) => r.body.endpoints.find((e: { method: string; path: string }) => e.method === method && e.path.endsWith(suffix))
  t.match(find('GET', '/services'), { scope: 'services:read', allowed: true, path: `${P}/services` })
  t.match(find('POST', '/services'), { scope: 'services:write', allowed: false })
  t.match(find('PUT', '/ssh-key'), { scope: 'resources:write', allowed: false })
  t.match(find('GET', '/agent-context'), { scope: null, allowed: true })
  t.notOk(r.body.endpoints.some((e: { path: string }) => e.path.startsWith('P/')))
  t.equal((await lk.req('GET', `${P}/agent-context`, undefined, { authorization: '' })).status, 401)
})
