// Resources: registration (idempotent by external_id), listing with cursor,
// limit and external_id, reads, edits (external_id immutable, retire keeps the
// record and its logs), and the resource ↔ service association.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { createToken, createWorkspace } from '../../../workspace/index.ts'
import { startTestLookout, retryWhenShed } from '../../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
retryWhenShed(lk)
const P = `/v1/workspaces/${lk.workspaceId}`
const as = (token: string) => ({ authorization: `Bearer ${token}` })
const reg = (body: Record<string, unknown>, headers?: Record<string, string>) => lk.req('POST', `${P}/resources`, body, headers)

t.test('register: 201, identical 200, different 409', async (t) => {
  const body = {
    external_id: 'srv:web-01@eu/a+b_c.d-e', name: 'Web 01', kind: 'server', provider: 'hetzner', environment: 'prod',
    details: { host: 'web-01.example.net', service_ports: '22, 443', database_tls: 'required' }, tags: ['web', 'eu'],
  }
  const r = await reg(body)
  t.equal(r.status, 201)
  t.match(r.body, { ...body, status: 'active', sticker: 'auto', description: '', public_url: '', revision: 1, service_ids: [], workspace_id: lk.workspaceId })
  const same = await reg(body)
  t.equal(same.status, 200)
  t.same(same.body, r.body)
  const other = await reg({ ...body, name: 'Web 1' })
  t.equal(other.status, 409)
  t.equal(other.body.detail[0].type, 'LOOKOUT_CONFLICT')
  const minimal = await reg({ external_id: 'minimal', name: 'M' })
  t.match(minimal.body, { kind: 'other', status: 'active', provider: '', environment: '', details: {}, tags: [], sticker: 'auto' })
  t.equal((await reg({ external_id: 'minimal', name: 'M', kind: 'other', tags: [] })).status, 200, 'defaults spelled out are identical')
})

t.test('register: scope and all-resource access', async (t) => {
  const noWrite = await lk.token_(['services:read'])
  const r = await reg({ external_id: 'x1', name: 'x' }, as(noWrite))
  t.equal(r.status, 403)
  t.match(r.body.detail[0].msg, /resources:write/)
  const rid = await lk.resource('granted-one')
  const scoped = await lk.token_(['resources:write'], [rid])
  const s = await reg({ external_id: 'x2', name: 'x' }, as(scoped))
  t.equal(s.status, 403)
  t.match(s.body.detail[0].msg, /all-resource access/)
  t.equal((await reg({ external_id: 'x3', name: 'x' }, { authorization: '' })).status, 401)
  t.equal((await reg({ external_id: 'x3', name: 'x' }, { authorization: 'Bearer lkt_nope' })).status, 401)
})

