// Time entries: create, correct (revision + reason, history kept), void,
// usage listing with totals, minute bounds, draft/posted, scopes and staff.
import t from 'tap'
import { randomUUID } from 'node:crypto'
import { startTestLookout, retryWhenShed } from '../../helpers/lookout.ts'

// pinned-date: calendar dates the code never compares with the clock
const lk = await startTestLookout()
t.teardown(() => lk.stop())
retryWhenShed(lk)
const P = `/v1/workspaces/${lk.workspaceId}`
const as = (token: string) => ({ authorization: `Bearer ${token}` })
await lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: 1, name: 'Ada' })
const svc = (await lk.req('POST', `${P}/services`, { idempotency_key: randomUUID(), name: 'Retainer', kind: 'retainer' })).body.id as string
const S = `${P}/services/${svc}`
const entry = (over: Record<string, unknown> = {}) => ({
  idempotency_key: randomUUID(), occurred_at: '2026-03-02T10:00:00Z', minutes: 90, description: 'Patched the web server', ...over,
})

// pinned-date: calendar dates the code never compares with the clock
t.test('recording time: 201 with defaults, replay 200, other content 409', async (t) => {
  const body = entry({ internal_notes: 'took longer: flaky mirror' })
  const r = await lk.req('POST', `${S}/time`, body)
  t.equal(r.status, 201)
  t.match(r.body, {
    service_id: svc, revision: 1, state: 'posted', minutes: 90, chargeable: true, staff_id: 1, created_by_staff_id: 1,
    occurred_at: '2026-03-02T10:00:00.000000Z', internal_notes: 'took longer: flaky mirror', task_id: null, voided_at: null,
  })
  t.equal(r.body.history.length, 1)
  t.match(r.body.history[0], { revision: 1, action: 'create', reason: null, actor_staff_id: 1 })
  const again = await lk.req('POST', `${S}/time`, body)
  t.equal(again.status, 200)
  t.same(again.body, r.body)
  t.equal((await lk.req('POST', `${S}/time`, { ...body, minutes: 91 })).status, 409)
})

// pinned-date: calendar dates the code never compares with the clock
t.test('TimeCreate bounds and formats', async (t) => {
  const bad = async (over: Record<string, unknown>, loc: (string | number)[], type: string) => {
    const r = await lk.req('POST', `${S}/time`, entry(over))
    t.equal(r.status, 422, JSON.stringify(over).slice(0, 60))
    t.same(r.body.detail[0].loc, loc)
    t.equal(r.body.detail[0].type, type)
  }
  await bad({ minutes: 0 }, ['body', 'minutes'], 'greater_than')
  await bad({ minutes: -5 }, ['body', 'minutes'], 'greater_than')
  await bad({ minutes: 6_000_001 }, ['body', 'minutes'], 'less_than_equal')
  await bad({ minutes: 1.5 }, ['body', 'minutes'], 'int_type')
  await bad({ description: '' }, ['body', 'description'], 'string_too_short')
  await bad({ description: 'd'.repeat(1001) }, ['body', 'description'], 'string_too_long')
  await bad({ internal_notes: 'n'.repeat(10001) }, ['body', 'internal_notes'], 'string_too_long')
  await bad({ occurred_at: '' }, ['body', 'occurred_at'], 'string_too_short')
  await bad({ occurred_at: 'x'.repeat(51) }, ['body', 'occurred_at'], 'string_too_long')
  await bad({ occurred_at: 'last tuesday' }, ['body', 'occurred_at'], 'datetime_parsing')
  await bad({ occurred_at: '2026-02-30' }, ['body', 'occurred_at'], 'datetime_parsing')
  await bad({ occurred_at: '2026-03-02T10:00:00' }, ['body', 'occurred_at'], 'datetime_parsing')
  await bad({ state: 'voided' }, ['body', 'state'], 'enum')
  await bad({ staff_id: 0 }, ['body', 'staff_id'], 'greater_than')
  await bad({ task_id: 'task-1' }, ['body', 'task_id'], 'uuid_parsing')
  await bad({ billable: true }, ['body', 'billable'], 'extra_forbidden')
  const max = await lk.req('POST', `${S}/time`, entry({ minutes: 6_000_000, occurred_at: '2026-03-01', state: 'draft', chargeable: false, staff_id: 9, task_id: randomUUID() }))
  t.equal(max.status, 201)
  t.match(max.body, { minutes: 6_000_000, occurred_at: '2026-03-01T00:00:00.000000Z', state: 'draft', chargeable: false, staff_id: 9 })
  t.equal((await lk.req('POST', `${S}/time`, entry({ minutes: 1, description: 'd'.repeat(1000), internal_notes: 'n'.repeat(10000), occurred_at: '2026-03-02T12:00:00+02:00' }))).status, 201)
  t.equal((await lk.req('POST', `${P}/services/${randomUUID()}/time`, entry())).status, 404)
})

