// The collector routes with a collector's credential: enrollment issues it once,
// it is refused on every other route, pushes are idempotent, fenced by
// revision, limited per batch, and judged by the two-observation confirmation.
import t from 'tap'
import { startTestLookout } from '../helpers/lookout.ts'
import { startTcp } from '../helpers/servers.ts'
import { until } from '../helpers/until.ts'

const lk = await startTestLookout()
t.teardown(() => lk.stop())
const rid = await lk.resource('private-net')
const P = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`

const enrolled = await lk.req('POST', `${P}/sources`, { action: 'enroll', name: 'dc-1', kind: 'collector' })
const sourceId: string = enrolled.body.source.id
const token: string = enrolled.body.token
const as = { authorization: `Bearer ${token}` }
const check = await lk.req('POST', P, {
  name: 'db port', kind: 'tcp', location: 'collector', source_id: sourceId, configuration: { host: '10.0.0.5', port: 5432, interval_seconds: 60 },
})

let seq = 0
function obs(status: 'up' | 'down', extra: Record<string, unknown> = {}): Record<string, unknown> {
  // Distinct, increasing observation times in the recent past.
  return {
    id: crypto.randomUUID(), check_id: check.body.id, revision: check.body.revision, observed_at: new Date(Date.now() - 50_000 + seq++ * 10).toISOString(),
    status, code: status === 'up' ? 'LOOKOUT_PROBE_OK' : 'LOOKOUT_PROBE_REFUSED', reason: status, latency_ms: 1, details: null, ...extra,
  }
}
const push = (observations: unknown[], headers: Record<string, string> = as) => lk.req('POST', '/v1/collector/observations', { observations }, headers)

t.test('enrolling a collector shows its credential once and lists its contact', async (t) => {
  t.equal(enrolled.status, 200)
  t.match(token, /^lkt_/)
  t.equal(enrolled.body.source.kind, 'collector')
  const tokens = await lk.lookout.db.query<{ kind: string; secret_hash: Uint8Array }>('SELECT kind, secret_hash FROM tokens WHERE id = $1', [enrolled.body.source.token_id])
  t.equal(tokens.rows[0]?.kind, 'collector')
  t.notMatch(Buffer.from(tokens.rows[0]?.secret_hash ?? []).toString('utf8'), token.slice(-20), 'only a hash is stored')
  const before = (await lk.req('GET', P)).body.sources.find((s: { id: string }) => s.id === sourceId)
  t.equal(before.last_contact_at, null)
  const got = await lk.req('GET', '/v1/collector/checks', undefined, { ...as, 'x-lookout-collector-version': '9.9.9' })
  t.equal(got.status, 200)
  t.same(got.body.checks.map((c: { id: string }) => c.id), [check.body.id])
  t.same(got.body.checks[0].configuration.port, 5432)
  const listed = (await lk.req('GET', P)).body
  const source = listed.sources.find((s: { id: string }) => s.id === sourceId)
  t.ok(source.last_contact_at)
  t.equal(source.version, '9.9.9')
  t.equal(source.address, '127.0.0.1')
  t.notMatch(JSON.stringify(listed), token.slice(-20), 'the credential is never shown again')
  t.equal(listed.checks.find((c: { id: string }) => c.id === check.body.id).source_id, sourceId, 'each check names its source')
})

t.test('the check list answers 304 while unchanged and changes with an edit', async (t) => {
  const first = await lk.req('GET', '/v1/collector/checks', undefined, as)
  const etag = first.headers.get('etag') as string
  t.ok(etag)
  const same = await lk.req('GET', '/v1/collector/checks?wait=0', undefined, { ...as, 'if-none-match': etag })
  t.equal(same.status, 304)
  const held = Date.now()
  const contact = async () => Date.parse((await lk.req('GET', P)).body.sources.find((s: { id: string }) => s.id === sourceId).last_contact_at)
  const before = await contact()
  const waiting = lk.req('GET', '/v1/collector/checks?wait=10', undefined, { ...as, 'if-none-match': etag })
  // The server records the contact before it holds the poll: edit only once the poll is held.
  await until('the long poll held', contact, (at) => at > before, 10_000)
  await lk.req('POST', P, { id: check.body.id, configuration: { host: '10.0.0.5', port: 5433, interval_seconds: 60 } })
  const changed = await waiting
  t.equal(changed.status, 200, 'the long poll returns when the check changes')
  t.ok(Date.now() - held < 9000)
  t.equal(changed.body.checks[0].configuration.port, 5433)
  t.not(changed.headers.get('etag'), etag)
  check.body.revision = changed.body.checks[0].revision
  t.equal((await lk.req('GET', '/v1/collector/checks?wait=21', undefined, as)).status, 422, 'wait is at most 20 s')
})

t.test('two observations confirm, resends are duplicates, the fence holds', async (t) => {
  const a = obs('down')
  const b = obs('down')
  const one = await push([a])
  t.same(one.body, { applied: 1, recorded: 0, duplicates: 0, rejected: [] })
  let view = (await lk.req('GET', P)).body.checks.find((c: { id: string }) => c.id === check.body.id)
  t.equal(view.health, 'unknown', 'one failure confirms nothing')
  const two = await push([a, b])
  t.same(two.body, { applied: 1, recorded: 0, duplicates: 1, rejected: [] })
  view = (await lk.req('GET', P)).body.checks.find((c: { id: string }) => c.id === check.body.id)
  t.equal(view.health, 'unhealthy', 'the second failure confirms')
  t.ok(view.open_incident_id, 'a required check opens an incident')
  const again = await push([a, b])
  t.same(again.body, { applied: 0, recorded: 0, duplicates: 2, rejected: [] }, 'a resend changes nothing')
  const old = obs('up', { revision: check.body.revision - 1 })
  const fenced = await push([old])
  t.same(fenced.body.rejected, [{ id: old.id, reason: 'rejected_revision' }])
  const future = obs('up', { observed_at: new Date(Date.now() + 120_000).toISOString() })
  t.same((await push([future])).body.rejected, [{ id: future.id, reason: 'rejected_future' }])
  const stale = obs('up', { observed_at: new Date(Date.now() - 3 * 3_600_000).toISOString() })
  t.same((await push([stale])).body, { applied: 0, recorded: 1, duplicates: 0, rejected: [] }, 'an observation past the freshness window is recorded only')
  const ups = await push([obs('up'), obs('up')])
  t.equal(ups.body.applied, 2)
  view = (await lk.req('GET', P)).body.checks.find((c: { id: string }) => c.id === check.body.id)
  t.equal(view.health, 'healthy')
  t.equal(view.open_incident_id, null, 'confirmed recovery closes the incident')
  const results = await lk.lookout.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM monitor_results WHERE check_id = $1 AND worker = $2`, [check.body.id, `collector:${sourceId}`])
  t.equal(results.rows[0]?.n, 5, 'one result row per observation applied or recorded, none for duplicates or fenced ones')
})

