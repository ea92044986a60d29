// The desktop legacy route: exact resource grants, per-resource event id
// deduplication, whole-batch validation, and its limits at their edges.
import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'
import { settledRows } from '../helpers/stored-once.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const rid = await lk.resource('desk-1')
const token = await lk.token_(['logs:write'], [rid])
const auth = { authorization: `Bearer ${token}` }
const now = () => new Date().toISOString()
const ev = (id: string, over: Record<string, unknown> = {}) => ({ id, timestamp: now(), severity: 'info', message: `event ${id}`, ...over })
const post = (body: unknown, headers: Record<string, string> = auth) => lk.req('POST', '/v1/logs', body, headers)

t.test('accepts a batch and stores each id once per resource', async (t) => {
  const r = await post({ resource_id: rid, events: [ev('a', { severity: 'warning', attributes: { user: { id: 7 } } }), ev('b'), ev('a')] })
  t.equal(r.status, 200)
  t.equal(r.body.accepted, 3)
  const again = await post({ resource_id: rid, events: [ev('b'), ev('c', { severity: 'critical' })] })
  t.equal(again.status, 200)
  const rows = await settledRows(lk, rid, 3, () => post({ resource_id: rid, events: [ev('sentinel', { message: 'sentinel' })] }))
  t.same(rows.map((x) => x.event_id).sort(), ['a', 'b', 'c'], 'a, b and c stored once each, also after the redelivery window')
  const a = rows.find((x) => x.event_id === 'a') as Record<string, any>
  t.equal(a.severity_text, 'warning')
  t.equal(a.severity_number, 13)
  t.equal(a.attributes['user.id'], '7')
})

t.test('limits at their edges', async (t) => {
  const hundred = Array.from({ length: 100 }, (_, i) => ev(`e${i}`))
  t.equal((await post({ resource_id: rid, events: hundred })).status, 200, '100 events')
  const r101 = await post({ resource_id: rid, events: [...hundred, ev('e100')] })
  t.equal(r101.status, 413, '101 events')
  t.ok(typeof r101.body.error.message === 'string', 'desktop error shape')
  t.equal((await post({ resource_id: rid, events: [ev('m1', { message: 'x'.repeat(16000) })] })).status, 200, '16000 characters')
  t.equal((await post({ resource_id: rid, events: [ev('m2', { message: 'x'.repeat(16001) })] })).status, 400, '16001 characters')
  const big = { k: 'y'.repeat(31_800) }
  t.equal((await post({ resource_id: rid, events: [ev('s1', { message: '', attributes: big })] })).status, 200, 'an event just under 32000 bytes')
  t.equal((await post({ resource_id: rid, events: [ev('s2', { message: 'z'.repeat(300), attributes: big })] })).status, 413, 'an event over 32000 bytes')
  const mib = Array.from({ length: 40 }, (_, i) => ev(`b${i}`, { message: 'w'.repeat(15000), attributes: { pad: 'p'.repeat(12000) } }))
  t.equal((await post({ resource_id: rid, events: mib })).status, 413, 'a batch over 1 MiB')
  t.equal((await post({ resource_id: rid, events: [ev('f1', { timestamp: new Date(Date.now() + 4 * 60_000).toISOString() })] })).status, 200, 'four minutes ahead')
  t.equal((await post({ resource_id: rid, events: [ev('f2', { timestamp: new Date(Date.now() + 6 * 60_000).toISOString() })] })).status, 400, 'six minutes ahead')
  t.equal((await post({ resource_id: rid, events: [ev('z1', { timestamp: new Date().toISOString().slice(0, 19) })] })).status, 400, 'no time zone')
  t.equal((await post({ resource_id: rid, events: [ev('v1', { severity: 'fatal' })] })).status, 400, 'unknown severity')
})

t.test('the whole batch fails if one event is invalid', async (t) => {
  const rid2 = await lk.resource('desk-2')
  const tok2 = await lk.token_(['logs:write'], [rid2])
  const r = await post({ resource_id: rid2, events: [ev('ok1'), ev('bad', { severity: 'nope' })] }, { authorization: `Bearer ${tok2}` })
  t.equal(r.status, 400)
  t.equal((await post({ resource_id: rid2, events: [ev('marker')] }, { authorization: `Bearer ${tok2}` })).status, 200)
  await lk.waitRows(rid2, 1)
  await new Promise((r) => setTimeout(r, 300))
  t.same((await lk.rows(rid2)).map((x) => x.event_id), ['marker'])
})

t.test('grants', async (t) => {
  const other = await lk.resource('desk-3')
  t.equal((await post({ resource_id: other, events: [ev('x')] })).status, 403, 'a resource outside the grant')
  t.equal((await post({ resource_id: rid, events: [ev('x')] }, { authorization: `Bearer ${lk.token}` })).status, 403, 'an all-resources token is not an exact grant')
  t.equal((await post({ resource_id: rid, events: [ev('x')] }, { authorization: '' })).status, 401)
  const reader = await lk.token_(['logs:read'], [rid])
  t.equal((await post({ resource_id: rid, events: [ev('x')] }, { authorization: `Bearer ${reader}` })).status, 403, 'logs:read cannot write')
  t.equal((await post({ resource_id: 'not-a-uuid', events: [ev('x')] })).status, 400)
})

t.test('owner routes create and revoke sender tokens', async (t) => {
  const setup = await lk.ownerReq('GET', `/v1/logs/setup?resource_id=${rid}`)
  t.equal(setup.status, 200)
  t.equal(setup.body.otlp_logs_path, `/v1/workspaces/${lk.workspaceId}/resources/${rid}/otlp/v1/logs`)
  const created = await lk.ownerReq('POST', '/v1/logs/senders', { resource_id: rid, name: 'laptop agent' })
  t.equal(created.status, 201)
  t.match(created.body.token, /^lkt_/)
  const sender = { authorization: `Bearer ${created.body.token}` }
  t.equal((await post({ resource_id: rid, events: [ev('via-sender')] }, sender)).status, 200, 'the sender can write')
  t.equal((await lk.req('GET', `/v1/logs/setup?resource_id=${rid}`, undefined, sender)).status, 403, 'setup is owner-only')
  t.equal((await lk.req('POST', '/v1/logs/senders', { resource_id: rid, name: 'x' })).status, 403, 'creating senders is owner-only')
  const listed = await lk.ownerReq('GET', `/v1/logs/setup?resource_id=${rid}`)
  t.same(listed.body.senders.map((s: { name: string }) => s.name), ['laptop agent'])
  t.notOk(JSON.stringify(listed.body).includes(created.body.token), 'the token is never shown again')
  t.equal((await lk.ownerReq('DELETE', `/v1/logs/senders/${created.body.id}`)).status, 200)
  t.equal((await post({ resource_id: rid, events: [ev('after-revoke')] }, sender)).status, 401, 'revoked')
})
