// Services: staff-only writes with live staff permissions, idempotency keys,
// expected_updated_at concurrency, listing and scope checks.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startTestLookout, retryWhenShed } from '../../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
retryWhenShed(lk)
const P = `/v1/workspaces/${lk.workspaceId}`
const setStaff = (staffId: number, patch: Record<string, unknown> = {}) =>
  lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: staffId, ...patch })
const as = (token: string) => ({ authorization: `Bearer ${token}` })
const create = (body: Record<string, unknown>, headers?: Record<string, string>) =>
  lk.req('POST', `${P}/services`, { idempotency_key: randomUUID(), name: 'Website care', ...body }, headers)

t.test('creating a service needs a token bound to an active staff member', async (t) => {
  // The all-scopes token is bound to staff id 1, which has no staff record yet.
  const noRecord = await create({})
  t.equal(noRecord.status, 403)
  t.equal(noRecord.body.detail[0].type, 'LOOKOUT_STAFF_REQUIRED')
  t.match(noRecord.body.detail[0].msg, /staff member 1 is not an active staff member/)
  const unbound = await lk.token_(['services:write', 'services:read'])
  const r = await create({}, as(unbound))
  t.equal(r.status, 403)
  t.equal(r.body.detail[0].type, 'LOOKOUT_STAFF_REQUIRED')
  t.match(r.body.detail[0].msg, /bound to a staff member/)
  const set = await setStaff(1, { name: 'Ada' })
  t.equal(set.status, 200)
  t.same(set.body, { ...set.body, staff_id: 1, name: 'Ada', active: true, can_manage_services: true, can_log_time: true, can_read_request_history: false })
  t.equal((await create({})).status, 201)
})

t.test('create: defaults, identical replay 200 with the same body, other content 409', async (t) => {
  const key = randomUUID()
  const body = { idempotency_key: key, name: 'Hosting', kind: 'cloud', modules: ['operations', 'support'], owner_id: 7 }
  const first = await lk.req('POST', `${P}/services`, body)
  t.equal(first.status, 201)
  t.match(first.body, {
    name: 'Hosting', kind: 'cloud', lifecycle: 'active', owner_id: 7, modules: ['operations', 'support'],
    description: '', public_url: '', active: true, resource_ids: [], created_by_staff_id: 1, revision: 1, workspace_id: lk.workspaceId,
  })
  t.match(first.body.updated_at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z$/)
  const replay = await lk.req('POST', `${P}/services`, body)
  t.equal(replay.status, 200)
  t.same(replay.body, first.body)
  const other = await lk.req('POST', `${P}/services`, { ...body, name: 'Hosting 2' })
  t.equal(other.status, 409)
  t.equal(other.body.detail[0].type, 'LOOKOUT_CONFLICT')
  const list = await lk.req('GET', `${P}/services?q=Hosting`)
  t.equal(list.body.items.length, 1, 'the replay created nothing')
  // Defaults spelled out are the same operation as defaults left out.
  const k2 = randomUUID()
  t.equal((await lk.req('POST', `${P}/services`, { idempotency_key: k2, name: 'Plain' })).status, 201)
  t.equal((await lk.req('POST', `${P}/services`, { idempotency_key: k2, name: 'Plain', kind: 'other', description: '' })).status, 200)
})

t.test('ServiceCreate validation at its edges', async (t) => {
  const bad = async (body: Record<string, unknown>, loc: (string | number)[], type: string) => {
    const r = await lk.req('POST', `${P}/services`, { idempotency_key: randomUUID(), name: 'x', ...body })
    t.equal(r.status, 422, JSON.stringify(body).slice(0, 80))
    t.same(r.body.detail[0].loc, loc)
    t.equal(r.body.detail[0].type, type)
  }
  t.equal((await create({ name: 'n'.repeat(160) })).status, 201, 'name of 160 accepted')
  await bad({ name: 'n'.repeat(161) }, ['body', 'name'], 'string_too_long')
  await bad({ name: '' }, ['body', 'name'], 'string_too_short')
  await bad({ kind: 'hosting' }, ['body', 'kind'], 'enum')
  await bad({ lifecycle: 'dead' }, ['body', 'lifecycle'], 'enum')
  await bad({ owner_id: 0 }, ['body', 'owner_id'], 'greater_than')
  await bad({ modules: ['billing'] }, ['body', 'modules', 0], 'enum')
  await bad({ description: 'd'.repeat(12001) }, ['body', 'description'], 'string_too_long')
  await bad({ public_url: 'u'.repeat(201) }, ['body', 'public_url'], 'string_too_long')
  await bad({ expected_updated_at: 'x' }, ['body', 'expected_updated_at'], 'extra_forbidden')
  await bad({ idempotency_key: 'nope' }, ['body', 'idempotency_key'], 'uuid_parsing')
  const missing = await lk.req('POST', `${P}/services`, { name: 'x' })
  t.same(missing.body.detail[0], { loc: ['body', 'idempotency_key'], msg: 'Field required', type: 'missing' })
  t.equal((await create({ description: 'd'.repeat(12000), public_url: 'u'.repeat(200), lifecycle: null, owner_id: null, modules: null, active: null })).status, 201)
})

