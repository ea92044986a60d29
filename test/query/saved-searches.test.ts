// Saved searches through the real routes (PGlite): create, list, read,
// change by revision (409 on a stale one), delete, validation in the cloud
// shape, and the resource grant (a search of another resource is invisible).
import t from 'tap'
import { SCOPES } from '../../workspace/index.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())

const ws = lk.workspaceId
const base = `/v1/workspaces/${ws}/saved-searches`
const ra = await lk.resource('saved-a')
const rb = await lk.resource('saved-b')
const query = { q: 'refused -retry', severity: 'ERROR', filters: [{ scope: 'resource', key: 'service.name', value: 'checkout' }, { scope: 'attr', key: 'http.status_code', value: '200', negate: true }], range: { last: '1h' } }

t.test('create, read, list, change by revision, delete', async (t) => {
  const c = await lk.req('POST', base, { name: 'checkout 500s', resource_id: ra, query })
  t.equal(c.status, 201)
  t.match(c.body, { name: 'checkout 500s', resource_id: ra, revision: 1, created_by: 1 })
  t.same(c.body.query, { ...query, filters: [{ ...query.filters[0], negate: false }, query.filters[1]] }, 'the query as stored (negate defaults to false)')
  const id = c.body.id
  t.same((await lk.req('GET', `${base}/${id}`)).body, c.body)
  const wide = await lk.req('POST', base, { name: 'all errors', query: { severity: 'ERROR', range: { start: '2026-01-01T00:00:00Z', end: '2026-01-02T00:00:00Z' } } }) // pinned-date: a saved range is stored as given; no clock compares it
  t.equal(wide.status, 201)
  t.equal(wide.body.resource_id, null, 'every resource')
  t.same((await lk.req('GET', base)).body.items.map((s: any) => s.name), ['all errors', 'checkout 500s'], 'listed by name')

  const p = await lk.req('PATCH', `${base}/${id}`, { revision: 1, name: 'checkout failures' })
  t.equal(p.status, 200)
  t.match(p.body, { name: 'checkout failures', revision: 2, resource_id: ra })
  t.same(p.body.query, c.body.query, 'fields not given are kept')
  const stale = await lk.req('PATCH', `${base}/${id}`, { revision: 1, name: 'lost update' })
  t.equal(stale.status, 409, 'a stale revision')
  t.match(stale.body.detail[0], { msg: /revision 2, not 1/, type: 'LOOKOUT_CONFLICT' }, 'says the current revision')
  const moved = await lk.req('PATCH', `${base}/${id}`, { revision: 2, resource_id: null, query: { q: 'timeout' } })
  t.match(moved.body, { revision: 3, resource_id: null, query: { q: 'timeout' } })
  t.equal((await lk.req('GET', `${base}/${id}`)).body.name, 'checkout failures')
  t.equal((await lk.req('DELETE', `${base}/${id}`)).status, 204)
  t.equal((await lk.req('GET', `${base}/${id}`)).status, 404)
  t.equal((await lk.req('PATCH', `${base}/${id}`, { revision: 3, name: 'x' })).status, 404, 'gone: 404, not 409')
  t.equal((await lk.req('DELETE', `${base}/${id}`)).status, 404)
})

t.test('validation in the cloud shape', async (t) => {
  const cases: [unknown, string][] = [
    [{ name: 'x', query: { q: 'service:checkout' } }, 'body.query.q'],
    [{ name: 'x', query: { nope: 1 } }, 'body.query.nope'],
    [{ name: '', query: {} }, 'body.name'],
    [{ name: 'x', query: { range: { last: '1h', start: '2026-01-01T00:00:00Z' } } }, 'body.query.range'], // pinned-date: a saved range is stored as given; no clock compares it
    [{ name: 'x', query: { range: { start: '2026-01-02T00:00:00Z', end: '2026-01-01T00:00:00Z' } } }, 'body.query.range.end'], // pinned-date: a saved range is stored as given; no clock compares it
    [{ name: 'x', query: { filters: [{ scope: 'label', key: 'a', value: 'b' }] } }, 'body.query.filters.0.scope'],
    [{ name: 'x', query: { filters: Array.from({ length: 21 }, () => ({ scope: 'attr', key: 'a', value: 'b' })) } }, 'body.query.filters'],
    [{ name: 'x', query: {}, resource_id: 'not-a-uuid' }, 'body.resource_id'],
  ]
  for (const [body, loc] of cases) {
    const r = await lk.req('POST', base, body)
    t.equal(r.status, 422, JSON.stringify(body))
    t.ok(r.body.detail.some((d: any) => d.loc.join('.') === loc), `${loc}: ${JSON.stringify(r.body.detail)}`)
  }
  t.equal((await lk.req('POST', base, { name: 'x', query: { filters: Array.from({ length: 20 }, () => ({ scope: 'attr', key: 'a', value: 'b' })) } })).status, 201, '20 filters')
  t.equal((await lk.req('POST', base, { name: 'x', query: {}, resource_id: '00000000-0000-4000-8000-000000000000' })).status, 404, 'an unknown resource')
  t.equal((await lk.req('PATCH', `${base}/00000000-0000-4000-8000-000000000000`, { name: 'x' })).status, 422, 'the revision is required')
})

t.test('the resource grant', async (t) => {
  const ofB = (await lk.req('POST', base, { name: 'b only', resource_id: rb, query: {} })).body
  const onlyA = await lk.token_([SCOPES.logsRead], [ra])
  const h = { authorization: `Bearer ${onlyA}` }
  const list = await lk.req('GET', base, undefined, h)
  t.equal(list.status, 200)
  t.notOk(list.body.items.some((s: any) => s.id === ofB.id), 'not listed')
  t.equal((await lk.req('GET', `${base}/${ofB.id}`, undefined, h)).status, 404, 'not opened')
  t.equal((await lk.req('PATCH', `${base}/${ofB.id}`, { revision: 1, name: 'mine' }, h)).status, 404, 'not changed')
  t.equal((await lk.req('DELETE', `${base}/${ofB.id}`, undefined, h)).status, 404, 'not deleted')
  t.equal((await lk.req('POST', base, { name: 'b', resource_id: rb, query: {} }, h)).status, 403, 'not saved for another resource')
  const mine = await lk.req('POST', base, { name: 'a', resource_id: ra, query: {} }, h)
  t.equal(mine.status, 201)
  t.equal(mine.body.created_by, null, 'a token without a staff member')
  const noLogs = await lk.token_([SCOPES.projectRead])
  t.equal((await lk.req('GET', base, undefined, { authorization: `Bearer ${noLogs}` })).status, 403)
})
