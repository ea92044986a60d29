// Prometheus metrics: scraped from the real server (token on the API listener,
// and the separate LOOKOUT_METRICS_LISTEN listener), read by a Prometheus
// text-format parser, and moved by real traffic through ingest, JetStream,
// the loader and ClickHouse.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { METRICS, PROCESS_METRICS, LookoutMetrics } from '../../metrics/internal.ts'
import { buildApp } from '../../api/index.ts'
import { openPostgres } from '../../core/index.ts'
import { startTestLookout } from '../helpers/lookout.ts'
import { postgresAvailable, startTestPostgres } from '../helpers/postgres.ts'
import { Scrape } from './prometheus.ts'

const TOKEN = 'metrics-token-0123456789abcdef'
const lk = await startTestLookout({ env: { LOOKOUT_METRICS_TOKEN: TOKEN, LOOKOUT_METRICS_LISTEN: '127.0.0.1:0' } })
t.teardown(() => lk.stop())
const bearer = { authorization: `Bearer ${TOKEN}` }

interface DocRow { type: string; labels?: string; meaning: string }

/** The metric tables of metrics/README.md: `| \`name\` | type | labels | meaning |` or `| \`name\` | type | meaning |`. */
function documentedMetrics(): Map<string, DocRow> {
  const readme = readFileSync(new URL('../../metrics/README.md', import.meta.url), 'utf8')
  const rows = new Map<string, DocRow>()
  for (const line of readme.split('\n')) {
    const cells = /^\| `([a-z_:][a-z0-9_:]*)` \|(.*)\|$/.exec(line)
    if (cells === null) continue
    const rest = (cells[2] as string).split(' | ').map((c) => c.trim())
    if (rest.length === 3) rows.set(cells[1] as string, { type: rest[0] as string, labels: rest[1] as string, meaning: rest[2] as string })
    else if (rest.length === 2) rows.set(cells[1] as string, { type: rest[0] as string, meaning: rest[1] as string })
  }
  return rows
}

async function scrape(): Promise<Scrape> {
  const res = await fetch(`${lk.url}/metrics`, { headers: bearer })
  if (res.status !== 200) throw new Error(`scrape answered ${res.status}`)
  return new Scrape(await res.text())
}

const rid = await lk.resource('metrics')
const logs = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
const ROUTE = '/v1/workspaces/:workspace_id/resources/:resource_id/logs'

t.test('GET /metrics needs the metrics token; the separate listener serves it too', async (t) => {
  const none = await fetch(`${lk.url}/metrics`)
  t.equal(none.status, 401)
  const wrong = await fetch(`${lk.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}x` } })
  t.equal(wrong.status, 401)
  const apiToken = await fetch(`${lk.url}/metrics`, { headers: { authorization: `Bearer ${lk.token}` } })
  t.equal(apiToken.status, 401, 'an API token is not the metrics token')
  const ok = await fetch(`${lk.url}/metrics`, { headers: bearer })
  t.equal(ok.status, 200)
  t.match(ok.headers.get('content-type'), /^text\/plain; version=0\.0\.4/)
  t.match(await ok.text(), /# TYPE lookout_http_requests_total counter/)

  t.match(lk.lookout.metricsUrl, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/)
  t.equal((await fetch(lk.lookout.metricsUrl)).status, 401, 'the listener also wants the token when one is set')
  const viaListener = await fetch(lk.lookout.metricsUrl, { headers: bearer })
  t.equal(viaListener.status, 200)
  t.ok(new Scrape(await viaListener.text()).has('lookout_ingest_events_accepted_total'))
  t.equal((await fetch(lk.lookout.metricsUrl.replace('/metrics', '/v1/health'))).status, 404, 'the listener serves nothing else')

  // Without a token the API listener has no /metrics at all.
  const app = await buildApp({ db: lk.lookout.db, ingest: lk.lookout.ingest as never, store: lk.lookout.store, maxEventLoopDelayMs: 0, metrics: new LookoutMetrics({ processMetrics: false }) })
  t.teardown(() => app.close())
  t.equal((await app.inject({ method: 'GET', url: '/metrics', headers: bearer })).statusCode, 404)
})