t.test('ResourceCreate validation at its edges', async (t) => {
  const bad = async (body: Record<string, unknown>, loc: (string | number)[], type: string) => {
    const r = await reg({ external_id: `v-${randomUUID()}`, name: 'n', ...body })
    t.equal(r.status, 422, JSON.stringify(body).slice(0, 80))
    t.same(r.body.detail[0].loc, loc)
    t.equal(r.body.detail[0].type, type)
  }
  await bad({ external_id: 'has space' }, ['body', 'external_id'], 'string_pattern_mismatch')
  await bad({ external_id: 'ü' }, ['body', 'external_id'], 'string_pattern_mismatch')
  await bad({ external_id: '' }, ['body', 'external_id'], 'string_too_short')
  await bad({ external_id: 'e'.repeat(201) }, ['body', 'external_id'], 'string_too_long')
  t.equal((await reg({ external_id: 'e'.repeat(200), name: 'n' })).status, 201, 'external_id of 200 accepted')
  await bad({ name: 'n'.repeat(161) }, ['body', 'name'], 'string_too_long')
  t.equal((await reg({ external_id: 'name-160', name: 'n'.repeat(160) })).status, 201)
  await bad({ kind: 'vm' }, ['body', 'kind'], 'enum')
  await bad({ status: 'deleted' }, ['body', 'status'], 'enum')
  await bad({ sticker: 'cat' }, ['body', 'sticker'], 'enum')
  await bad({ provider: 'p'.repeat(121) }, ['body', 'provider'], 'string_too_long')
  await bad({ environment: 'e'.repeat(81) }, ['body', 'environment'], 'string_too_long')
  await bad({ description: 'd'.repeat(12001) }, ['body', 'description'], 'string_too_long')
  await bad({ public_url: 'u'.repeat(201) }, ['body', 'public_url'], 'string_too_long')
  await bad({ tags: Array.from({ length: 13 }, (_, i) => `t${i}`) }, ['body', 'tags'], 'too_long')
  await bad({ tags: ['t'.repeat(41)] }, ['body', 'tags', 0], 'string_too_long')
  await bad({ tags: [''] }, ['body', 'tags', 0], 'string_too_short')
  const d31 = Object.fromEntries(Array.from({ length: 31 }, (_, i) => [`k${i}`, 'v']))
  await bad({ details: d31 }, ['body', 'details'], 'too_long')
  await bad({ details: { k: 'v'.repeat(2001) } }, ['body', 'details', 'k'], 'string_too_long')
  await bad({ details: { k: 1 } }, ['body', 'details', 'k'], 'string_type')
  await bad({ details: { service_ports: '22,http' } }, ['body', 'details', 'service_ports'], 'value_error')
  await bad({ details: { database_port: '70000' } }, ['body', 'details', 'database_port'], 'value_error')
  await bad({ details: { database_tls: 'yes' } }, ['body', 'details', 'database_tls'], 'value_error')
  await bad({ details: { db_password: 'hunter2' } }, ['body', 'details', 'db_password'], 'value_error')
  const longKey = await reg({ external_id: 'long-key', name: 'n', details: { ['k'.repeat(121)]: 'v' } })
  t.equal(longKey.status, 422, 'detail key over 120 characters')
  await bad({ owner: 'me' }, ['body', 'owner'], 'extra_forbidden')
  const edge = await reg({
    external_id: 'edges', name: 'n', tags: Array.from({ length: 12 }, () => 't'.repeat(40)),
    details: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`${'k'.repeat(110)}${i}`, 'v'.repeat(2000)])),
    provider: 'p'.repeat(120), environment: 'e'.repeat(80), description: 'd'.repeat(12000), public_url: 'u'.repeat(200),
  })
  t.equal(edge.status, 201, 'every bound at its maximum accepted')
  const secretEcho = await reg({ external_id: 'echo', name: 'n', details: { api_token: 'tok-123-secret' } })
  t.notOk(JSON.stringify(secretEcho.body).includes('tok-123-secret'), 'a credential-looking detail is not echoed')
})

