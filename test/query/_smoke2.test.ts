import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'
const lk = await startTestLookout()
t.teardown(() => lk.stop())
const rid = await lk.resource('smoke')
const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
t.test('tail', async (t) => {
  const ac = new AbortController()
  const res = await fetch(lk.url + path + '/tail', { headers: { authorization: `Bearer ${lk.token}` }, signal: ac.signal })
  console.log(res.status, res.headers.get('content-type'))
  const reader = res.body!.getReader()
  const dec = new TextDecoder()
  const t0 = Date.now()
  const post = await lk.req('POST', path, { events: [{ message: 'live one', severity: 'WARN' }, { message: 'live two' }] })
  console.log('posted', post.status, Date.now() - t0)
  let buf = ''
  while (!buf.includes('live two')) { const { value } = await reader.read(); buf += dec.decode(value); }
  console.log('got after', Date.now() - t0, 'ms'); console.log(buf)
  ac.abort()
})