t.test('every documented metric is exported with its type, read by a Prometheus parser', async (t) => {
  // Give the lazily registered series something to show.
  t.equal((await lk.req('POST', logs, { events: [{ message: 'warm' }] })).status, 200)
  await lk.waitRows(rid, 1)
  const s = await scrape()
  // Only a PostgreSQL server has a connection pool (tested below).
  for (const [name, spec] of Object.entries(METRICS).filter(([n]) => n !== 'lookout_postgres_pool_connections')) {
    t.ok(s.has(name), `${name} is exported`)
    t.equal(s.type(name), spec.type.toUpperCase(), `${name} is a ${spec.type}`)
    t.equal(s.families.get(name)?.help, spec.help, `${name} has its help`)
  }
  for (const name of PROCESS_METRICS) t.ok(s.has(name), `${name} (process) is exported`)
  // Documented: every family this scrape exports (not a list kept in the test), with its type; lookout_* with its labels and meaning.
  const rows = documentedMetrics()
  t.ok(s.families.size >= Object.keys(METRICS).length + PROCESS_METRICS.length - 1, `${s.families.size} families scraped`)
  for (const [name, family] of s.families) {
    const row = rows.get(name)
    t.ok(row, `${name} is documented in metrics/README.md`)
    t.equal(row?.type.toUpperCase(), family.type, `${name}: documented as a ${family.type.toLowerCase()}`)
    const spec = (METRICS as Record<string, { labels: readonly string[]; help: string }>)[name]
    if (name.startsWith('lookout_')) {
      t.ok(spec, `${name} is in metrics/names.ts`)
      t.equal(row?.labels, spec === undefined || spec.labels.length === 0 ? '–' : spec.labels.join(', '), `${name}: documented labels`)
      t.equal(row?.meaning, spec?.help, `${name}: documented meaning`)
    }
  }
  for (const name of [...Object.keys(METRICS), ...PROCESS_METRICS]) t.ok(rows.has(name), `${name} is documented`)
  t.ok(s.value('process_resident_memory_bytes') > 0, 'resident memory')
  t.ok(s.value('nodejs_eventloop_lag_seconds') >= 0, 'event-loop lag')
  t.equal(s.value('lookout_ready'), 1, 'the readiness gate is open')
  for (const d of ['nats', 'clickhouse', 'postgresql', 'workers']) t.equal(s.value('lookout_dependency_ready', { dependency: d }), 1, `${d} ready`)
  t.equal(s.value('lookout_clickhouse_up'), 1)
  t.equal(s.value('lookout_postgres_up'), 1)
  t.ok(s.value('lookout_postgres_ping_seconds') > 0)
  t.equal(s.samples('lookout_postgres_pool_connections').length, 0, 'no pool on the embedded PostgreSQL')
  t.equal(s.value('lookout_jetstream_up'), 1)
  t.equal(s.value('lookout_worker_pool_max_threads'), 2, 'LOOKOUT_WORKERS=2')
  const live = s.value('lookout_worker_pool_threads')
  t.ok(live >= 0 && live <= 2, `${live} workers running: none needed at idle, at most LOOKOUT_WORKERS`)
  t.equal(s.value('lookout_worker_pool_queue_size'), 0)
  const u = s.value('lookout_worker_pool_utilization')
  t.ok(u >= 0 && u <= 1, `utilization ${u} is a share`)
  t.equal(s.value('lookout_ingest_inflight_limit_bytes'), lk.lookout.config.maxInFlightBytes)
})