t.test('read and list: scopes, 404, paging at the limit edges, tampered cursors', async (t) => {
  const made = await create({ name: 'Readable' })
  const got = await lk.req('GET', `${P}/services/${made.body.id}`)
  t.equal(got.status, 200)
  t.same(got.body, made.body)
  t.equal((await lk.req('GET', `${P}/services/${randomUUID()}`)).status, 404)
  t.equal((await lk.req('GET', `${P}/services/not-a-uuid`)).status, 422)
  const noRead = await lk.token_(['services:write'])
  const r = await lk.req('GET', `${P}/services`, undefined, as(noRead))
  t.equal(r.status, 403)
  t.equal(r.body.detail[0].type, 'LOOKOUT_FORBIDDEN')
  t.equal((await lk.req('GET', `${P}/services/${made.body.id}`, undefined, as(noRead))).status, 403)
  t.equal((await lk.req('GET', `${P}/services?limit=0`)).status, 422)
  t.equal((await lk.req('GET', `${P}/services?limit=101`)).status, 422)
  t.equal((await lk.req('GET', `${P}/services?q=${'q'.repeat(161)}`)).status, 422)
  t.equal((await lk.req('GET', `${P}/services?limit=100`)).status, 200)
  for (let i = 0; i < 3; i++) await create({ name: `Paged ${i}` })
  const seen: string[] = []
  let cursor: string | null = null
  do {
    const page: { status: number; body: any } = await lk.req('GET', `${P}/services?q=Paged&limit=2${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`)
    t.equal(page.status, 200)
    seen.push(...page.body.items.map((s: { name: string }) => s.name))
    cursor = page.body.next_cursor
  } while (cursor !== null)
  t.same(seen, ['Paged 0', 'Paged 1', 'Paged 2'])
  const first = await lk.req('GET', `${P}/services?limit=1`)
  const c = first.body.next_cursor as string
  const tampered = await lk.req('GET', `${P}/services?cursor=${encodeURIComponent(c.slice(0, -2) + (c.endsWith('A') ? 'BB' : 'AA'))}`)
  t.equal(tampered.status, 422)
  t.same(tampered.body.detail[0].loc, ['query', 'cursor'])
  const all = await lk.req('GET', `${P}/services?limit=100`)
  t.ok(all.body.items.length >= 5)
  t.notOk(JSON.stringify(all.body).includes('"default_'), 'only service fields')
})

t.test('update: expected_updated_at guards, idempotency, staff only', async (t) => {
  const made = await create({ name: 'Editable', description: 'first' })
  const id = made.body.id as string
  const k = randomUUID()
  const upd = { idempotency_key: k, expected_updated_at: made.body.updated_at, lifecycle: 'paused', description: null }
  const ok = await lk.req('PATCH', `${P}/services/${id}`, upd)
  t.equal(ok.status, 200)
  t.equal(ok.body.lifecycle, 'paused')
  t.equal(ok.body.description, 'first', 'null leaves a field as it is')
  t.equal(ok.body.revision, 2)
  t.not(ok.body.updated_at, made.body.updated_at)
  const replay = await lk.req('PATCH', `${P}/services/${id}`, upd)
  t.equal(replay.status, 200)
  t.same(replay.body, ok.body, 'a replay answers what the first call did')
  t.equal((await lk.req('PATCH', `${P}/services/${id}`, { ...upd, lifecycle: 'ended' })).status, 409, 'same key, other content')
  const stale = await lk.req('PATCH', `${P}/services/${id}`, { idempotency_key: randomUUID(), expected_updated_at: made.body.updated_at, name: 'Renamed' })
  t.equal(stale.status, 409)
  t.equal(stale.body.detail[0].type, 'LOOKOUT_CONFLICT')
  t.match(stale.body.detail[0].msg, /changed since expected_updated_at/)
  t.equal((await lk.req('GET', `${P}/services/${id}`)).body.name, 'Editable', 'a stale update changes nothing')
  // The same instant written with an offset is the same updated_at.
  const offset = ok.body.updated_at.replace('Z', '+00:00')
  const renamed = await lk.req('PATCH', `${P}/services/${id}`, { idempotency_key: randomUUID(), expected_updated_at: offset, name: 'Renamed', modules: ['capacity'], active: false })
  t.equal(renamed.status, 200)
  t.match(renamed.body, { name: 'Renamed', modules: ['capacity'], active: false, lifecycle: 'paused' })
  const noop = await lk.req('PATCH', `${P}/services/${id}`, { idempotency_key: randomUUID(), expected_updated_at: renamed.body.updated_at })
  t.equal(noop.status, 200)
  t.same(noop.body, renamed.body, 'nothing to change changes nothing')
  const garbage = await lk.req('PATCH', `${P}/services/${id}`, { idempotency_key: randomUUID(), expected_updated_at: 'yesterday' })
  t.equal(garbage.status, 422)
  t.same(garbage.body.detail[0].loc, ['body', 'expected_updated_at'])
  t.equal((await lk.req('PATCH', `${P}/services/${id}`, { idempotency_key: randomUUID(), expected_updated_at: 'x'.repeat(51) })).status, 422)
  const missing = await lk.req('PATCH', `${P}/services/${id}`, { idempotency_key: randomUUID(), name: 'x' })
  t.same(missing.body.detail[0].loc, ['body', 'expected_updated_at'])
  t.equal((await lk.req('PATCH', `${P}/services/${id}`, { expected_updated_at: renamed.body.updated_at })).status, 422, 'idempotency_key required on update')
  t.equal((await lk.req('PATCH', `${P}/services/${randomUUID()}`, { idempotency_key: randomUUID(), expected_updated_at: renamed.body.updated_at })).status, 404)
  t.equal((await lk.req('PATCH', `${P}/services/${id}`, { idempotency_key: randomUUID(), expected_updated_at: renamed.body.updated_at, name: '' })).status, 422)
  const readOnly = await lk.token_(['services:read'], 'all', { staffId: 1 })
  t.equal((await lk.req('PATCH', `${P}/services/${id}`, { idempotency_key: randomUUID(), expected_updated_at: renamed.body.updated_at }, as(readOnly))).status, 403)
})