t.test('correct: revision and reason required, history kept, stale revision 409', async (t) => {
  const made = (await lk.req('POST', `${S}/time`, entry({ minutes: 30, state: 'draft' }))).body
  const url = `${S}/time/${made.id}`
  const missing = await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 1, minutes: 45 })
  t.equal(missing.status, 422)
  t.same(missing.body.detail[0].loc, ['body', 'reason'])
  t.equal((await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 0, reason: 'x', minutes: 45 })).status, 422)
  t.equal((await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 1, reason: '', minutes: 45 })).status, 422)
  t.equal((await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 1, reason: 'r'.repeat(1001), minutes: 45 })).status, 422)
  t.equal((await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 1, reason: 'x', minutes: 0 })).status, 422)
  t.equal((await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 1, reason: 'x', occurred_at: 'o'.repeat(51) })).status, 422)
  const nothing = await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 1, reason: 'x', minutes: null })
  t.equal(nothing.status, 422, 'a correction changes something')
  const k = randomUUID()
  const fix = { idempotency_key: k, revision: 1, reason: 'forgot the call', minutes: 45, state: 'posted' }
  const ok = await lk.req('PATCH', url, fix)
  t.equal(ok.status, 200)
  t.match(ok.body, { revision: 2, minutes: 45, state: 'posted', description: made.description })
  t.equal(ok.body.history.length, 2)
  t.match(ok.body.history[0], { revision: 1, action: 'create', values: { minutes: 30, state: 'draft' } })
  t.match(ok.body.history[1], { revision: 2, action: 'correct', reason: 'forgot the call', values: { minutes: 45, state: 'posted' } })
  t.same(ok.body.history[1].changed, ['state', 'minutes'])
  t.same((await lk.req('PATCH', url, fix)).body, ok.body, 'replay')
  t.equal((await lk.req('PATCH', url, { ...fix, minutes: 50 })).status, 409, 'same key other content')
  const stale = await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 1, reason: 'again', minutes: 50 })
  t.equal(stale.status, 409)
  t.equal(stale.body.detail[0].type, 'LOOKOUT_CONFLICT')
  t.match(stale.body.detail[0].msg, /current revision 2/)
  t.equal((await lk.req('PATCH', `${S}/time/${randomUUID()}`, { idempotency_key: randomUUID(), revision: 1, reason: 'x', minutes: 5 })).status, 404)
  t.equal((await lk.req('PATCH', `${P}/services/${randomUUID()}/time/${made.id}`, { idempotency_key: randomUUID(), revision: 2, reason: 'x', minutes: 5 })).status, 404, 'the entry belongs to its service')
})

t.test('void: keeps the record and its history; a voided entry is final', async (t) => {
  const made = (await lk.req('POST', `${S}/time`, entry({ minutes: 20 }))).body
  const url = `${S}/time/${made.id}`
  await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 1, reason: 'typo', description: 'Fixed typo' })
  t.equal((await lk.req('POST', `${url}/void`, { idempotency_key: randomUUID(), revision: 1, reason: 'dup' })).status, 409, 'stale revision')
  t.equal((await lk.req('POST', `${url}/void`, { idempotency_key: randomUUID(), revision: 2 })).status, 422, 'reason required')
  t.equal((await lk.req('POST', `${url}/void`, { idempotency_key: randomUUID(), revision: 2, reason: 'dup', minutes: 3 })).status, 422, 'TimeVoid has no other fields')
  const body = { idempotency_key: randomUUID(), revision: 2, reason: 'duplicate of another entry' }
  const v = await lk.req('POST', `${url}/void`, body)
  t.equal(v.status, 200)
  t.match(v.body, { state: 'voided', revision: 3, void_reason: 'duplicate of another entry', minutes: 20, description: 'Fixed typo' })
  t.ok(v.body.voided_at)
  t.same(v.body.history.map((h: { action: string }) => h.action), ['create', 'correct', 'void'])
  t.same((await lk.req('POST', `${url}/void`, body)).body, v.body, 'replay')
  const again = await lk.req('POST', `${url}/void`, { idempotency_key: randomUUID(), revision: 3, reason: 'again' })
  t.equal(again.status, 409)
  t.equal(again.body.detail[0].type, 'LOOKOUT_TIME_ENTRY_VOIDED')
  const fix = await lk.req('PATCH', url, { idempotency_key: randomUUID(), revision: 3, reason: 'undo', minutes: 5 })
  t.equal(fix.status, 409)
  t.equal(fix.body.detail[0].type, 'LOOKOUT_TIME_ENTRY_VOIDED')
})