t.test('per-route request counts and latency histograms', async (t) => {
  const before = await scrape()
  const route = '/v1/workspaces/:workspace_id/resources/:resource_id'
  for (let i = 0; i < 5; i++) t.equal((await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}`)).status, 200)
  t.equal((await lk.req('GET', `/v1/workspaces/${lk.workspaceId}/resources/${rid}`, undefined, { authorization: '' })).status, 401)
  t.equal((await lk.req('GET', '/v1/no/such/route?secret=1')).status, 404)
  const after = await scrape()
  const d = (name: string, labels: Record<string, string>, f: 'value' | 'count' = 'value') => after[f](name, labels) - before[f](name, labels)
  t.equal(d('lookout_http_requests_total', { method: 'GET', route, status_code: '200' }), 5)
  t.equal(d('lookout_http_requests_total', { method: 'GET', route, status_code: '401' }), 1)
  t.equal(d('lookout_http_request_duration_seconds', { method: 'GET', route }, 'count'), 6, 'one latency observation per request')
  t.ok(after.sum('lookout_http_request_duration_seconds', { method: 'GET', route }) > before.sum('lookout_http_request_duration_seconds', { method: 'GET', route }))
  t.equal(d('lookout_http_errors_total', { method: 'GET', route, code: 'auth_missing' }), 1)
  t.equal(d('lookout_http_requests_total', { route: 'unmatched', status_code: '404' }), 1, 'unknown paths share one label')
  t.notOk(after.text.includes('secret=1') || after.text.includes('/v1/no/such'), 'no raw path in a label')
})

t.test('ingest: accepted events and bytes per request, refusals by the code the sender got', async (t) => {
  const before = await scrape()
  const batch = { events: Array.from({ length: 1000 }, (_, i) => ({ message: `m${i}`, severity: 'INFO' })) }
  const body = JSON.stringify(batch)
  t.equal((await lk.req('POST', logs, body, { 'content-type': 'application/json' })).status, 200)
  const gz = gzipSync(JSON.stringify({ events: [{ message: 'zipped' }, { message: 'zipped 2' }] }))
  t.equal((await lk.req('POST', logs, gz, { 'content-type': 'application/json', 'content-encoding': 'gzip' })).status, 200)
  const invalid = JSON.stringify({ events: [] })
  t.equal((await lk.req('POST', logs, invalid, { 'content-type': 'application/json' })).status, 422)
  t.equal((await lk.req('POST', logs, 'x', { 'content-type': 'text/plain' })).status, 415)
  t.equal((await lk.req('POST', logs, body, { 'content-type': 'application/json', authorization: 'Bearer nope' })).status, 401)
  // OTLP JSON: one record in the window, one from the year 2000 (refused inside an accepted request).
  const otlp = {
    resourceLogs: [{
      resource: { attributes: [{ key: 'service.name', value: { stringValue: 'svc' } }] },
      scopeLogs: [{ logRecords: [
        { timeUnixNano: String(BigInt(Date.now()) * 1_000_000n), body: { stringValue: 'fresh' } },
        { timeUnixNano: '946684800000000000', body: { stringValue: 'ancient' } },
      ] }],
    }],
  }
  const partial = await lk.req('POST', `${logs.replace('/logs', '/otlp/v1/logs')}`, otlp)
  t.equal(partial.status, 200)
  t.equal(partial.body.partialSuccess.rejectedLogRecords, '1')

  const after = await scrape()
  const d = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels)
  t.equal(d('lookout_ingest_requests_accepted_total', { route: 'json' }), 2, 'counted per request')
  t.equal(d('lookout_ingest_events_accepted_total', { route: 'json' }), 1002)
  t.equal(d('lookout_ingest_bytes_accepted_total', { route: 'json' }), Buffer.byteLength(body) + gz.byteLength, 'bytes as sent')
  t.equal(d('lookout_ingest_requests_rejected_total', { route: 'json', reason: 'validation' }), 1)
  t.equal(d('lookout_ingest_bytes_rejected_total', { route: 'json', reason: 'validation' }), Buffer.byteLength(invalid))
  t.equal(d('lookout_ingest_requests_rejected_total', { route: 'json', reason: 'ingest_media_type' }), 1)
  t.equal(d('lookout_ingest_requests_rejected_total', { route: 'json', reason: 'auth_invalid' }), 1)
  t.equal(d('lookout_ingest_requests_accepted_total', { route: 'otlp' }), 1)
  t.equal(d('lookout_ingest_events_accepted_total', { route: 'otlp' }), 1)
  t.equal(d('lookout_ingest_events_rejected_total', { route: 'otlp', reason: 'invalid_record' }), 1)
  t.equal(d('lookout_http_requests_total', { route: ROUTE, method: 'POST', status_code: '200' }), 2)

  // Every publish acknowledged by the stream was timed; the loader loaded every accepted row.
  t.ok(d('lookout_jetstream_publishes_total', { result: 'stored' }) >= 3, 'one publish per message at least')
  t.equal(after.count('lookout_jetstream_publish_duration_seconds') - before.count('lookout_jetstream_publish_duration_seconds'),
    d('lookout_jetstream_publishes_total', { result: 'stored' }) + d('lookout_jetstream_publishes_total', { result: 'duplicate' }))
  t.ok(d('lookout_jetstream_publish_bytes_total', {}) > Buffer.byteLength(body), 'encoded rows published')
})

t.test('loader, stream backlog and consumer state follow the rows into ClickHouse', async (t) => {
  const before = await scrape()
  const rid2 = await lk.resource('metrics-loader')
  const events = Array.from({ length: 300 }, (_, i) => ({ message: `row ${i}` }))
  t.equal((await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid2}/logs`, { events })).status, 200)
  t.equal((await lk.waitRows(rid2, 300)).length, 300)
  // Rows are visible in ClickHouse a moment before the insert call returns to the loader, which then
  // counts and acknowledges: give the counters and the consumer state that moment.
  const settled = (m: typeof before) => m.value('lookout_jetstream_consumer_ack_pending') + m.value('lookout_jetstream_consumer_pending') === 0 &&
    m.value('lookout_loader_rows_total') - before.value('lookout_loader_rows_total') >= 300
  let after = await scrape()
  for (let i = 0; i < 50 && !settled(after); i++) {
    await new Promise((r) => setTimeout(r, 100))
    after = await scrape()
  }
  t.ok(after.value('lookout_loader_rows_total') - before.value('lookout_loader_rows_total') >= 300, 'rows loaded')
  t.ok(after.value('lookout_loader_batches_total') > before.value('lookout_loader_batches_total'), 'batches loaded')
  t.ok(after.value('lookout_loader_messages_total') > before.value('lookout_loader_messages_total'))
  t.ok(after.count('lookout_loader_insert_duration_seconds', { result: 'ok' }) > before.count('lookout_loader_insert_duration_seconds', { result: 'ok' }), 'insert latency observed')
  t.ok(after.count('lookout_loader_batch_bytes') > before.count('lookout_loader_batch_bytes'))
  t.ok(after.value('lookout_loader_last_batch_rows') > 0)
  t.equal(after.value('lookout_loader_insert_errors_total'), 0)
  t.equal(after.value('lookout_jetstream_consumer_pending'), 0, 'backlog drained')
  t.equal(after.value('lookout_jetstream_consumer_ack_pending'), 0)
  t.equal(after.value('lookout_jetstream_stream_messages'), 0, 'work queue emptied')
  t.equal(after.value('lookout_jetstream_dead_letter_messages'), 0)
})

