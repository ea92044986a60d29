// Finding lines faster (issue 34) through the real routes (nats-server, chdb,
// PGlite), on OTLP data with resource attributes: attr./resource. filters and
// their negations (counts against the generator), the q syntax and its 422s,
// trace ids in any case, the workspace-wide search under a one-resource grant,
// and facets against a GROUP BY of the same rows.
import t from 'tap'
import { SCOPES } from '../../workspace/index.ts'
import { filterConditions } from '../../query/internal.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
for (let i = 0; i < 50 && (await lk.req('GET', '/v1/health')).status !== 200; i++) await new Promise((r) => setTimeout(r, 200))

const ws = lk.workspaceId
const S = 1_000_000_000n
const baseNs = (BigInt(Date.now()) / 1000n - 1800n) * S
const SERVICES = ['checkout', 'payments', 'search']
const HOSTS = ['web-3', 'web-4']
const STATUSES = [200, 500, 404]
const ROUTES = ['/api/pay', '/api/cart']
const TRACE = 'ABCDEF0123456789ABCDEF0123456789'

interface Line { i: number; rid: string; service: string; host: string; status: string; route: string; message: string }

/** 90 lines per resource, one per second, every combination of service, host, status and route. */
function linesOf(rid: string, offset: number): Line[] {
  return Array.from({ length: 90 }, (_, i) => ({
    i: offset + i, rid,
    service: SERVICES[i % 3] as string, host: HOSTS[Math.floor(i / 3) % 2] as string, status: String(STATUSES[Math.floor(i / 6) % 3]),
    route: ROUTES[Math.floor(i / 18) % 2] as string,
    message: i % 5 === 0 ? `payment refused for order ${i}` : i % 5 === 1 ? `connection retry ${i}` : `request served ${i}`,
  }))
}

async function send(rid: string, lines: Line[]): Promise<void> {
  // One resourceLogs per (service, host): the resource attributes travel as OTLP resources do.
  const groups = new Map<string, Line[]>()
  for (const l of lines) groups.set(`${l.service}|${l.host}`, [...(groups.get(`${l.service}|${l.host}`) ?? []), l])
  const body = {
    resourceLogs: [...groups.values()].map((ls) => ({
      resource: { attributes: [{ key: 'service.name', value: { stringValue: ls[0]?.service } }, { key: 'host.name', value: { stringValue: ls[0]?.host } }] },
      scopeLogs: [{
        logRecords: ls.map((l) => ({
          timeUnixNano: String(baseNs + BigInt(l.i) * S), severityNumber: l.status === '500' ? 17 : 9, body: { stringValue: l.message },
          traceId: l.i === 7 ? TRACE.toLowerCase() : undefined,
          attributes: [{ key: 'http.route', value: { stringValue: l.route } }, { key: 'http.status_code', value: { intValue: l.status } }, { key: 'n', value: { stringValue: String(l.i) } }],
        })),
      }],
    })),
  }
  const r = await lk.req('POST', `/v1/workspaces/${ws}/resources/${rid}/otlp/v1/logs`, body)
  if (r.status !== 200) throw new Error(`OTLP not accepted: ${r.status} ${JSON.stringify(r.body)}`)
  await lk.waitRows(rid, lines.length, 60_000)
}

const ra = await lk.resource('find-a')
const rb = await lk.resource('find-b')
const A = linesOf(ra, 0)
const B = linesOf(rb, 90)
await send(ra, A)
await send(rb, B)

