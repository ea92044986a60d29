// N stateless api processes (`lookout serve --role api`) share a nats-server
// and a PostgreSQL server; the loader and the one ClickHouse store run in this
// process. An api process is killed with SIGKILL while requests are in flight:
// every request that got a 2xx is stored; the others, retried by the sender on
// the other api process with the same body (so the same Nats-Msg-Id), are
// stored once, including those the dead process had published without answering.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
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
const apis: ApiProcess[] = await Promise.all([startApiProcess(env), startApiProcess(env)])
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
  await sleep(1500)
  // Kill while several requests wait for api1's answer: frozen first, so that on a
  // fast or a loaded machine alike requests pile up on it instead of racing the signal.
  api1.freeze()
  const deadline = Date.now() + 30_000
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

  t.ok(inFlight > 0, 'requests were in flight when the process died')
  t.ok(broken.length > 0, 'some requests lost their connection and were retried')
  t.same(sender.stats.fatal, [], 'no request refused for good')
  t.equal(rep.acknowledged, rep.sent, 'every request acknowledged in the end')
  t.equal(rep.lost, 0, 'lost')
  t.equal(rep.duplicated, 0, 'duplicated')
  t.equal(rep.unexpected, 0, 'no stray rows')
})
