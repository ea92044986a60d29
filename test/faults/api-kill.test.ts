// N stateless api processes (`lookout serve --role api`) share a nats-server
// and a PostgreSQL server; the loader and the one ClickHouse store run in this
// process. An api process is killed with SIGKILL while requests are in flight:
// every request that got a 2xx is stored; the others, retried by the sender on
// the other api process with the same body (so the same Nats-Msg-Id), are
// stored once, including the one the dead process had published without
// answering: the first api process runs with the trace point
// LOOKOUT_TEST_STOP_AFTER_PUBLISHES (deploy/roles/api.ts), so it stops itself
// between a publish and its answer, and is killed there.
import t from 'tap'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { ManagedNats } from '../../deploy/index.ts'
import { startTestLookout } from '../helpers/lookout.ts'
import { startTestPostgres } from '../helpers/postgres.ts'
import { Ledger, formatReport } from './lib/ledger.ts'
import { SteadySender } from './lib/sender.ts'
import { startApiProcess, type ApiProcess } from './lib/api-process.ts'

const pg = await startTestPostgres()
const natsDir = mkdtempSync(join(tmpdir(), 'lookout-nats-'))
const nats = new ManagedNats({ dir: natsDir })
const natsUrl = await nats.start()
const env = { NATS_URL: natsUrl, DATABASE_URL: pg.url }
// This process: the loader role with the store every api process's rows end up in.
const lk = await startTestLookout({ roles: ['loader'], env })
// api1 freezes itself once its STOP_AFTER-th request is published, before answering it.
const STOP_AFTER = 25
const apis: ApiProcess[] = await Promise.all([startApiProcess({ ...env, LOOKOUT_TEST_STOP_AFTER_PUBLISHES: String(STOP_AFTER) }), startApiProcess(env)])
t.teardown(async () => {
  await Promise.all(apis.map((a) => a.stop()))
  await lk.stop()
  await nats.stop()
  await pg.stop()
  rmSync(natsDir, { recursive: true, force: true })
})
const [api1, api2] = apis as [ApiProcess, ApiProcess]

// A retry carries the request's Idempotency-Key (these events have no sender time: README "Event identity").
t.test('a request repeated on another api process is the same message: stored once', async (t) => {
  const rid = await lk.resource('repeat')
  const ledger = new Ledger('rep')
  const b = ledger.next(300)
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  for (const api of [api1, api2]) {
    const res = await fetch(api.url + path, { method: 'POST', headers: { authorization: `Bearer ${lk.token}`, 'content-type': 'application/json', 'idempotency-key': b.tag }, body: b.body })
    t.equal(res.status, 200, `acknowledged by ${api.url}`)
    await res.arrayBuffer()
  }
  ledger.ack(b, 'before')
  const rep = await ledger.settle(lk.lookout.store, rid)
  t.comment(formatReport('one request sent to two api processes', rep))
  t.equal(rep.stored, 300)
  t.equal(rep.duplicated, 0, 'duplicated')
})

// README "Idempotency-Key": the keys live in JetStream (LOGS_KEYS), so every api process
// sees them; JetStream's msg-id dedup alone would not refuse another body.
t.test('a key reused with another body through another api process is 409, and nothing of it is stored', async (t) => {
  const rid = await lk.resource('key-across')
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const send = async (api: ApiProcess, message: string) => {
    const res = await fetch(api.url + path, { method: 'POST', headers: { authorization: `Bearer ${lk.token}`, 'content-type': 'application/json', 'idempotency-key': 'across-processes' }, body: JSON.stringify({ events: [{ message }] }) })
    return { status: res.status, body: await res.json() as { detail?: { type: string }[] } }
  }
  t.equal((await send(api1, 'first body')).status, 200, 'accepted by the first process')
  const other = await send(api2, 'second body')
  t.equal(other.status, 409, 'the second process refuses another body under the key')
  t.equal(other.body.detail?.[0]?.type, 'LOOKOUT_INGEST_KEY_CONFLICT')
  t.equal((await send(api2, 'first body')).status, 200, 'the same body through the second process is the retry it is')
  const ledger = new Ledger('sentinel-across')
  const sentinel = ledger.next(1)
  t.equal((await fetch(api2.url + path, { method: 'POST', headers: { authorization: `Bearer ${lk.token}`, 'content-type': 'application/json' }, body: sentinel.body })).status, 200)
  const rows = await lk.waitRows(rid, 2, 30_000)
  t.same(rows.map((r) => r.message).filter((m) => m === 'first body' || m === 'second body'), ['first body'], 'only the first body, once')
})