// pinned-date: calendar dates the code never compares with the clock
t.test('usage: totals, newest first, paging at the limit edges, internal notes for staff only', async (t) => {
  const own = (await lk.req('POST', `${P}/services`, { idempotency_key: randomUUID(), name: 'Measured' })).body.id as string
  const U = `${P}/services/${own}`
  const at = ['2026-01-01T08:00:00Z', '2026-01-03T08:00:00Z', '2026-01-02T08:00:00Z']
  const ids: string[] = []
  for (const [i, o] of at.entries()) {
    ids.push((await lk.req('POST', `${U}/time`, entry({ occurred_at: o, minutes: 10 * (i + 1), internal_notes: 'secret-ish', state: i === 2 ? 'draft' : 'posted', chargeable: i !== 1 }))).body.id)
  }
  await lk.req('POST', `${U}/time/${ids[0]}/void`, { idempotency_key: randomUUID(), revision: 1, reason: 'wrong service' })
  const u = await lk.req('GET', `${U}/usage`)
  t.equal(u.status, 200)
  t.same(u.body.totals, { entries: 2, voided_entries: 1, posted_minutes: 20, draft_minutes: 30, chargeable_posted_minutes: 0 })
  t.same(u.body.items.map((e: { id: string }) => e.id), [ids[1], ids[2], ids[0]], 'newest occurrence first, voided kept')
  t.equal(u.body.items[0].internal_notes, 'secret-ish', 'staff see internal notes')
  t.equal(u.body.next_cursor, null)
  const p1 = await lk.req('GET', `${U}/usage?limit=2`)
  t.equal(p1.body.items.length, 2)
  const p2 = await lk.req('GET', `${U}/usage?limit=2&cursor=${encodeURIComponent(p1.body.next_cursor)}`)
  t.same(p2.body.items.map((e: { id: string }) => e.id), [ids[0]])
  t.equal(p2.body.next_cursor, null)
  t.equal((await lk.req('GET', `${U}/usage?limit=0`)).status, 422)
  t.equal((await lk.req('GET', `${U}/usage?limit=101`)).status, 422)
  t.equal((await lk.req('GET', `${U}/usage?limit=100`)).status, 200)
  t.equal((await lk.req('GET', `${U}/usage?cursor=forged.cursor`)).status, 422)
  t.equal((await lk.req('GET', `${P}/services/${randomUUID()}/usage`)).status, 404)
  const reader = await lk.token_(['services:usage:read'])
  const ru = await lk.req('GET', `${U}/usage`, undefined, as(reader))
  t.equal(ru.status, 200)
  t.equal(ru.body.items.length, 3)
  t.notOk('internal_notes' in ru.body.items[0], 'no internal notes for a non-staff reader')
  t.notOk(JSON.stringify(ru.body).includes('secret-ish'))
  const noScope = await lk.token_(['services:read'])
  t.equal((await lk.req('GET', `${U}/usage`, undefined, as(noScope))).status, 403)
})

t.test('time writes: services:usage:write and a live staff member allowed to record time', async (t) => {
  const noScope = await lk.token_(['services:usage:read', 'services:write'], 'all', { staffId: 1 })
  const r = await lk.req('POST', `${S}/time`, entry(), as(noScope))
  t.equal(r.status, 403)
  t.equal(r.body.detail[0].type, 'LOOKOUT_FORBIDDEN')
  const unbound = await lk.token_(['services:usage:write'])
  const u = await lk.req('POST', `${S}/time`, entry(), as(unbound))
  t.equal(u.status, 403)
  t.equal(u.body.detail[0].type, 'LOOKOUT_STAFF_REQUIRED')
  const staff7 = await lk.token_(['services:usage:write'], 'all', { staffId: 7 })
  await lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: 7, can_log_time: false })
  const made = (await lk.req('POST', `${S}/time`, entry())).body
  for (const [m, path, body] of [
    ['POST', `${S}/time`, entry()],
    ['PATCH', `${S}/time/${made.id}`, { idempotency_key: randomUUID(), revision: 1, reason: 'x', minutes: 1 }],
    ['POST', `${S}/time/${made.id}/void`, { idempotency_key: randomUUID(), revision: 1, reason: 'x' }],
  ] as const) {
    const d = await lk.req(m, path, body, as(staff7))
    t.equal(d.status, 403, `${m} ${path.slice(-20)}`)
    t.match(d.body.detail[0].msg, /may not record time entries/)
  }
  await lk.ownerReq('POST', '/admin/staff', { workspace: lk.workspaceId, staff_id: 7, can_log_time: true })
  const mine = await lk.req('POST', `${S}/time`, entry(), as(staff7))
  t.equal(mine.status, 201)
  t.equal(mine.body.staff_id, 7, 'the bound staff member by default')
})
