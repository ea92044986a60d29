// One loader dies on a batch of twenty acknowledged requests and a second one
// gets exactly the same messages back: the scenario shared by the main-suite
// test and the fault suite.
import type { Test } from 'tap'
import type { TestLookout } from '../../helpers/lookout.ts'
import { Ledger, formatReport } from './ledger.ts'
import { loaderProcessFor, waitBacklog, type DeathMode } from './loader-process.ts'
import { twoDays } from './two-days.ts'

/** Twenty acknowledged requests, a loader that dies on them, a survivor that gets them back. */
export async function sameBatchRedelivered(t: Test, lk: TestLookout, mode: DeathMode): Promise<void> {
  const rid = await lk.resource(`same-${mode}`)
  const ledger = new Ledger(`s-${mode}`)
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const statuses = new Set<number>()
  for (let i = 0; i < 20; i++) {
    const b = ledger.next(100, twoDays)
    const r = await lk.req('POST', path, JSON.parse(b.body))
    statuses.add(r.status)
    if (r.status === 200) ledger.ack(b, 'before')
  }
  t.same([...statuses], [200], 'twenty requests acknowledged')
  await waitBacklog(lk, 20)
  // The dying loader takes everything first; the survivor starts once it is dead,
  // so the redelivered batch is made of exactly the same messages (the same insert token).
  const a = loaderProcessFor(lk, 'loader-a')
  a.dieOnNextInsert(mode)
  await a.start()
  const wrote = await a.died
  t.ok(wrote !== null && wrote > 0, `the dead loader's insert wrote ${wrote} of 2000 rows, unacknowledged`)
  const b = loaderProcessFor(lk, 'loader-b')
  await b.start()
  t.teardown(() => b.stop())
  await waitBacklog(lk, 0) // redelivered after the ack wait, loaded and acknowledged
  const rep = await ledger.settle(lk.lookout.store, rid, 40_000)
  t.comment(formatReport(`loader killed ${mode}, the same batch redelivered`, rep))
  // At least: nats-server 2.9 may hand a redelivered message out twice (ingest/loader/recent-ids.ts),
  // and the survivor then receives and skips that copy too. The ledger below is the guarantee.
  t.ok(b.loader.stats.messages >= 20, 'the survivor received the whole redelivered batch')
  t.ok(wrote !== null && b.loader.stats.duplicatesSkipped >= wrote, 'and skipped the rows the dead loader had stored')
  t.equal(rep.lost, 0, 'lost')
  t.equal(rep.duplicated, 0, 'duplicated')
  t.equal(rep.unexpected, 0, 'no stray rows')
  t.equal(rep.stored, rep.acknowledged, 'stored = acknowledged')
}
