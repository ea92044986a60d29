import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const rid = await lk.resource('web-json')
const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
// Event times follow the test's clock (an hour ago, whole second): a literal date ages out of the retention.
const hourAgoS = Math.floor(Date.now() / 1000) - 3600
const isoAt = (s: number, fraction = ''): string => new Date(s * 1000).toISOString().replace('.000Z', `${fraction}Z`)

t.test('a valid batch is acknowledged and stored with every field', async (t) => {
  const res = await lk.req('POST', path, {
    events: [
      { message: 'hello world', severity: 'ERROR', source: 'web', attributes: { http: { status: 500 }, ok: false }, timestamp: isoAt(hourAgoS, '.123456789'), trace_id: '0123456789ABCDEF0123456789abcdef', span_id: '0123456789abcdef' },
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
  t.equal(String(first.ts_ns), `${hourAgoS}123456789`, 'nanoseconds kept')
})

t.test('the owner socket acts as the owner without a token', async (t) => {
  const res = await lk.ownerReq('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}`)
  t.equal(res.status, 200)
  t.equal(res.body.id, rid)
  const anon = await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}`, undefined, { authorization: '' })
  t.equal(anon.status, 401)
})

t.test('batch and event limits at their edges', async (t) => {
  const ev = (over: Record<string, unknown> = {}) => ({ message: 'm', ...over })
  const many = (n: number) => ({ events: Array.from({ length: n }, () => ev()) })
  t.equal((await lk.req('POST', path, many(1000))).status, 200, '1000 events accepted')
  const r1001 = await lk.req('POST', path, many(1001))
  t.equal(r1001.status, 422, '1001 events refused')
  t.same(r1001.body.detail[0].loc, ['body', 'events'])
  t.equal(r1001.body.detail[0].type, 'too_long')
  const r0 = await lk.req('POST', path, { events: [] })
  t.equal(r0.status, 422, 'empty batch refused')
  t.equal(r0.body.detail[0].type, 'too_short')
  t.equal((await lk.req('POST', path, { events: [ev({ message: 'x'.repeat(65536) })] })).status, 200, '65536 characters accepted')
  const long = await lk.req('POST', path, { events: [ev(), ev({ message: 'x'.repeat(65537) })] })
  t.equal(long.status, 422, '65537 characters refused')
  t.same(long.body.detail[0].loc, ['body', 'events', 1, 'message'])
  t.equal(long.body.detail[0].type, 'string_too_long')
  t.same(long.body.detail[0].ctx, { max_length: 65536 })
  t.equal((await lk.req('POST', path, { events: [ev({ source: 's'.repeat(256) })] })).status, 200, 'source 256 accepted')
  t.equal((await lk.req('POST', path, { events: [ev({ source: 's'.repeat(257) })] })).status, 422, 'source 257 refused')
  t.equal((await lk.req('POST', path, { events: [ev({ trace_id: '' , span_id: '' })] })).status, 200, 'empty ids accepted')
  const badTrace = await lk.req('POST', path, { events: [ev({ trace_id: 'abc' })] })
  t.equal(badTrace.status, 422)
  t.equal(badTrace.body.detail[0].type, 'string_pattern_mismatch')
  t.equal((await lk.req('POST', path, { events: [ev({ span_id: '0123456789abcdeg' })] })).status, 422, 'span id not hex')
  const missing = await lk.req('POST', path, { events: [{ severity: 'INFO' }] })
  t.same(missing.body.detail[0], { loc: ['body', 'events', 0, 'message'], msg: 'Field required', type: 'missing' })
  const badTime = await lk.req('POST', path, { events: [ev({ timestamp: 'yesterday' })] })
  t.equal(badTime.status, 422)
  t.equal(badTime.body.detail[0].type, 'datetime_parsing')
  const future = new Date(Date.now() + 10 * 60_000).toISOString()
  t.equal((await lk.req('POST', path, { events: [ev({ timestamp: future })] })).status, 422, 'ten minutes ahead refused')
  t.equal((await lk.req('POST', path, { events: [ev({ timestamp: new Date(Date.now() + 60_000).toISOString() })] })).status, 200, 'one minute ahead accepted')
  const days = (n: number): number => n * 86_400
  t.equal((await lk.req('POST', path, { events: [ev({ timestamp: isoAt(hourAgoS - days(7)) })] })).status, 422, 'older than the 7-day retention refused')
  t.equal((await lk.req('POST', path, { events: [ev({ timestamp: isoAt(hourAgoS + 3600 - days(7) + 600) })] })).status, 200, 'just inside the retention accepted')
  t.equal((await lk.req('POST', path, { events: [ev({ attributes: 'not an object' })] })).status, 422, 'attributes must be an object')
})

t.test('a rejected batch stores nothing', async (t) => {
  const rid2 = await lk.resource('web-none')
  const p2 = `/v1/workspaces/${lk.workspaceId}/resources/${rid2}/logs`
  const res = await lk.req('POST', p2, { events: [{ message: 'ok' }, { message: 1 }] })
  t.equal(res.status, 422)
  t.same(res.body.detail[0].loc, ['body', 'events', 1, 'message'])
  t.equal((await lk.req('POST', p2, { events: [{ message: 'marker' }] })).status, 200)
  const rows = await lk.waitRows(rid2, 1)
  await new Promise((r) => setTimeout(r, 300))
  t.same((await lk.rows(rid2)).map((r) => r.message), ['marker'])
})

t.test('a retried request is stored once', async (t) => {
  const rid3 = await lk.resource('web-retry')
  const p3 = `/v1/workspaces/${lk.workspaceId}/resources/${rid3}/logs`
  const body = { events: [{ message: 'once', timestamp: isoAt(hourAgoS) }, { message: 'twice?', timestamp: isoAt(hourAgoS + 1) }] }
  t.equal((await lk.req('POST', p3, body)).status, 200)
  t.equal((await lk.req('POST', p3, body)).status, 200)
  t.equal((await lk.req('POST', p3, { events: [{ message: 'marker' }] })).status, 200)
  const rows = await lk.waitRows(rid3, 3)
  await new Promise((r) => setTimeout(r, 300))
  t.equal((await lk.rows(rid3)).length, 3)
  t.same(rows.map((r) => r.message).sort(), ['marker', 'once', 'twice?'])
})

t.test('authentication and authorization', async (t) => {
  const other = await lk.resource('web-other')
  t.equal((await lk.req('POST', path, { events: [{ message: 'm' }] }, { authorization: '' })).status, 401, 'no token')
  t.equal((await lk.req('POST', path, { events: [{ message: 'm' }] }, { authorization: 'Bearer lkt_nope' })).status, 401, 'malformed token')
  const noScope = await lk.token_(['logs:read'])
  t.equal((await lk.req('POST', path, { events: [{ message: 'm' }] }, { authorization: `Bearer ${noScope}` })).status, 403, 'missing scope')
  const narrow = await lk.token_(['logs:write'], [other])
  t.equal((await lk.req('POST', path, { events: [{ message: 'm' }] }, { authorization: `Bearer ${narrow}` })).status, 403, 'outside the grant')
  const otherWs = `/v1/workspaces/00000000-0000-4000-8000-000000000000/resources/${rid}/logs`
  t.equal((await lk.req('POST', otherWs, { events: [{ message: 'm' }] })).status, 403, 'another workspace')
  const ghost = `/v1/workspaces/${lk.workspaceId}/resources/00000000-0000-4000-8000-000000000001/logs`
  const g = await lk.req('POST', ghost, { events: [{ message: 'm' }] })
  t.equal(g.status, 404, 'unknown resource')
  t.ok(Array.isArray(g.body.detail), 'cloud error shape')
  const sender = await lk.token_(['logs:write'], [rid], { kind: 'sender' })
  t.equal((await lk.req('POST', path, { events: [{ message: 'm' }] }, { authorization: `Bearer ${sender}` })).status, 200, 'sender token may ingest')
  t.equal((await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources`, undefined, { authorization: `Bearer ${sender}` })).status, 403, 'sender token may only ingest')
  const { revokeToken } = await import('../../workspace/index.ts')
  const id = (await lk.lookout.db.query<{ id: string }>(`SELECT id FROM tokens WHERE kind = 'sender' ORDER BY created_at DESC LIMIT 1`)).rows[0]?.id as string
  await revokeToken(lk.lookout.db, id)
  t.equal((await lk.req('POST', path, { events: [{ message: 'm' }] }, { authorization: `Bearer ${sender}` })).status, 401, 'revoked on the next request')
})

