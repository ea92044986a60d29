import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'
const lk = await startTestLookout()
t.teardown(() => lk.stop())
const rid = await lk.resource('smoke')
const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
t.test('x', async (t) => {
const r = await lk.req('POST', path, { events: [{ message: 'hello world', severity: 'ERROR', attributes: { user: 'Alice-42' }, timestamp: new Date(Date.now() - 1000).toISOString().replace('Z', '123456Z') }, { message: 'second' }] })
t.equal(r.status, 200, JSON.stringify(r.body))
await lk.waitRows(rid, 2)
const q = await lk.req('GET', path)
console.log(q.status, JSON.stringify(q.body, null, 1), q.headers.get('x-lookout-rows-read'), q.headers.get('server-timing'))
const q2 = await lk.req('GET', path + '?q=alice&limit=1')
console.log(q2.status, JSON.stringify(q2.body))
const q3 = await lk.req('GET', path + '?limit=1')
console.log(q3.status, JSON.stringify(q3.body))
const q4 = await lk.req('GET', path + '?limit=1&cursor=' + q3.body.next_cursor)
console.log(q4.status, JSON.stringify(q4.body))
const q5 = await lk.req('GET', `/v1/logs?text=hello`)
console.log(q5.status, JSON.stringify(q5.body))
const q6 = await lk.req('GET', path + '?severity=BAD&limit=0')
console.log(q6.status, JSON.stringify(q6.body))
})