t.test('list: grant, external_id, limit edges, cursor paging, tampering', async (t) => {
  const all = await lk.req('GET', `${P}/resources?limit=100`)
  t.equal(all.status, 200)
  const n = all.body.items.length as number
  t.ok(n >= 5)
  const seen: string[] = []
  let cursor: string | null = null
  do {
    const page: { body: any } = await lk.req('GET', `${P}/resources?limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    t.ok(page.body.items.length <= 2)
    seen.push(...page.body.items.map((r: { id: string }) => r.id))
    cursor = page.body.next_cursor
  } while (cursor !== null)
  t.same(seen, all.body.items.map((r: { id: string }) => r.id), 'pages add up to the whole list, in order')
  const one = await lk.req('GET', `${P}/resources?external_id=${encodeURIComponent('srv:web-01@eu/a+b_c.d-e')}`)
  t.equal(one.body.items.length, 1)
  t.equal(one.body.items[0].name, 'Web 01')
  t.equal((await lk.req('GET', `${P}/resources?external_id=none-such`)).body.items.length, 0)
  t.equal((await lk.req('GET', `${P}/resources?external_id=bad%20id`)).status, 422)
  t.equal((await lk.req('GET', `${P}/resources?external_id=${'e'.repeat(201)}`)).status, 422)
  t.equal((await lk.req('GET', `${P}/resources?limit=0`)).status, 422)
  t.equal((await lk.req('GET', `${P}/resources?limit=101`)).status, 422)
  t.equal((await lk.req('GET', `${P}/resources?limit=1`)).body.items.length, 1)
  const def = await lk.req('GET', `${P}/resources`)
  t.equal(def.body.items.length, Math.min(50, n), 'default limit 50')
  const c = (await lk.req('GET', `${P}/resources?limit=1`)).body.next_cursor as string
  const forged = await lk.req('GET', `${P}/resources?cursor=${encodeURIComponent(c.replace(/^./, (x) => (x === 'W' ? 'X' : 'W')))}`)
  t.equal(forged.status, 422)
  t.same(forged.body.detail[0].loc, ['query', 'cursor'])
  const rid = await lk.resource('only-this')
  const scoped = await lk.token_(['logs:read'], [rid])
  const mine = await lk.req('GET', `${P}/resources`, undefined, as(scoped))
  t.same(mine.body.items.map((r: { id: string }) => r.id), [rid], 'a resource grant lists only its resources')
  const otherWs = await createWorkspace(lk.lookout.db, 'other')
  const foreign = (await createToken(lk.lookout.db, { workspaceId: otherWs.id, scopes: ['resources:write'], resources: 'all' })).token
  const f = await lk.req('GET', `${P}/resources`, undefined, as(foreign))
  t.equal(f.status, 403, 'another workspace\'s token')
})

t.test('read one: 404, grant, malformed id', async (t) => {
  const rid = await lk.resource('read-one')
  t.equal((await lk.req('GET', `${P}/resources/${rid}`)).body.external_id, 'read-one')
  t.equal((await lk.req('GET', `${P}/resources/${randomUUID()}`)).status, 404)
  t.equal((await lk.req('GET', `${P}/resources/nope`)).status, 422)
  const other = await lk.resource('read-two')
  const scoped = await lk.token_(['logs:read'], [other])
  t.equal((await lk.req('GET', `${P}/resources/${rid}`, undefined, as(scoped))).status, 403)
})

t.test('edit: external_id is immutable, null keeps, revision counts, retire keeps record and logs', async (t) => {
  const rid = (await reg({ external_id: 'to-retire', name: 'Old', tags: ['a'], details: { host: 'h1' } })).body.id as string
  const ext = await lk.req('PATCH', `${P}/resources/${rid}`, { external_id: 'renamed' })
  t.equal(ext.status, 422)
  t.same(ext.body.detail[0].loc, ['body', 'external_id'])
  t.equal(ext.body.detail[0].type, 'extra_forbidden')
  const e1 = await lk.req('PATCH', `${P}/resources/${rid}`, { name: 'New', tags: null, details: { host: 'h2', database_port: '5432' } })
  t.equal(e1.status, 200)
  t.match(e1.body, { name: 'New', tags: ['a'], details: { host: 'h2', database_port: '5432' }, revision: 2, external_id: 'to-retire' })
  const same = await lk.req('PATCH', `${P}/resources/${rid}`, {})
  t.equal(same.body.revision, 2, 'an empty edit changes nothing')
  t.equal((await lk.req('PATCH', `${P}/resources/${rid}`, { name: '' })).status, 422)
  t.equal((await lk.req('PATCH', `${P}/resources/${rid}`, { kind: 'vm' })).status, 422)
  t.equal((await lk.req('PATCH', `${P}/resources/${rid}`, { details: { database_tls: 'maybe' } })).status, 422)
  t.equal((await lk.req('PATCH', `${P}/resources/${randomUUID()}`, { name: 'x' })).status, 404)
  const other = await lk.resource('edit-other')
  const scoped = await lk.token_(['resources:write'], [other])
  t.equal((await lk.req('PATCH', `${P}/resources/${rid}`, { name: 'x' }, as(scoped))).status, 403, 'resources:write for another resource')
  t.equal((await lk.req('PATCH', `${P}/resources/${other}`, { name: 'mine' }, as(scoped))).status, 200, 'resources:write for this resource')
  const reader = await lk.token_(['logs:read'])
  t.equal((await lk.req('PATCH', `${P}/resources/${rid}`, { name: 'x' }, as(reader))).status, 403)
  // Logs sent before retiring stay.
  t.equal((await lk.req('POST', `${P}/resources/${rid}/logs`, { events: [{ message: 'before retire' }] })).status, 200)
  t.equal((await lk.waitRows(rid, 1)).length, 1)
  const retired = await lk.req('PATCH', `${P}/resources/${rid}`, { status: 'retired' })
  t.equal(retired.status, 200)
  t.equal(retired.body.status, 'retired')
  t.equal((await lk.req('GET', `${P}/resources/${rid}`)).body.status, 'retired', 'the record is kept')
  const rows = await lk.rows(rid)
  t.equal(rows.length, 1)
  t.equal(rows[0]?.message, 'before retire', 'its logs are kept')
  t.equal((await lk.req('PATCH', `${P}/resources/${rid}`, { status: 'active' })).body.status, 'active', 'a retired resource can come back')
})

t.test('association with a service: idempotent, keeps others, scopes and grants', async (t) => {
  await lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: 1 })
  const svc = async (name: string) => (await lk.req('POST', `${P}/services`, { idempotency_key: randomUUID(), name })).body.id as string
  const s1 = await svc('Care')
  const s2 = await svc('Hosting')
  const rid = await lk.resource('associated')
  const put = (r: string, s: string, h?: Record<string, string>) => lk.req('PUT', `${P}/resources/${r}/services/${s}`, undefined, h)
  const a = await put(rid, s1)
  t.equal(a.status, 200)
  t.same(a.body.service_ids, [s1])
  const again = await put(rid, s1)
  t.equal(again.status, 200)
  t.same(again.body.service_ids, [s1], 'repeating it adds nothing')
  t.same((await put(rid, s2)).body.service_ids, [s1, s2], 'other associations are kept')
  t.same((await lk.req('GET', `${P}/resources/${rid}`)).body.service_ids, [s1, s2])
  t.same((await lk.req('GET', `${P}/services/${s1}`)).body.resource_ids, [rid])
  const missing = await put(rid, randomUUID())
  t.equal(missing.status, 404)
  t.match(missing.body.detail[0].msg, /service/)
  t.equal((await put(randomUUID(), s1)).status, 404)
  t.equal((await put(rid, 'nope')).status, 422)
  const onlyWrite = await lk.token_(['resources:write'])
  const r1 = await put(rid, s1, as(onlyWrite))
  t.equal(r1.status, 403)
  t.match(r1.body.detail[0].msg, /services:read/)
  const onlyRead = await lk.token_(['services:read'])
  t.equal((await put(rid, s1, as(onlyRead))).status, 403)
  const other = await lk.resource('assoc-other')
  const scoped = await lk.token_(['resources:write', 'services:read'], [other])
  t.equal((await put(rid, s1, as(scoped))).status, 403, 'needs access to the resource')
  t.equal((await put(other, s1, as(scoped))).status, 200)
  // A service of another workspace is not found here.
  const otherWs = await createWorkspace(lk.lookout.db, 'elsewhere')
  const foreign = await lk.lookout.db.query<{ id: string }>(
    `INSERT INTO services (id, workspace_id, name, kind, lifecycle, modules, description, public_url, active)
     VALUES ($1, $2, 'theirs', 'other', 'active', '{}', '', '', true) RETURNING id`, [randomUUID(), otherWs.id])
  t.equal((await put(rid, foreign.rows[0]?.id as string)).status, 404)
  const list = await lk.req('GET', `${P}/resources?external_id=associated`)
  t.same(list.body.items[0].service_ids, [s1, s2], 'listing shows associations')
})
