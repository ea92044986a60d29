// Loaders killed mid-batch, the longer variants: a loader dies after its whole
// insert (the survivor skips the batch), and two loaders run under steady
// ingestion while one dies between the parts of its insert, so its batch comes
// back mixed with new messages. Every acknowledged event is stored once.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { startTestLookout } from '../helpers/lookout.ts'
import { Ledger, formatReport } from './lib/ledger.ts'
import { SteadySender } from './lib/sender.ts'
import { loaderProcessFor, waitBacklog } from './lib/loader-process.ts'
import { sameBatchRedelivered } from './lib/same-batch.ts'
import { twoDays } from './lib/two-days.ts'

const lk = await startTestLookout({ roles: ['api'] })
t.teardown(() => lk.stop())

t.test('a loader dies after its insert; the same batch comes back to the other loader', (t) => sameBatchRedelivered(t, lk, 'after-insert'))

t.test('two loaders under steady ingestion, one dies between the parts of its insert', async (t) => {
  const rid = await lk.resource('steady-two-loaders')
  const ledger = new Ledger('two')
  // Everything shares this process: a stall past the ack wait (10 s) would let a
  // held message go to the other loader. Measured, so a failure says whether one happened.
  const delay = monitorEventLoopDelay({ resolution: 20 })
  delay.enable()
  const a = loaderProcessFor(lk, 'loader-a')
  const b = loaderProcessFor(lk, 'loader-b')
  await a.start()
  await b.start()
  t.teardown(() => b.stop())
  const sender = new SteadySender({
    ledger, baseUrl: () => lk.url, path: `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`, token: lk.token,
    eventsPerBatch: 100, intervalMs: 40, extra: twoDays,
  })
  sender.start()
  await sleep(1000)
  a.dieOnNextInsert('mid-insert')
  sender.phase = 'during'
  const wrote = await a.died
  t.comment(`loader-a died after writing ${wrote} rows of its batch`)
  // Past the ack wait (10 s): the dead loader's batch is redelivered to the survivor
  // while new messages keep arriving, so it comes back mixed with others.
  await sleep(12_000)
  sender.phase = 'after'
  await sender.finish()
  await waitBacklog(lk, 0)
  const rep = await ledger.settle(lk.lookout.store, rid, 40_000)
  t.comment(formatReport('two loaders, one killed mid-insert under steady ingestion', rep))
  delay.disable()
  t.comment(`event-loop delay: max ${(delay.max / 1e6).toFixed(0)} ms, p99 ${(delay.percentile(99) / 1e6).toFixed(0)} ms; ` +
    `sender ${JSON.stringify(sender.stats.statuses)}, ${sender.stats.errors} broken attempts; ` +
    `loader-a ${JSON.stringify(a.loader.stats)}; loader-b ${JSON.stringify(b.loader.stats)}`)
  if (rep.duplicated > 0) {
    // Which copies: batch_id is a hash of the request, so a retried request keeps it;
    // one received_at means one stream message loaded twice, two mean the request was published twice.
    const dups = await lk.lookout.store.query<Record<string, unknown>>(
      `SELECT message, count() AS copies, groupUniqArray(batch_id) AS batch_ids, groupArray(toString(received_at)) AS received
       FROM ${lk.lookout.store.database}.logs WHERE resource_id = {rid:UUID} GROUP BY message HAVING copies > 1 LIMIT 3`, { rid })
    t.comment(`duplicated rows: ${JSON.stringify(dups.rows)}`)
    // Who inserted those batches, when, under which token (a redelivered message is loaded under a content token).
    const ids = new Set(dups.rows.flatMap((r) => r.batch_ids as string[]))
    for (const p of [a, b]) {
      for (const ins of p.inserts) {
        if (ins.batchIds.some((id) => ids.has(id))) t.comment(`${p.name} inserted at ${new Date(ins.at).toISOString()}: ${ins.rows} rows of ${ins.batchIds.length} messages, token ${ins.token}, ${ins.done ? 'done' : 'not done'}`)
      }
    }
  }
  t.same(sender.stats.fatal, [], 'no request refused for good, and no 500')
  // At least: a copy handed out twice (ingest/loader/recent-ids.ts) is skipped too.
  t.ok(wrote !== null && wrote > 0 && b.loader.stats.duplicatesSkipped >= wrote, 'the survivor skipped the rows the dead loader had stored')
  t.ok(ledger.ackedIn('during') > 0, 'ingestion was acknowledged while a loader was dead')
  t.equal(rep.acknowledged, rep.sent, 'every request acknowledged in the end')
  t.equal(rep.lost, 0, 'lost')
  t.equal(rep.duplicated, 0, 'duplicated')
  t.equal(rep.unexpected, 0, 'no stray rows')
})
