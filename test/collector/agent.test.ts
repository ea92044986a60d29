// `lookout collector` in its own process against a real Lookout: it probes a
// password-protected PostgreSQL (the password only in the collector's
// environment) and a TCP port no monitor process is configured for, through a
// relay the test cuts to make the API unreachable.
import t, { type Test } from 'tap'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { startTestLookout } from '../helpers/lookout.ts'
import { postgresAvailable } from '../helpers/postgres.ts'
import { startPostgresServer, startTcp } from '../helpers/servers.ts'
import { spawnCollector, startRelay, until, type CollectorProcess } from '../helpers/collector-process.ts'

const lk = await startTestLookout({ env: { LOOKOUT_COLLECTOR_SILENCE_MIN_SECONDS: '4', LOOKOUT_COLLECTOR_WATCH_MS: '300' }, deliveries: { onToast: () => undefined } })
t.teardown(() => lk.stop())
const db = lk.lookout.db
const rid = await lk.resource('private-net')
const P = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`
const relay = await startRelay(Number(new URL(lk.url).port))
t.teardown(() => relay.close())
const tcp = await startTcp()
t.teardown(() => tcp.close())
const pg = postgresAvailable() ? await startPostgresServer() : null
t.teardown(() => pg?.stop())
const dataDir = mkdtempSync(join(tmpdir(), 'lookout-collector-'))
t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))

const enrolled = await lk.req('POST', `${P}/sources`, { action: 'enroll', name: 'dc-1', kind: 'collector' })
const sourceId: string = enrolled.body.source.id
const token: string = enrolled.body.token
const tcpCheck = (await lk.req('POST', P, {
  name: 'private port', kind: 'tcp', location: 'collector', source_id: sourceId, configuration: { host: '127.0.0.1', port: tcp.port, interval_seconds: 1 },
})).body
const pgCheck = pg === null ? null : (await lk.req('POST', P, {
  name: 'private postgres', kind: 'postgresql', location: 'collector', source_id: sourceId, credential: { env: 'LOOKOUT_SECRET_PG' },
  configuration: { host: pg.host, port: pg.port, user: pg.user, database: 'postgres', interval_seconds: 2, timeout_seconds: 2 },
})).body
const collectorEnv: Record<string, string> = pg === null ? {} : { LOOKOUT_SECRET_PG: pg.password }
// Left in the buffer by an earlier run: one observation the API refuses for its content, then a good one.
const leftOver = { id: crypto.randomUUID(), check_id: tcpCheck.id, revision: tcpCheck.revision, observed_at: new Date().toISOString(),
  status: 'up', code: 'LOOKOUT_PROBE_OK', reason: 'from the previous run', latency_ms: 1, details: null }
writeFileSync(join(dataDir, 'observations.jsonl'), JSON.stringify({ ...leftOver, id: crypto.randomUUID(), status: 'sideways' }) + '\n' + JSON.stringify(leftOver) + '\n')
let collector: CollectorProcess = spawnCollector(relay.url, token, dataDir, collectorEnv)
t.teardown(() => collector.kill9())

const status = async () => (await lk.req('GET', P)).body
const checkView = async (id: string) => (await status()).checks.find((c: { id: string }) => c.id === id)
const healthIs = (id: string, health: string) => until(`${id} ${health}`, async () => ((await checkView(id)).health === health ? true : undefined), 40_000)
const transitions = async (id: string, since: string) => (await db.query<{ from_health: string; to_health: string; at: Date }>(
  'SELECT from_health, to_health, at FROM monitor_transitions WHERE check_id = $1 AND at >= $2 ORDER BY id', [id, since])).rows
const results = async (id: string, since: string) => (await db.query<{ status: string; observed_at: Date; details: Record<string, unknown> | null; worker: string }>(
  'SELECT status, observed_at, details, worker FROM monitor_results WHERE check_id = $1 AND observed_at >= $2 ORDER BY observed_at', [id, since])).rows

t.test('the collector runs its checks; only it probes them', async (t) => {
  await healthIs(tcpCheck.id, 'healthy')
  if (pgCheck !== null) await healthIs(pgCheck.id, 'healthy')
  else t.comment('PostgreSQL (Debian package postgresql) not installed: database check skipped')
  const rows = await results(tcpCheck.id, new Date(0).toISOString())
  t.ok(rows.length >= 2)
  t.ok(rows.every((r) => r.worker === `collector:${sourceId}`), 'no monitor process probed the collector check')
  const ledger = await db.query<{ outcome: string }>('SELECT outcome FROM monitor_collector_observations WHERE id = $1', [leftOver.id])
  t.equal(ledger.rows.length, 1, 'an observation buffered by an earlier run was sent')
  t.match(collector.output(), /an observation was refused and dropped/, 'the refused one alone was dropped')
  const second = spawnCollector(relay.url, token, dataDir, collectorEnv)
  t.equal(await second.exited, 1, 'a second collector on the same data directory refuses to start')
  t.match(second.output(), /data directory cannot be used: collector pid \d+ runs on/)
  const source = (await status()).sources.find((s: { id: string }) => s.id === sourceId)
  t.equal(source.version, '0.1.0')
  t.equal(source.address, '127.0.0.1')
  t.ok(Date.now() - Date.parse(source.last_contact_at) < 5_000)
  t.equal(source.offline_since, null)
})

/** The transition to `to` happened at the second of two consecutive `obs` observations. */
async function confirmedAtSecond(t: Test, id: string, since: string, obs: string, to: string): Promise<void> {
  const tr = (await transitions(id, since)).find((x) => x.to_health === to)
  t.ok(tr, `a transition to ${to}`)
  const rows = await results(id, since)
  const first = rows.findIndex((r) => r.status === obs)
  t.ok(first >= 0 && rows[first + 1]?.status === obs, 'two observations in a row')
  t.equal(new Date(tr?.at as Date).getTime(), new Date(rows[first + 1]?.observed_at as Date).getTime(), `${to} at the second ${obs} observation`)
}

t.test('the port closes: down after two observations; reopens: up after two', async (t) => {
  const since = new Date().toISOString()
  await tcp.close()
  await healthIs(tcpCheck.id, 'unhealthy')
  await confirmedAtSecond(t, tcpCheck.id, since, 'down', 'unhealthy')
  const back = new Date().toISOString()
  await tcp.reopen()
  await healthIs(tcpCheck.id, 'healthy')
  await confirmedAtSecond(t, tcpCheck.id, back, 'up', 'healthy')
})

t.test('a paused check stops within an interval; resumed, it runs again', async (t) => {
  if (pgCheck === null) {
    t.comment('no PostgreSQL: skipped')
    return
  }
  const view = await checkView(pgCheck.id)
  await lk.req('POST', P, { id: pgCheck.id, enabled: false })
  const pausedAt = Date.now()
  // Stopped means quiet: no result for three of its 2 s intervals, reached within a few intervals of the pause.
  const lastResult = async () => Math.max(pausedAt, ...(await results(pgCheck.id, new Date(pausedAt - 60_000).toISOString())).map((r) => r.observed_at.getTime()))
  const last = await until('no result for three intervals', async () => { const at = await lastResult(); return Date.now() - at > 6_000 ? at : undefined }, 30_000)
  t.ok(last - pausedAt < 4_000, `the last result came within an interval and a poll of the pause (${last - pausedAt} ms)`)
  const paused = new Date(last + 1).toISOString()
  t.same(await results(pgCheck.id, paused), [], 'no result after the pause took effect')
  // Not only fenced off by the server: the collector stopped sending (the ledger keeps refused ones too).
  // The ledger has the receive time: the last observation may arrive up to a push (250 ms) and a retry
  // after it was made, so count from 2 s after it; a collector still probing every 2 s would have sent
  // more in the 4 s that remain of the quiet window.
  const settled = new Date(last + 2_000).toISOString()
  const sent = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_collector_observations WHERE check_id = $1 AND received_at > $2', [pgCheck.id, settled])
  t.equal(sent.rows[0]?.n, 0, 'the collector stopped probing it')
  await lk.req('POST', P, { id: pgCheck.id, enabled: true })
  await until('results again', async () => ((await results(pgCheck.id, paused)).length > 0 ? true : undefined))
  t.ok(view.revision < (await checkView(pgCheck.id)).revision)
})

t.test('API unreachable, collector killed: unknown after the silence, one incident; buffered observations arrive once each', async (t) => {
  await healthIs(tcpCheck.id, 'healthy')
  const since = new Date().toISOString()
  await relay.cut()
  // While it cannot report, the port goes down for a while: that evidence goes stale in the buffer.
  await tcp.close()
  await until('source offline', async () => ((await status()).sources.find((s: { id: string }) => s.id === sourceId).offline_since ? true : undefined), 30_000)
  t.equal((await checkView(tcpCheck.id)).health, 'unknown', 'silent: unknown')
  const killedAt = Date.now()
  t.equal(await collector.kill9(), 'SIGKILL')
  await tcp.reopen()
  await new Promise((r) => setTimeout(r, 2_000))
  const open = await db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM monitor_incidents WHERE source_id = $1 AND kind = 'collector_offline' AND closed_at IS NULL`, [sourceId])
  t.equal(open.rows[0]?.n, 1, 'one collector offline incident, however many watch rounds saw the silence')
  const incidents = (await lk.req('GET', `${P}?view=incidents`)).body.items.filter((i: { kind: string }) => i.kind === 'collector_offline')
  t.equal(incidents.length, 1)
  t.equal(incidents[0].source_id, sourceId)
  t.equal(incidents[0].check_id, null)
  // A new process on the same data directory: what the killed one buffered is still there.
  collector = spawnCollector(relay.url, token, dataDir, collectorEnv)
  await new Promise((r) => setTimeout(r, 2_000))
  await relay.restore()
  await until('incident closed', async () => ((await db.query(
    `SELECT 1 FROM monitor_incidents WHERE source_id = $1 AND kind = 'collector_offline' AND closed_at IS NOT NULL`, [sourceId])).rows.length > 0 ? true : undefined))
  await healthIs(tcpCheck.id, 'healthy')
  const rows = await results(tcpCheck.id, since)
  const beforeKill = rows.filter((r) => new Date(r.observed_at).getTime() < killedAt - 1_000)
  t.ok(beforeKill.some((r) => r.status === 'down'), 'observations made while offline, before the kill, arrived')
  t.ok(rows.some((r) => r.details?.applied === false), 'stale ones are recorded as not applied')
  const tr = await transitions(tcpCheck.id, since)
  t.notOk(tr.some((x) => x.to_health === 'unhealthy'), `stale failures flip nothing: ${JSON.stringify(tr.map((x) => x.to_health))}`)
  t.ok(tr.some((x) => x.to_health === 'unknown'), 'the silence made it unknown')
  const dup = await db.query('SELECT check_id, observed_at FROM monitor_results WHERE worker = $1 GROUP BY 1, 2 HAVING count(*) > 1', [`collector:${sourceId}`])
  t.same(dup.rows, [], 'no observation stored twice')
  const ledger = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM monitor_collector_observations WHERE source_id = $1 AND outcome IN ('applied', 'recorded')`, [sourceId])
  const stored = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_results WHERE worker = $1', [`collector:${sourceId}`])
  t.equal(stored.rows[0]?.n, ledger.rows[0]?.n, 'one result row per observation id')
})

t.test('revoking the source stops the collector with 401', async (t) => {
  await lk.req('POST', `${P}/sources`, { action: 'revoke', source_id: sourceId })
  t.equal(await collector.exited, 3, 'exit code 3: credential refused')
  t.match(collector.output(), /LOOKOUT|refused the collector credential/)
  t.notMatch(collector.output(), token.slice(-20), 'the credential is never printed')
  const last = (await results(tcpCheck.id, new Date(0).toISOString())).length
  await new Promise((r) => setTimeout(r, 1_500))
  t.equal((await results(tcpCheck.id, new Date(0).toISOString())).length, last, 'no more traffic')
})
