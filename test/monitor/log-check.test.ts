// The `log` check kind end to end on a real server (NATS, chdb, PGlite):
// validation at every edge, `above` (an incident with the matching lines in
// its reason, on the incident page and in a delivered webhook payload with the
// console link), recovery after two observations, `below` (silence), and the
// filter table held equal to the log query route's.
import t from 'tap'
import { LOG_QUERY_FILTERS } from '../../monitor/internal.ts'
import { CLOUD_TAIL_QUERY } from '../../query/index.ts'
import { startHttpReceiver, waitFor } from '../alerting/alerts/receivers.ts'
import { verifiedWebhook, startOnCallLookout } from '../helpers/on-call.ts'

const http = await startHttpReceiver()
const lk = await startOnCallLookout({ LOOKOUT_PUBLIC_URL: 'https://lookout.example.test/' })
t.teardown(async () => {
  await lk.stop()
  await http.close()
})
const W = `/v1/workspaces/${lk.workspaceId}`
const rid = await lk.resource('payments')
const M = `${W}/resources/${rid}/monitoring`
const logCheck = (configuration: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  lk.req('POST', M, { name: 'payment errors', kind: 'log', configuration, ...extra })
const good = { query: { q: 'payment declined', severity: 'ERROR' }, window_seconds: 300, threshold: 50, comparison: 'above', interval_seconds: 60 }

t.test('the filters are the log query route\'s (q, severity, trace_id), with its rules', async (t) => {
  t.same(LOG_QUERY_FILTERS, CLOUD_TAIL_QUERY.properties, 'a new filter of the query route must be added to LOG_QUERY_FILTERS too')
})

t.test('configuration is validated with the contract\'s 422 body', async (t) => {
  const ok = await logCheck(good)
  t.equal(ok.status, 200, JSON.stringify(ok.body))
  t.same(ok.body.configuration, { ...good, timeout_seconds: 10 })
  const defaults = await logCheck({ threshold: 0 })
  t.same(defaults.body.configuration, { query: {}, window_seconds: 300, threshold: 0, comparison: 'above', interval_seconds: 120, timeout_seconds: 10 }, 'defaults shown back')
  const bad = async (configuration: Record<string, unknown>, loc: (string | number)[], type: string, extra: Record<string, unknown> = {}) => {
    const r = await logCheck(configuration, extra)
    t.equal(r.status, 422, JSON.stringify(configuration))
    const hit = r.body.detail?.find((d: { loc: unknown[] }) => JSON.stringify(d.loc) === JSON.stringify(loc))
    t.ok(hit, `${JSON.stringify(loc)} in ${JSON.stringify(r.body.detail).slice(0, 300)}`)
    t.equal(hit?.type, type)
  }
  const C = ['body', 'configuration']
  await bad({ ...good, query: { ...good.query, q: 'x'.repeat(501) } }, [...C, 'query', 'q'], 'string_too_long')
  t.equal((await logCheck({ ...good, query: { q: 'x'.repeat(500) } })).status, 200, 'q of 500 characters')
  await bad({ ...good, query: { severity: 'LOUD' } }, [...C, 'query', 'severity'], 'enum')
  await bad({ ...good, query: { severity: 'error' } }, [...C, 'query', 'severity'], 'enum')
  await bad({ ...good, query: { trace_id: 'ABC' } }, [...C, 'query', 'trace_id'], 'string_pattern_mismatch')
  await bad({ ...good, query: { 'attr.http.status': '500' } }, [...C, 'query', 'attr.http.status'], 'extra_forbidden')
  await bad({ ...good, query: 'payment declined' }, [...C, 'query'], 'dict_type')
  await bad({ ...good, window_seconds: 9 }, [...C, 'window_seconds'], 'greater_than_equal')
  await bad({ ...good, window_seconds: 86_401 }, [...C, 'window_seconds'], 'less_than_equal')
  t.equal((await logCheck({ ...good, window_seconds: 10 })).status, 200, 'window 10 s')
  t.equal((await logCheck({ ...good, window_seconds: 86_400 })).status, 200, 'window a day')
  const { threshold: _t, ...noThreshold } = good
  await bad(noThreshold, [...C, 'threshold'], 'missing')
  await bad({ ...good, threshold: -1 }, [...C, 'threshold'], 'greater_than_equal')
  await bad({ ...good, threshold: 1.5 }, [...C, 'threshold'], 'int_type')
  await bad({ ...good, threshold: 1_000_000_001 }, [...C, 'threshold'], 'less_than_equal')
  await bad({ ...good, comparison: 'equal' }, [...C, 'comparison'], 'enum')
  await bad({ ...good, comparison: 'below', threshold: 0 }, [...C, 'threshold'], 'value_error')
  await bad({ ...good, interval_seconds: 0 }, [...C, 'interval_seconds'], 'greater_than_equal')
  await bad({ ...good, timeout_seconds: 61 }, [...C, 'timeout_seconds'], 'value_error')
  await bad({ ...good, url: 'https://example.com' }, [...C, 'url'], 'extra_forbidden')
  await bad(good, ['body', 'location'], 'value_error', { location: 'collector' })
  await bad(good, ['body', 'location'], 'value_error', { location: 'heartbeat' })
  // Every problem at once.
  const many = await logCheck({ ...good, window_seconds: 5, comparison: 'equal', query: { severity: 'LOUD' } })
  t.equal(many.body.detail.length, 3, 'all three problems reported together')
})

/** Sends lines stamped now (the test's clock) to the resource. */
async function send(resourceId: string, lines: { message: string; severity: string }[]): Promise<void> {
  const now = Date.now()
  const events = lines.map((l, i) => ({ ...l, timestamp: new Date(now - (lines.length - i)).toISOString() }))
  const r = await lk.req('POST', `${W}/resources/${resourceId}/logs`, { events })
  if (r.status !== 200) throw new Error(`ingest ${r.status} ${JSON.stringify(r.body)}`)
}

t.test('above: matching lines open an incident quoting them; the webhook carries them and a console link; it recovers after two observations', async (t) => {
  const svc = await lk.resource('checkout')
  await verifiedWebhook(lk, svc, http, '/log-alerts')
  const matching = Array.from({ length: 7 }, (_, i) => ({ message: `payment declined for order ${i}`, severity: 'ERROR' }))
  // Noise the query must not count: another text, a lower level.
  await send(svc, [{ message: 'payment accepted', severity: 'ERROR' }, { message: 'payment declined (retrying)', severity: 'INFO' }])
  const check = await lk.req('POST', `${W}/resources/${svc}/monitoring`, {
    name: 'declines', kind: 'log', configuration: { query: { q: 'payment declined', severity: 'ERROR' }, window_seconds: 10, threshold: 5, interval_seconds: 1, timeout_seconds: 1 },
  })
  t.equal(check.status, 200)
  const up = await waitFor(async () => {
    const c = (await lk.req('GET', `${W}/resources/${svc}/monitoring`)).body.checks.find((x: { id: string }) => x.id === check.body.id)
    return c?.health === 'healthy' ? c : undefined
  }, 'healthy while only noise is logged')
  t.match(up.last_result, { status: 'up', code: 'LOOKOUT_PROBE_OK', details: { log: { count: 0, threshold: 5, comparison: 'above' } } })
  await send(svc, matching)
  const opened = await waitFor(() => http.on('/log-alerts').find((r) => r.json?.type === 'incident.opened')?.json, 'the incident alert')
  const log = opened.incident.log
  t.equal(log.count, 7)
  t.match(log, { threshold: 5, comparison: 'above', window_seconds: 10, query: { q: 'payment declined', severity: 'ERROR' } })
  t.same(log.samples.map((s: { message: string }) => s.message), ['payment declined for order 6', 'payment declined for order 5', 'payment declined for order 4', 'payment declined for order 3', 'payment declined for order 2'], 'five newest first')
  t.equal(log.samples[0].severity, 'ERROR')
  t.match(log.samples[0].time, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$/)
  t.equal(Date.parse(log.window_end) - Date.parse(log.window_start), 10_000)
  const u = new URL(log.console_url)
  t.equal(`${u.origin}/`, 'https://lookout.example.test/')
  t.match(u.hash, new RegExp(`^#/logs/${svc}\\?`))
  const params = new URLSearchParams(u.hash.slice(u.hash.indexOf('?') + 1))
  t.same([params.get('q'), params.get('severity'), params.get('start'), params.get('end')], ['payment declined', 'ERROR', log.window_start, log.window_end], 'the exact query over the absolute window')
  t.match(opened.incident.reason, /7 lines matched "payment declined", severity ≥ ERROR in 10 s .* above the threshold of 5; newest: \[.*ERROR\] payment declined for order 6/)
  t.equal(opened.incident.code, 'LOOKOUT_PROBE_LOG_THRESHOLD')

  const page = await lk.req('GET', `${W}/resources/${svc}/monitoring/incidents/${opened.incident.id}`)
  t.equal(page.status, 200)
  t.equal(page.body.log.count, 7)
  t.equal(page.body.log.samples.length, 5)
  t.match(page.body.log.explorer, new RegExp(`^#/logs/${svc}\\?start=`))
  t.match(page.body.incident.open_reason, /7 lines matched/)
  // Confirmed and notified: the next downs are counted without their lines; the page keeps those of the confirming observation.
  const five = log.samples.map((s: { message: string }) => s.message)
  const later = await waitFor(async () => {
    const p = (await lk.req('GET', `${W}/resources/${svc}/monitoring/incidents/${opened.incident.id}`)).body
    return p.observations.some((o: { status: string; observed_at: string }) => o.status === 'down' && o.observed_at > p.incident.opened_at) ? p : undefined
  }, 'a down observation after the opening')
  const steady = later.observations.find((o: { status: string; observed_at: string }) => o.status === 'down' && o.observed_at > later.incident.opened_at)
  t.same(steady.details.log.samples, [], 'a steady down carries no lines')
  t.ok(steady.details.log.count > 5)
  t.same(later.log.samples.map((s: { message: string }) => s.message), five, 'the incident page still shows the lines')
  // The day's retention prunes the confirming observations: the incident keeps the evidence it opened with.
  await lk.lookout.db.query('DELETE FROM monitor_results WHERE check_id = $1 AND observed_at <= $2', [check.body.id, later.incident.opened_at])
  const pruned = (await lk.req('GET', `${W}/resources/${svc}/monitoring/incidents/${opened.incident.id}`)).body
  t.equal(pruned.timeline.filter((e: { type: string }) => e.type === 'observation').length, 0, 'no confirming observation left')
  t.same(pruned.log.samples.map((s: { message: string }) => s.message), five, 'the lines it opened with')
  t.equal(pruned.log.window_end, log.window_end)

  // The lines leave the 10 s window: two observations under the threshold close it.
  const closed = await waitFor(() => http.on('/log-alerts').find((r) => r.json?.type === 'incident.closed')?.json, 'the recovery alert', 40_000)
  t.equal(closed.incident.id, opened.incident.id)
  t.ok(closed.incident.log.count <= 5)
  const transitions = (await lk.req('GET', `${W}/resources/${svc}/monitoring?view=history`)).body.items
  t.ok(transitions.some((x: { to: string }) => x.to === 'healthy'))
  const results = (await lk.req('GET', `${W}/resources/${svc}/monitoring/results?check_id=${check.body.id}&limit=500`)).body.items
  const closeAt = Date.parse(closed.incident.closed_at)
  const lastTwo = results.filter((r: { observed_at: string }) => Date.parse(r.observed_at) <= closeAt).slice(0, 2)
  t.same(lastTwo.map((r: { status: string }) => r.status), ['up', 'up'], 'closed by the second observation under the threshold')
})

t.test('below: silence opens an incident, a line closes it again', async (t) => {
  const job = await lk.resource('nightly-backup')
  await verifiedWebhook(lk, job, http, '/silence')
  const check = await lk.req('POST', `${W}/resources/${job}/monitoring`, {
    name: 'backup done', kind: 'log', configuration: { query: { q: '"backup done"' }, window_seconds: 10, threshold: 1, comparison: 'below', interval_seconds: 1, timeout_seconds: 1 },
  })
  t.equal(check.status, 200)
  const opened = await waitFor(() => http.on('/silence').find((r) => r.json?.type === 'incident.opened')?.json, 'the silence alert')
  t.match(opened.incident.reason, /^0 lines matched "\\"backup done\\"" in 10 s .* below the threshold of 1$/)
  t.same(opened.incident.log.samples, [])
  await send(job, [{ message: 'backup done in 42 s', severity: 'INFO' }])
  const closed = await waitFor(() => http.on('/silence').find((r) => r.json?.type === 'incident.closed')?.json, 'the recovery')
  t.equal(closed.incident.log.count, 1)
  t.same(closed.incident.log.samples.map((x: { message: string }) => x.message), ['backup done in 42 s'], 'the line that ended the silence')
  const text = await lk.req('GET', `${W}/notifications`)
  t.ok(text.body.items.some((n: { incident_id: string; kind: string }) => n.incident_id === opened.incident.id && n.kind === 'incident.closed'))
})

t.test('desktop route: the same kind, validated in the desktop shape', async (t) => {
  const r = await lk.ownerReq('POST', '/v1/monitoring/checks', { resource_id: rid, name: 'local errors', required: true, config: { kind: 'log', query: { severity: 'FATAL' }, threshold: 0 } })
  t.equal(r.status, 201, JSON.stringify(r.body))
  t.equal(r.body.kind, 'log')
  const bad = await lk.ownerReq('POST', '/v1/monitoring/checks', { resource_id: rid, name: 'bad', required: true, config: { kind: 'log', threshold: 1, window_seconds: 1 } })
  t.equal(bad.status, 400)
  t.equal(bad.body.error.code, 'LOOKOUT_VALIDATION')
})
