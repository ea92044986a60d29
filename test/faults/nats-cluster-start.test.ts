// Lookout started beside a NATS cluster that is still forming (here: two of three
// nodes down, so JetStream has no quorum) waits for it instead of failing, and
// creates its 3-replica streams once the cluster is whole. A configuration the
// cluster can never place fails after the bounded wait, naming the cause.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { Broker } from '../../ingest/index.ts'
import { NatsCluster } from '../helpers/nats-cluster.ts'

const cluster = new NatsCluster()
await cluster.start()
t.teardown(() => cluster.stop())

t.test('stream setup waits for a forming cluster, then creates 3 replicas', async (t) => {
  await cluster.kill9(1)
  await cluster.kill9(2)
  const broker = new Broker({ servers: [cluster.urls[0] as string], replicas: 3, stream: 'FORMING', maxBytes: 64 * 1024 ** 2, setupTimeoutMs: 60_000 })
  t.teardown(() => broker.close())
  let settled: 'ok' | Error | null = null
  const started = broker.start().then(() => { settled = 'ok' }, (err: Error) => { settled = err })
  await sleep(3_000)
  t.equal(settled, null, 'still waiting while the cluster has no quorum (no error, no stream)')
  await cluster.restart(1)
  await cluster.restart(2)
  await started
  t.equal(settled === 'ok' ? 'ok' : String(settled), 'ok', 'started once the cluster formed')
  const info = await broker.jsm.streams.info('FORMING')
  t.equal(info.config.num_replicas, 3)
  t.equal((info.cluster?.replicas ?? []).length, 2, 'a leader and two followers')
})

t.test('a bad configuration fails: at once when final, after the bounded wait when it may be the cluster', async (t) => {
  await cluster.waitJetStream()
  // The first test's streams still hold the subjects: a final error, not retried.
  const overlap = new Broker({ servers: cluster.urls, stream: 'OVERLAP', maxBytes: 64 * 1024 ** 2, setupTimeoutMs: 60_000 })
  t.teardown(() => overlap.close())
  const t0 = Date.now()
  await t.rejects(overlap.start(), /subjects overlap/, 'the cluster\'s reason')
  t.ok(Date.now() - t0 < 10_000, 'at once, not after the 60 s wait')
  await overlap.jsm.streams.delete('FORMING')
  await overlap.jsm.streams.delete('FORMING_DLQ')
  // More replicas than nodes looks like a cluster still forming: retried until the bound, then the reason.
  const tooMany = new Broker({ servers: cluster.urls, replicas: 5, stream: 'TOO_MANY', maxBytes: 64 * 1024 ** 2, setupTimeoutMs: 2_000 })
  t.teardown(() => tooMany.close())
  const t1 = Date.now()
  await t.rejects(tooMany.start(), /peers|resources|replicas/i, 'the cluster\'s reason')
  t.ok(Date.now() - t1 < 30_000, 'within the bound, not forever')
})