t.test('observations too old, of a paused check or of a check not assigned to the source are rejected with their reason', async (t) => {
  const day = 24 * 3_600_000
  const tooOld = obs('up', { observed_at: new Date(Date.now() - day - 60_000).toISOString() })
  const justInside = obs('up', { observed_at: new Date(Date.now() - day + 60_000).toISOString() })
  const r = await push([tooOld, justInside])
  t.same(r.body.rejected, [{ id: tooOld.id, reason: 'rejected_too_old' }], 'older than 24 h: rejected_too_old')
  t.equal(r.body.recorded, 1, 'just inside 24 h: recorded')
  const elsewhere = await lk.req('POST', P, { name: 'another source\'s', kind: 'tcp', location: 'collector', source_id: (await lk.req('POST', `${P}/sources`, { action: 'enroll', name: 'dc-2', kind: 'collector' })).body.source.id, configuration: { host: '10.0.0.6', port: 5432, interval_seconds: 60 } })
  const foreign = obs('up', { check_id: elsewhere.body.id, revision: elsewhere.body.revision })
  const unknown = obs('up', { check_id: crypto.randomUUID() })
  const byId = (x: { id: unknown }, y: { id: unknown }) => (String(x.id) < String(y.id) ? -1 : 1)
  t.same((await push([foreign, unknown])).body.rejected.sort(byId), [{ id: foreign.id, reason: 'rejected_unassigned' }, { id: unknown.id, reason: 'rejected_unassigned' }].sort(byId),
    'another source\'s check, and no check at all: rejected_unassigned')
  const paused = await lk.req('POST', P, { id: check.body.id, enabled: false })
  t.equal(paused.status, 200)
  const whilePaused = obs('up', { revision: paused.body.revision })
  t.same((await push([whilePaused])).body.rejected, [{ id: whilePaused.id, reason: 'rejected_paused' }], 'a paused check: rejected_paused')
  const resumed = await lk.req('POST', P, { id: check.body.id, enabled: true })
  check.body.revision = resumed.body.revision
  t.equal((await push([obs('up')])).body.rejected.length, 0, 'resumed: accepted again')
})

