// A 3-node NATS JetStream cluster (stream and consumer with 3 replicas) under
// steady ingestion: the node leading the LOGS stream is killed with SIGKILL,
// ingestion goes on, the node is restarted and catches up. Every acknowledged
// event is stored exactly once, and acknowledgements continue during the failure.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { NatsCluster } from '../helpers/nats-cluster.ts'
import { startTestLookout } from '../helpers/lookout.ts'
import { Ledger, formatReport } from './lib/ledger.ts'
import { SteadySender } from './lib/sender.ts'

const STEADY_MS = Number(process.env.FAULT_STEADY_MS ?? 2500)
// Longer than a JetStream leader election (nats-server 2.9: about 4-5 s here,
// during which publishes get 503 "jetstream is not enabled" and senders retry).
const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_MS ?? 10_000)

t.test('kill -9 of the stream leader in a 3-node cluster loses and duplicates nothing', async (t) => {
  const cluster = new NatsCluster()
  await cluster.start()
  const lk = await startTestLookout({ env: { NATS_URL: cluster.urls.join(','), LOOKOUT_NATS_REPLICAS: '3', LOOKOUT_STREAM_MAX_BYTES: String(256 * 1024 * 1024) } }).catch(async (err: unknown) => {
    await cluster.stop()
    throw err
  })
  t.teardown(async () => {
    await lk.stop()
    await cluster.stop()
  })
  const stream = lk.lookout.broker.stream
  await cluster.waitStreamCurrent(stream)
  const before = await cluster.streamState(stream)
  t.equal(before.replicas.length, 2, 'the stream has a leader and two followers')

  const rid = await lk.resource('nats-kill')
  const ledger = new Ledger('nk')
  const sender = new SteadySender({
    ledger, baseUrl: () => lk.url, path: `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, token: lk.token,
    eventsPerBatch: 100, intervalMs: 50, maxRetryDelayMs: 1000,
  })
  sender.start()
  await sleep(STEADY_MS)

  const leader = (await cluster.streamState(stream)).leader
  const victim = cluster.indexOf(leader)
  sender.phase = 'during'
  await cluster.kill9(victim)
  t.comment(`killed ${leader} (stream leader, pid gone) with SIGKILL`)
  await sleep(OUTAGE_MS)

  sender.phase = 'after'
  await cluster.restart(victim)
  await sleep(STEADY_MS)
  await sender.finish()
  await cluster.waitStreamCurrent(stream, 60_000)
  const after = await cluster.streamState(stream)
  t.ok(after.replicas.every((r) => r.current && !r.offline), `the restarted node caught up (leader now ${after.leader})`)

  const rep = await ledger.settle(lk.lookout.store, rid)
  t.comment(formatReport('NATS node kill -9', rep))
  t.comment(`sender: ${JSON.stringify(sender.stats)}; acknowledged before/during/after: ${ledger.ackedIn('before')}/${ledger.ackedIn('during')}/${ledger.ackedIn('after')}`)
  t.same(sender.stats.fatal, [], 'no request was refused for good, and no 500')
  t.ok(ledger.ackedIn('during') > 0, 'acknowledgements continued while the node was down')
  t.equal(rep.acknowledged, rep.sent, 'every request was acknowledged in the end (retries included)')
  t.equal(rep.lost, 0, 'lost')
  t.equal(rep.duplicated, 0, 'duplicated')
  t.equal(rep.unexpected, 0, 'no stray rows')
  t.equal(rep.stored, rep.acknowledged, 'stored = acknowledged')
})