/** Every event of a search, following the cursor. */
async function all(path: string, token?: string): Promise<{ status: number; events: any[]; body: any }> {
  const events: any[] = []
  let cursor: string | null = null
  for (let page = 0; page < 20; page++) {
    const sep = path.includes('?') ? '&' : '?'
    const r = await lk.req('GET', `${path}${sep}limit=200${cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`}`, undefined, token === undefined ? {} : { authorization: `Bearer ${token}` })
    if (r.status !== 200) return { status: r.status, events, body: r.body }
    events.push(...r.body.events)
    cursor = r.body.next_cursor
    if (cursor === null) break
  }
  return { status: 200, events, body: null }
}
const ns = (e: any) => Number(e.attributes.n)
const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b)
const one = (rid: string) => `/v1/workspaces/${ws}/resources/${rid}/logs`

t.test('attr. and resource. filters, alone, repeated and negated, on both routes', async (t) => {
  const cases: [string, (l: Line) => boolean][] = [
    ['resource.service.name=checkout', (l) => l.service === 'checkout'],
    ['resource.host.name=web-3', (l) => l.host === 'web-3'],
    ['attr.http.status_code=500', (l) => l.status === '500'],
    ['attr.http.route=%2Fapi%2Fpay', (l) => l.route === '/api/pay'],
    ['resource.service.name=checkout&resource.host.name=web-3&attr.http.status_code=500', (l) => l.service === 'checkout' && l.host === 'web-3' && l.status === '500'],
    ['-resource.service.name=checkout', (l) => l.service !== 'checkout'],
    ['resource.service.name!=checkout', (l) => l.service !== 'checkout'],
    ['-attr.http.status_code=200&-attr.http.status_code=404', (l) => l.status === '500'],
    ['attr.http.status_code=500&attr.http.status_code=404', () => false],
    ['attr.missing.key=x', () => false],
    ['-attr.missing.key=x', () => true],
    ['resource.service.name=CHECKOUT', () => false],
    ['attr.http.status_code=500&q=refused', (l) => l.status === '500' && l.message.includes('refused')],
  ]
  for (const [query, keep] of cases) {
    const r = await all(`${one(ra)}?${query}`)
    t.equal(r.status, 200, query)
    const want = A.filter(keep).map((l) => l.i)
    t.same(sorted(r.events.map(ns)), want, `${query}: ${want.length} lines`)
    const d = await lk.req('GET', `/v1/logs?resource_id=${ra}&${query.replace('q=', 'text=')}&limit=100`)
    t.same(sorted(d.body.events.map(ns)), want, `desktop ${query}`)
  }
  const bad = await lk.req('GET', `${one(ra)}?attr.http.route=`)
  t.equal(bad.status, 422, 'an empty value is refused')
  const both = await lk.req('GET', `${one(ra)}?-attr.x!=1`)
  t.equal(both.status, 422)
  t.match(both.body.detail[0], { loc: ['query', '-attr.x!'], type: 'value_error' })
  const many = await lk.req('GET', `${one(ra)}?${Array.from({ length: 21 }, (_, i) => `attr.k${i}=v`).join('&')}`)
  t.equal(many.status, 422, '21 filters: one past the limit')
  const twenty = await lk.req('GET', `${one(ra)}?${Array.from({ length: 20 }, (_, i) => `-attr.k${i}=v`).join('&')}`)
  t.equal(twenty.status, 200, '20 filters: the limit')
  t.equal(twenty.body.events.length, 90)
  const d = await lk.req('GET', `/v1/logs?resource_id=${ra}&attr.a=`)
  t.equal(d.status, 400, 'desktop: its own error shape')
  t.match(d.body, { error: { code: 'LOOKOUT_VALIDATION' } })
})

t.test('the q syntax: words, phrases, -word, OR; anything else is a 422 in words', async (t) => {
  const cases: [string, (l: Line) => boolean][] = [
    ['refused', (l) => l.message.includes('refused')],
    ['"payment refused"', (l) => l.message.includes('payment refused')],
    ['request -served', () => false],
    ['-served', (l) => !l.message.includes('served')],
    ['-"request served"', (l) => !l.message.includes('request served')],
    ['refused OR retry', (l) => l.message.includes('refused') || l.message.includes('retry')],
    ['refused OR retry -order', (l) => l.message.includes('retry')],
    ['pay OR cart', () => true],
  ]
  for (const [q, keep] of cases) {
    const r = await all(`${one(ra)}?q=${encodeURIComponent(q)}`)
    t.equal(r.status, 200, q)
    t.same(sorted(r.events.map(ns)), A.filter(keep).map((l) => l.i), `q=${q}`)
  }
  const refusals: [string, RegExp][] = [
    ['service:checkout', /field:value.*attr\.service=checkout.*resource\.service=checkout/],
    ['http.route:/api/pay', /attr\.http\.route=\/api\/pay/],
    ['refus*', /wildcards/],
    ['*', /wildcards/],
    ['/ref.+d/', /regular expressions/],
    ['a OR', /OR needs a word/],
    ['OR a', /OR needs a word/],
    ['a OR -b', /not excluded ones/],
    ['a AND b', /AND is not needed/],
    ['NOT a', /put a - before/],
  ]
  for (const [q, msg] of refusals) {
    const r = await lk.req('GET', `${one(ra)}?q=${encodeURIComponent(q)}`)
    t.equal(r.status, 422, q)
    t.equal(r.body.detail?.[0]?.loc?.join('.'), 'query.q', `${q}: located`)
    t.match(r.body.detail?.[0]?.msg, msg, `${q}: ${r.body.detail?.[0]?.msg}`)
    t.match(r.body.detail?.[0]?.msg, /supported: words .*"a phrase", -word .*a OR b/, `${q}: names the supported syntax`)
    const d = await lk.req('GET', `/v1/logs?resource_id=${ra}&text=${encodeURIComponent(q)}`)
    t.equal(d.status, 400, `desktop ${q}`)
    t.match(d.body.error.message, msg)
  }
  t.equal((await all(`${one(ra)}?q=${encodeURIComponent('"service:checkout"')}`)).status, 200, 'quoted, it is text')
  t.equal((await all(`${one(ra)}?q=${encodeURIComponent('db-1:5432 --')}`)).status, 200, 'a host:port and -- are text')
})

t.test('trace ids in any case', async (t) => {
  for (const id of [TRACE, TRACE.toLowerCase()]) {
    const r = await lk.req('GET', `${one(ra)}?trace_id=${id}`)
    t.equal(r.status, 200)
    t.same(r.body.events.map(ns), [7], id)
  }
  t.equal((await lk.req('GET', `${one(ra)}?trace_id=${'g'.repeat(32)}`)).status, 422)
})

t.test('one search across the resources a token may read', async (t) => {
  const wide = `/v1/workspaces/${ws}/logs`
  const r = await all(`${wide}?resource.service.name=checkout`)
  t.equal(r.status, 200)
  const want = [...A, ...B].filter((l) => l.service === 'checkout')
  t.same(sorted(r.events.map(ns)), want.map((l) => l.i).sort((a, b) => a - b), 'both resources')
  t.same(new Set(r.events.map((e: any) => e.resource_id)), new Set([ra, rb]), 'each event carries its resource')
  const keys = r.events.map((e: any) => `${e.timestamp}|${e.event_id}|${e.resource_id}`)
  t.same(keys, [...keys].sort().reverse(), 'newest first across resources')
  const paged = await lk.req('GET', `${wide}?limit=7`)
  t.equal(paged.body.events.length, 7)
  t.type(paged.body.next_cursor, 'string', 'keyset paging')
  const named = await all(`${wide}?resource_id=${rb}`)
  t.same(sorted(named.events.map(ns)), B.map((l) => l.i))

  const onlyA = await lk.token_([SCOPES.logsRead], [ra])
  const scoped = await all(`${wide}?q=request`, onlyA)
  t.equal(scoped.status, 200)
  t.ok(scoped.events.length > 0)
  t.ok(scoped.events.every((e: any) => e.resource_id === ra), 'a one-resource grant never returns another resource\'s line')
  t.equal((await lk.req('GET', `${wide}?resource_id=${rb}`, undefined, { authorization: `Bearer ${onlyA}` })).status, 403, 'naming a resource outside the grant')
  const facet = await lk.req('GET', `${wide}/facets?field=resource.service.name&start=${iso(baseNs)}`, undefined, { authorization: `Bearer ${onlyA}` })
  t.equal(facet.body.total, 90, 'workspace facets under the grant count its resource only')
  t.equal((await lk.req('GET', `${wide}?resource_id=${'0'.repeat(8)}-0000-4000-8000-000000000000`)).status, 404)
  const noLogs = await lk.token_([SCOPES.projectRead])
  t.equal((await lk.req('GET', wide, undefined, { authorization: `Bearer ${noLogs}` })).status, 403, 'logs:read needed')
})

function iso(n: bigint): string {
  return new Date(Number(n / 1_000_000n)).toISOString()
}

t.test('facets: top values against a GROUP BY of the same rows', async (t) => {
  const store = lk.lookout.store
  const range = `start=${iso(baseNs - S)}&end=${iso(baseNs + 200n * S)}`
  const group = async (expr: string, where: string) => {
    const r = await store.query<{ v: string; n: string }>(
      `SELECT ${expr} AS v, count() AS n FROM ${store.database}.logs WHERE workspace_id = {ws:UUID} AND resource_id = {rid:UUID} ${where} GROUP BY v ORDER BY n DESC, v`, { ws, rid: ra })
    return r.rows.map((x) => ({ value: String(x.v), count: Number(x.n) }))
  }
  const cases: [string, string, string][] = [
    ['resource.service.name', "resource_attributes['service.name']", ''],
    ['attr.http.status_code', "attributes['http.status_code']", ''],
    ['attr.http.route', "attributes['http.route']", "AND resource_attributes['host.name'] = 'web-3'"],
  ]
  for (const [field, expr, where] of cases) {
    const extra = where === '' ? '' : '&resource.host.name=web-3'
    const r = await lk.req('GET', `${one(ra)}/facets?field=${field}&${range}${extra}`)
    t.equal(r.status, 200, field)
    const want = await group(expr, where)
    t.same(r.body, { field, values: want, other: 0, total: want.reduce((a, b) => a + b.count, 0) }, field)
  }
  const top1 = await lk.req('GET', `${one(ra)}/facets?field=resource.service.name&limit=1&${range}`)
  t.same(top1.body.values.length, 1)
  t.equal(top1.body.other, 60, 'the rest is other')
  t.equal(top1.body.total, 90)
  const sev = await lk.req('GET', `${one(ra)}/facets?field=severity&${range}`)
  t.same(sev.body.values, [{ value: 'INFO', count: 60 }, { value: 'ERROR', count: 30 }])
  const missing = await lk.req('GET', `${one(ra)}/facets?field=attr.nope&${range}`)
  t.same(missing.body, { field: 'attr.nope', values: [], other: 0, total: 0 })
  t.equal((await lk.req('GET', `${one(ra)}/facets?field=message`)).status, 422, 'not a facet field')
  t.equal((await lk.req('GET', `${one(ra)}/facets`)).status, 422, 'field is required')
  t.equal((await lk.req('GET', `${one(ra)}/facets?field=severity&limit=101`)).status, 422, 'limit past 100')
  t.equal((await lk.req('GET', `${one(ra)}/facets?field=severity&limit=100&${range}`)).status, 200, 'limit 100')
})

t.test('attribute filters are picked by indexes: resource values (bloom filter), log attribute words (text index)', async (t) => {
  const store = lk.lookout.store
  const explain = async (where: string, params: Record<string, unknown>) =>
    (await store.query<{ explain: string }>(`EXPLAIN indexes = 1 SELECT event_id FROM ${store.database}.logs WHERE ${where}`, params)).rows.map((r) => r.explain).join('\n')
  const base = { workspaceId: ws, resourceIds: null, startNs: null, endNs: null, minSeverity: null, text: null, traceId: null }
  for (const [attrs, index] of [
    [[{ scope: 'resource', key: 'service.name', value: 'checkout', negate: false }], 'idx_resource_values'],
    [[{ scope: 'attr', key: 'http.route', value: '/api/pay', negate: false }], 'idx_attr_values'],
  ] as const) {
    const params: Record<string, unknown> = {}
    const plan = await explain(filterConditions({ ...base, attrs }, params).join(' AND '), params)
    t.match(plan, new RegExp(`Name: ${index}`), `${attrs[0].scope}.${attrs[0].key}: ${index}`)
  }
})
