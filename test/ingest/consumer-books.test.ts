// The loader consumer's books after a previous life (ingest/broker/consumer-books.ts): a
// broker that is the only client of the managed nats-server it just started
// recreates the consumer when it remembers deliveries or the stream holds messages it
// would never deliver; a broker on someone else's servers leaves the books alone.
import t from 'tap'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { jetstream, type ConsumerInfo, type StreamInfo } from '@nats-io/jetstream'
import { Broker, Loader } from '../../ingest/index.ts'
import { leftBooks } from '../../ingest/broker/consumer-books.ts'
import { startTestLookout } from '../helpers/lookout.ts'

t.test('messages delivered to a client of an earlier server are handed out again at once, and stored once', async (t) => {
  // A directory of the test's own: a started Lookout removes the one it made when it stops.
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-books-'))
  t.teardown(() => rmSync(dataDir, { recursive: true, force: true }))
  let lk = await startTestLookout({ dataDir, roles: ['api'] })
  const rid = await lk.resource('books')
  for (const batch of [0, 1]) {
    const events = Array.from({ length: 20 }, (_, i) => ({ message: `books ${batch} line ${i}` }))
    t.equal((await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, { events })).status, 200, `request ${batch} accepted`)
  }
  // A loader that pulled both messages and died before its acknowledgement.
  const dead = await lk.lookout.broker.connectExtra('dead-loader')
  const consumer = await jetstream(dead).consumers.get(lk.lookout.broker.stream, lk.lookout.broker.consumerName)
  let pulled = 0
  for await (const _ of await consumer.fetch({ max_messages: 10, expires: 1000 })) pulled++
  await dead.close()
  t.equal(pulled, 2, 'the dead loader held both messages')
  t.same(await lk.lookout.broker.backlog().then((b) => [b.pending, b.ackPending]), [0, 2], 'unacknowledged on the consumer')
  t.equal(lk.lookout.broker.consumerReset, null, 'the first start found nothing to set straight')

  // A broker on servers it did not start (NATS_URL) leaves the books alone.
  const other = new Broker({ servers: lk.lookout.broker.connection.getServer() })
  await other.start()
  t.equal(other.consumerReset, null, 'not the only client: no reset')
  t.same(await other.backlog().then((b) => [b.pending, b.ackPending]), [0, 2], 'still unacknowledged')
  await other.close()

  await lk.stop()
  lk = await startTestLookout({ dataDir, roles: ['api'] })
  t.teardown(() => lk.stop())
  t.same(lk.lookout.broker.consumerReset, { unacknowledged: 2, stranded: 0 }, 'the restart found the two deliveries of its previous life')
  t.same(await lk.lookout.broker.backlog().then((b) => [b.pending, b.ackPending]), [2, 0], 'both wait to be handed out again, without the acknowledgement wait')

  const loader = new Loader(lk.lookout.broker, lk.lookout.store, { flushMs: 200 })
  await loader.start()
  t.teardown(() => loader.stop())
  for (let i = 0; i < 100 && loader.stats.messages < 2; i++) await new Promise((r) => setTimeout(r, 100))
  t.equal(loader.stats.messages, 2, 'both loaded and acknowledged')
  t.equal((await lk.rows(rid)).length, 40, 'every event stored once')
})

t.test('what counts as books left by a previous life', async (t) => {
  const books = (messages: number, pending: number, unacknowledged: number) => leftBooks(
    { state: { messages } } as StreamInfo, { num_pending: pending, num_ack_pending: unacknowledged } as ConsumerInfo)
  t.equal(books(0, 0, 0), null, 'an empty stream')
  t.equal(books(500, 500, 0), null, 'a backlog nobody was handed yet')
  t.same(books(500, 450, 50), { unacknowledged: 50, stranded: 0 }, 'deliveries to an earlier client')
  t.same(books(166, 0, 59), { unacknowledged: 59, stranded: 107 }, 'messages the consumer will never deliver (the fault test\'s books)')
  t.same(books(10, 20, 0), null, 'a count that races a publish is not stranding')
})
