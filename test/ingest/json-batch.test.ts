import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const rid = await lk.resource('web-json')
const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`

t.test('a valid batch is acknowledged and stored with every field', async (t) => {
  const res = await lk.req('POST', path, {
    events: [
      { message: 'hello world', severity: 'ERROR', source: 'web', attributes: { http: { status: 500 }, ok: false }, timestamp: '2026-11-21T10:00:00.123456789Z', trace_id: '0123456789ABCDEF0123456789abcdef', span_id: '0123456789abcdef' },
      { message: 'second' },
    ],
  })
  t.equal(res.status, 200)
  t.same(res.body, { accepted: 2 })
  const rows = await lk.waitRows(rid, 2)
  t.equal(rows.length, 2)
  const first = rows.find((r) => r.message === 'hello world') as Record<string, unknown>
  t.equal(first.severity_text, 'ERROR')
  t.equal(first.severity_number, 17)
  t.equal(first.source, 'web')
  t.same(first.attributes, { 'http.status': '500', ok: 'false' })
  t.equal(first.trace_id, '0123456789abcdef0123456789abcdef')
  t.equal(String(first.ts_ns), '1795255200123456789')
})

t.test('the owner socket acts as the owner without a token', async (t) => {
  const res = await lk.ownerReq('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}`)
  t.equal(res.status, 200)
  t.equal(res.body.id, rid)
  const anon = await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}`, undefined, { authorization: '' })
  t.equal(anon.status, 401)
})