t.test('staff permission is checked live on every request', async (t) => {
  const tok = await lk.token_(['services:write', 'services:read'], 'all', { staffId: 42 })
  await setStaff(42, { name: 'Bo' })
  t.equal((await create({}, as(tok))).status, 201)
  await setStaff(42, { can_manage_services: false })
  const denied = await create({}, as(tok))
  t.equal(denied.status, 403)
  t.match(denied.body.detail[0].msg, /may not manage services/)
  await setStaff(42, { can_manage_services: true, active: false })
  t.equal((await create({}, as(tok))).status, 403, 'an inactive member is refused at once')
  await setStaff(42, { active: true })
  t.equal((await create({}, as(tok))).status, 201)
  t.equal((await lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: 0 })).status, 400)
  const list = await lk.ownerReq('GET', `/admin/staff?workspace=${lk.workspaceId}`)
  t.same(list.body.map((s: { staff_id: number }) => s.staff_id), [1, 42])
})

t.test('the owner socket may manage services without a staff binding', async (t) => {
  const r = await lk.ownerReq('POST', `${P}/services`, { idempotency_key: randomUUID(), name: 'By owner' })
  t.equal(r.status, 201)
  t.equal(r.body.created_by_staff_id, null)
})

t.test('a concurrent replay of one key creates one service', async (t) => {
  const body = { idempotency_key: randomUUID(), name: 'Raced' }
  const rs = await Promise.all([1, 2, 3, 4].map(() => lk.req('POST', `${P}/services`, body)))
  t.same(rs.map((r) => r.status).sort(), [200, 200, 200, 201])
  t.equal(new Set(rs.map((r) => r.body.id)).size, 1)
})

// pinned-date: calendar dates the code never compares with the clock
t.test('each service and time route refuses a token without its scope', async (t) => {
  const made = await create({ name: 'Scoped' })
  const id = made.body.id as string
  const e = (await lk.req('POST', `${P}/services/${id}/time`, { idempotency_key: randomUUID(), occurred_at: '2026-01-01', minutes: 5, description: 'd' })).body.id as string
  const routes: [string, string, string, unknown][] = [
    ['GET', `${P}/services`, 'services:read', undefined],
    ['GET', `${P}/services/${id}`, 'services:read', undefined],
    ['POST', `${P}/services`, 'services:write', { idempotency_key: randomUUID(), name: 'x' }],
    ['PATCH', `${P}/services/${id}`, 'services:write', { idempotency_key: randomUUID(), expected_updated_at: made.body.updated_at }],
    ['GET', `${P}/services/${id}/usage`, 'services:usage:read', undefined],
    ['POST', `${P}/services/${id}/time`, 'services:usage:write', { idempotency_key: randomUUID(), occurred_at: '2026-01-01', minutes: 5, description: 'd' }],
    ['PATCH', `${P}/services/${id}/time/${e}`, 'services:usage:write', { idempotency_key: randomUUID(), revision: 1, reason: 'r', minutes: 6 }],
    ['POST', `${P}/services/${id}/time/${e}/void`, 'services:usage:write', { idempotency_key: randomUUID(), revision: 1, reason: 'r' }],
  ]
  const everything = ['services:read', 'services:write', 'services:usage:read', 'services:usage:write']
  for (const [method, path, scope, body] of routes) {
    const without = await lk.token_(everything.filter((s) => s !== scope), 'all', { staffId: 1 })
    const r = await lk.req(method, path, body, as(without))
    t.equal(r.status, 403, `${method} ${path.slice(P.length)} without ${scope}`)
    t.equal(r.body.detail[0].type, 'LOOKOUT_FORBIDDEN')
    t.match(r.body.detail[0].msg, scope)
  }
  const usage = await lk.req('GET', `${P}/services/${id}/usage`)
  t.equal(usage.body.items[0].state, 'posted', 'the refused writes changed nothing')
})
