// A log check is unknown, never up or down, when it cannot know: the log
// store does not answer (a ClickHouse URL nothing listens on, through the
// monitor role's own log source), or the loader's backlog holds lines
// received before the window's end (a real server whose loader role is not
// running, so accepted lines wait in JetStream).
import t from 'tap'
import { openLogStore } from '../../ingest/index.ts'
import { PROBE_REASONS } from '../../monitor/index.ts'
import { StoreLogSource } from '../../deploy/roles/log-source.ts'
import { harness } from '../helpers/monitor-harness.ts'
import { startTestLookout } from '../helpers/lookout.ts'
import { closedPort, waitFor } from '../alerting/alerts/receivers.ts'

t.test('the store cannot answer: unknown, and no incident however long', async (t) => {
  const h = await harness()
  t.teardown(() => h.close())
  const store = openLogStore({ url: `http://127.0.0.1:${await closedPort()}` })
  t.teardown(() => store.close())
  const rid = await h.resource()
  // A silence alarm: a store that cannot count must not look like silence.
  const c = await h.check(rid, 'log', { query: { q: 'backup done' }, window_seconds: 60, threshold: 1, comparison: 'below', interval_seconds: 60, timeout_seconds: 2 })
  const m = await h.monitor({ logs: new StoreLogSource(store, null) })
  for (let i = 0; i < 3; i++) {
    await m.step()
    await h.advance(60_000, [m], 60_000)
  }
  const row = await waitFor(async () => {
    const r = await h.row(c.id)
    return r.last_status !== null ? r : undefined
  }, 'an observation')
  t.equal(row.last_status, 'unknown')
  t.equal(row.last_code, PROBE_REASONS.logUnavailable)
  t.match(row.last_reason, /^the log store cannot answer: /)
  t.not(row.health, 'unhealthy')
  t.equal(row.open_incident_id, null)
})

t.test('the loader lags behind the window: unknown with the backlog named', async (t) => {
  // api + monitor, no loader: accepted lines stay in the stream.
  const lk = await startTestLookout({ roles: ['api', 'monitor'] })
  t.teardown(() => lk.stop())
  const rid = await lk.resource('lagging')
  const W = `/v1/workspaces/${lk.workspaceId}/resources/${rid}`
  const sent = await lk.req('POST', `${W}/logs`, { events: [{ message: 'backup done', severity: 'INFO', timestamp: new Date().toISOString() }] })
  t.equal(sent.status, 200)
  const check = await lk.req('POST', `${W}/monitoring`, {
    name: 'silence', kind: 'log', configuration: { query: { q: 'backup done' }, window_seconds: 10, threshold: 1, comparison: 'below', interval_seconds: 1, timeout_seconds: 1 },
  })
  t.equal(check.status, 200)
  const results = await waitFor(async () => {
    const r = await lk.req('GET', `${W}/monitoring/results?check_id=${check.body.id}`)
    return r.body.items.length >= 3 ? r.body.items : undefined
  }, 'three observations')
  for (const r of results) {
    t.equal(r.status, 'unknown')
    t.equal(r.code, PROBE_REASONS.logLagging)
    t.match(r.reason, /^the loader's backlog starts at .*, before the window's end/)
  }
  const c = (await lk.req('GET', `${W}/monitoring`)).body.checks[0]
  t.equal(c.health, 'unknown', 'never a false silence alarm while ingest lags')
  t.equal(c.open_incident_id, null)
})
