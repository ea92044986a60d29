// A message JetStream hands out a second time with a delivery count of 1
// (nats-server 2.9, Debian bookworm's: nats-server#4460) must not be stored
// twice. The server bug cannot be called up at will, so the same situation is
// made with the real stream: a copy of a stored message, same Nats-Msg-Id and
// rows, published once the duplicate window has passed, is a first delivery
// of a message already handed out.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { Loader, SUBJECTS, HEADER_ROWS, rowSubject } from '../../ingest/internal.ts'
import { RecentIds } from '../../ingest/loader/recent-ids.ts'
import { startTestLookout } from '../helpers/lookout.ts'

const WINDOW_MS = 1000

t.test('a message handed out twice is stored once: in one batch, and in a later one', async (t) => {
  const lk = await startTestLookout({ roles: ['api'], env: { LOOKOUT_DUPLICATE_WINDOW_MS: String(WINDOW_MS) } })
  t.teardown(() => lk.stop())
  const rid = await lk.resource('twice')
  const events = Array.from({ length: 50 }, (_, i) => ({ message: `twice line ${i}`, attributes: { i } }))
  t.equal((await lk.req('POST', `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, { events })).status, 200)
  const broker = lk.lookout.broker
  const stored = await broker.jsm.streams.getMessage(broker.stream, { last_by_subj: rowSubject(false, lk.workspaceId, rid) })
  if (stored === null) throw new Error('the acknowledged request is not in the stream')
  const msgId = stored.header.get('Nats-Msg-Id')
  const rows = Number(stored.header.get(HEADER_ROWS))
  t.ok(msgId !== '' && rows === 50, 'the stored message: its id and rows')
  const copy = async () => {
    await sleep(WINDOW_MS + 200) // past the duplicate window, or JetStream drops the copy itself
    await broker.publish(SUBJECTS.rows, stored.data, msgId, rows)
  }

  await copy()
  t.equal((await broker.backlog()).pending, 2, 'the message and its copy wait together')
  const loader = new Loader(broker, lk.lookout.store, { flushMs: 300 })
  await loader.start()
  t.teardown(() => loader.stop())
  const waitIdle = async () => {
    for (let i = 0; i < 300; i++) {
      const b = await broker.backlog()
      if (b.pending + b.ackPending === 0) return
      await sleep(50)
    }
    throw new Error('the backlog did not drain')
  }
  await waitIdle()
  t.equal((await lk.rows(rid)).length, 50, 'both copies in one batch: stored once')
  t.equal(loader.stats.duplicatesSkipped, 50)

  await copy()
  await waitIdle()
  t.equal((await lk.rows(rid)).length, 50, 'a copy after the loader loaded it: looked up and skipped')
  t.equal(loader.stats.duplicatesSkipped, 100)
  t.equal(loader.stats.messages, 3, 'every copy acknowledged')
})

t.test('the loader remembers a bounded number of ids, oldest forgotten first', async (t) => {
  const r = new RecentIds(3)
  for (const id of ['a', 'b', 'c']) r.add(id)
  r.add('b') // already held: nothing moves
  t.ok(r.has('a') && r.has('b') && r.has('c'))
  r.add('d')
  t.notOk(r.has('a'), 'the oldest went first')
  t.ok(r.has('b') && r.has('c') && r.has('d'))
  r.add('')
  t.equal(r.size, 3, 'an empty id is never kept')
})