t.test('bad bodies get the right error and the server keeps serving', async (t) => {
  const wrongType = await lk.req('POST', path, 'events', { 'content-type': 'text/plain' })
  t.equal(wrongType.status, 415)
  const notJson = await lk.req('POST', path, '{"events": [', { 'content-type': 'application/json' })
  t.equal(notJson.status, 422)
  t.equal(notJson.body.detail[0].type, 'json_invalid')
  const badUtf8 = new Uint8Array([0x7b, 0x22, 0x65, 0xff, 0xfe, 0x22, 0x7d])
  t.equal((await lk.req('POST', path, badUtf8, { 'content-type': 'application/json' })).status, 400, 'invalid UTF-8')
  const deep = '{"events":[{"message":"m","attributes":' + '{"a":'.repeat(5000) + '1' + '}'.repeat(5000) + '}]}'
  const d = await lk.req('POST', path, deep, { 'content-type': 'application/json' })
  t.equal(d.status, 422, 'deeply nested attributes refused')
  const { gzipSync } = await import('node:zlib')
  const bomb = gzipSync(Buffer.alloc(80 * 1024 * 1024, 0x20))
  const b = await lk.req('POST', path, new Uint8Array(bomb), { 'content-type': 'application/json', 'content-encoding': 'gzip' })
  t.equal(b.status, 413, 'gzip bomb refused')
  t.equal((await lk.req('POST', path, { events: [{ message: 'still alive' }] })).status, 200, 'still serving')
  const br = await lk.req('POST', path, { events: [{ message: 'x' }] }, { 'content-encoding': 'br' })
  t.equal(br.status, 415, 'unknown encoding')
})