t.test('PostgreSQL server: pool connections and ping, and down when it stops', { skip: !postgresAvailable() && 'no PostgreSQL binaries' }, async (t) => {
  const server = await startTestPostgres()
  t.teardown(() => server.stop())
  const db = await openPostgres(server.url, 3)
  t.teardown(() => db.close())
  const metrics = new LookoutMetrics({ processMetrics: false })
  metrics.watchDatabase(db)
  await Promise.all([db.query('SELECT pg_sleep(0.05)'), db.query('SELECT 1'), db.query('SELECT 2')])
  let s = new Scrape(await metrics.text())
  t.equal(s.value('lookout_postgres_up'), 1)
  t.ok(s.value('lookout_postgres_pool_connections', { state: 'total' }) >= 1, 'connections open')
  t.same(s.samples('lookout_postgres_pool_connections').map((x) => x.labels.state).sort(), ['idle', 'total', 'waiting'])
  t.ok(s.value('lookout_postgres_pool_connections', { state: 'idle' }) <= s.value('lookout_postgres_pool_connections', { state: 'total' }))
  await server.stop()
  await new Promise((r) => setTimeout(r, 600)) // past the per-scrape cache
  s = new Scrape(await metrics.text())
  t.equal(s.value('lookout_postgres_up'), 0, 'a stopped server reads as down')
})

t.test('the hook API for the monitor and outbound deliveries', async (t) => {
  const m = lk.lookout.metrics
  const before = await scrape()
  m.checkRun('tcp', 'up')
  m.checkRun('tcp', 'up')
  m.checkRun('https', 'down')
  m.delivery('webhook', 'delivered', 0.2)
  m.delivery('webhook', 'retry', 1.5)
  const after = await scrape()
  const d = (name: string, labels: Record<string, string>) => after.value(name, labels) - before.value(name, labels)
  t.equal(d('lookout_monitor_checks_total', { kind: 'tcp', result: 'up' }), 2)
  t.equal(d('lookout_monitor_checks_total', { kind: 'https', result: 'down' }), 1)
  t.equal(d('lookout_deliveries_total', { channel: 'webhook', outcome: 'delivered' }), 1)
  t.equal(after.count('lookout_delivery_duration_seconds', { channel: 'webhook' }) - before.count('lookout_delivery_duration_seconds', { channel: 'webhook' }), 2)
  t.ok(after.has('lookout_monitor_checks_owned'), 'the monitor role\'s own state is exported')
})

t.test('the Grafana dashboard queries only exported metrics and covers each part', async (t) => {
  const dash = JSON.parse(readFileSync(new URL('../../deploy/grafana/lookout.json', import.meta.url), 'utf8'))
  t.equal(typeof dash.title, 'string')
  t.ok(Array.isArray(dash.panels) && dash.panels.length >= 12, `${dash.panels.length} panels`)
  const known = new Set<string>([...Object.keys(METRICS), ...PROCESS_METRICS])
  const exprs: string[] = []
  for (const p of dash.panels) for (const target of p.targets ?? []) exprs.push(String(target.expr))
  const used = new Set<string>()
  for (const e of exprs) {
    for (const [name] of e.matchAll(/\b(?:lookout|process|nodejs)_[a-z0-9_]+/g)) {
      const base = name.replace(/_(bucket|sum|count)$/, '')
      t.ok(known.has(name) || known.has(base), `${name} (in ${e}) is exported`)
      used.add(known.has(name) ? name : base)
    }
  }
  for (const prefix of ['lookout_http_', 'lookout_ingest_', 'lookout_worker_pool_', 'lookout_jetstream_', 'lookout_loader_', 'lookout_clickhouse_',
    'lookout_postgres_', 'lookout_monitor_', 'lookout_deliveries', 'lookout_dependency_ready', 'process_resident_memory_bytes', 'nodejs_eventloop_lag']) {
    t.ok([...used].some((n) => n.startsWith(prefix)), `a panel shows ${prefix}*`)
  }
  t.ok(dash.templating?.list?.some((v: { type: string }) => v.type === 'datasource'), 'the Prometheus data source is a variable')
})