t.test('kill -9 of an api process with requests in flight: 2xx means stored, retries are safe', async (t) => {
  const rid = await lk.resource('api-kill')
  const ledger = new Ledger('ak')
  let api1Alive = true
  const sender = new SteadySender({
    ledger, path: `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, token: lk.token,
    // First attempts go to api1 while it lives; retries (and everything after its death) to api2.
    baseUrl: (attempt) => (attempt === 1 && api1Alive ? api1.url : api2.url),
    eventsPerBatch: 500, intervalMs: 20, maxRetryDelayMs: 500,
  })
  sender.start()
  // api1 stops itself between a publish and its answer (the trace point); requests then pile up on it.
  const deadline = Date.now() + 60_000
  // Stopped (state T in /proc): it has published a request it will never answer.
  const stopped = () => readFileSync(`/proc/${api1.pid}/stat`, 'utf8').replace(/^.*\) /s, '').startsWith('T')
  while (!stopped() && Date.now() < deadline) await sleep(5)
  t.ok(stopped(), 'the first api process stopped itself between a publish and its answer')
  while (sender.pendingAt(api1.url) < 3 && Date.now() < deadline) await sleep(5)
  const inFlight = sender.pendingAt(api1.url)
  const killedAtNs = BigInt(Date.now()) * 1_000_000n
  api1Alive = false
  sender.phase = 'after'
  await api1.kill9()
  await sleep(1500)
  await sender.finish()
  const rep = await ledger.settle(lk.lookout.store, rid)
  t.comment(formatReport('api process kill -9', rep))
  t.comment(`requests in flight on the killed process: ${inFlight}; sender: ${JSON.stringify(sender.stats)}`)

  // Requests whose attempt on api1 broke: were some published by api1 before it died
  // (received before the kill)? Their retries on api2 were then JetStream duplicates.
  const broken = [...ledger.batches.values()].filter((b) => b.brokenAttempts > 0 && b.ackPhase === 'after')
  const r = await lk.lookout.store.query<{ tag: string; r: string }>(
    `SELECT splitByString(' event ', message)[1] AS tag, toString(toUnixTimestamp64Nano(min(received_at))) AS r
     FROM ${lk.lookout.store.database}.logs WHERE resource_id = {rid:UUID} GROUP BY tag`, { rid })
  const receivedAt = new Map(r.rows.map((row) => [row.tag, BigInt(row.r)]))
  const publishedByTheDead = broken.filter((b) => (receivedAt.get(b.tag) ?? killedAtNs) < killedAtNs).length
  t.comment(`requests cut by the kill: ${broken.length}; of them published by the killed process before it died, then retried as duplicates: ${publishedByTheDead}`)

  t.ok(inFlight >= 3, 'requests were in flight when the process died')
  t.ok(publishedByTheDead >= 1, 'the request the process published without answering was retried and stored once')
  t.ok(broken.length > 0, 'some requests lost their connection and were retried')
  t.same(sender.stats.fatal, [], 'no request refused for good, and no 500')
  t.equal(rep.acknowledged, rep.sent, 'every request acknowledged in the end')
  t.equal(rep.lost, 0, 'lost')
  t.equal(rep.duplicated, 0, 'duplicated')
  t.equal(rep.unexpected, 0, 'no stray rows')
})