t.test('a push holds 1..1000 observations', async (t) => {
  const many = Array.from({ length: 1000 }, () => obs('up'))
  const ok = await push(many)
  t.equal(ok.status, 200)
  t.equal(ok.body.applied + ok.body.recorded, 1000)
  t.equal((await push([...Array.from({ length: 1000 }, () => obs('up')), obs('up')])).status, 422, '1001 is one too many')
  t.equal((await push([])).status, 422, 'none is refused')
  t.equal((await push([{ ...obs('up'), extra: 1 }])).status, 422, 'unknown properties are refused')
})

t.test('the collector credential is refused on every other route', async (t) => {
  const routes = lk.lookout.app?.routeCatalogue ?? []
  let tried = 0
  for (const r of routes) {
    const auth = (r.config as { auth?: { public?: boolean } } | undefined)?.auth
    if (auth === undefined || auth.public === true || r.url.startsWith('/v1/collector/') || r.method === 'HEAD') continue
    const url = r.url.replaceAll(':workspace_id', lk.workspaceId).replaceAll(':resource_id', rid).replace(/:[a-z_]+/g, crypto.randomUUID()).replace('*', 'x')
    const res = await lk.req(r.method, url, r.method === 'GET' || r.method === 'DELETE' ? undefined : {}, as)
    t.ok(res.status === 401 || res.status === 403, `${r.method} ${r.url}: ${res.status}`)
    tried++
  }
  t.ok(tried > 50, `${tried} routes tried`)
  // And an access token, however powerful, cannot act as a collector.
  t.equal((await lk.req('GET', '/v1/collector/checks')).status, 403)
})

t.test('a check moved to a collector leaves the monitor processes', async (t) => {
  const server = await startTcp()
  t.teardown(() => server.close())
  const moved = (await lk.req('POST', P, { name: 'moving', kind: 'tcp', configuration: { host: '127.0.0.1', port: server.port, interval_seconds: 1 } })).body
  const byMonitor = async (after: string) => (await lk.lookout.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM monitor_results WHERE check_id = $1 AND observed_at > $2 AND worker NOT LIKE 'collector:%'`, [moved.id, after])).rows[0]?.n ?? 0
  const deadline = Date.now() + 20_000
  while ((await byMonitor(new Date(0).toISOString())) === 0 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 200))
  t.ok((await byMonitor(new Date(0).toISOString())) > 0, 'the monitor probes a public check')
  await lk.req('POST', P, { id: moved.id, location: 'collector', source_id: sourceId })
  const after = new Date(Date.now() + 1_500).toISOString()
  await new Promise((r) => setTimeout(r, 4_000))
  t.equal(await byMonitor(after), 0, 'and stops once it is a collector check')
  const row = await lk.lookout.db.query<{ lease_owner: string | null }>('SELECT lease_owner FROM monitor_checks WHERE id = $1', [moved.id])
  t.equal(row.rows[0]?.lease_owner, null)
})

t.test('revoking the source refuses its credential with 401', async (t) => {
  t.equal((await lk.req('POST', `${P}/sources`, { action: 'revoke', source_id: sourceId })).status, 200)
  t.equal((await lk.req('GET', '/v1/collector/checks', undefined, as)).status, 401)
  t.equal((await push([obs('up')])).status, 401)
})
