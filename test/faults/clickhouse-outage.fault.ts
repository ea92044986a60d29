// ClickHouse refuses inserts for 20 s (the logs table detached: the real
// engine answers every insert with an error) under steady ingestion, with a
// small JetStream backlog limit. JetStream absorbs the backlog up to its limit;
// at the limit new requests are refused with 429 and Retry-After (never a 2xx
// for data that was not kept); the loader retries with backoff; after the
// outage the backlog drains and the senders' retries get in. Nothing lost,
// nothing twice.
import t from 'tap'
import { setTimeout as sleep } from 'node:timers/promises'
import { startTestLookout } from '../helpers/lookout.ts'
import { Ledger, formatReport } from './lib/ledger.ts'
import { SteadySender } from './lib/sender.ts'

const OUTAGE_MS = Number(process.env.FAULT_OUTAGE_MS ?? 20_000)
const STREAM_MAX_BYTES = 4 * 1024 * 1024

t.test(`ClickHouse unavailable for ${OUTAGE_MS / 1000} s with a ${STREAM_MAX_BYTES >> 20} MiB backlog limit`, async (t) => {
  const lk = await startTestLookout({ env: { LOOKOUT_STREAM_MAX_BYTES: String(STREAM_MAX_BYTES) } })
  t.teardown(() => lk.stop())
  const loader = lk.lookout.loader
  if (loader === null) throw new Error('the loader role runs in this process')
  const rid = await lk.resource('ch-outage')
  const path = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/logs`
  const probePath = `/v1/workspaces/${lk.workspaceId}/resources/${await lk.resource('ch-outage-probe')}/logs`
  const ledger = new Ledger('cho')
  // About 40 KB of rows per request, 20 requests a second: the limit is reached within seconds.
  const sender = new SteadySender({ ledger, baseUrl: () => lk.url, path, token: lk.token, eventsPerBatch: 100, intervalMs: 50 })
  sender.start()
  await sleep(3000)

  const db = lk.lookout.store.database
  await lk.lookout.store.command(`DETACH TABLE ${db}.logs`)
  sender.phase = 'during'
  const errorsBefore = loader.stats.insertErrors
  const outageEnds = Date.now() + OUTAGE_MS
  let maxBacklogBytes = 0
  let refusal: { status: number; body: any; retryAfter: string | null } | null = null
  const probeStatuses: number[] = []
  while (Date.now() < outageEnds) {
    const b = await lk.lookout.broker.backlog()
    maxBacklogBytes = Math.max(maxBacklogBytes, b.bytes)
    // At the limit (the stream refused one of the sender's batches, and nothing
    // leaves it during the outage): what a sender sees, with a request larger
    // than the sender's, on a resource of its own, outside the ledger.
    if (refusal === null && (sender.stats.statuses['429'] ?? 0) > 0) {
      const r = await lk.req('POST', probePath, { events: Array.from({ length: 50 }, (_, i) => ({ message: `probe ${i} ` + 'x'.repeat(2000) })) })
      probeStatuses.push(r.status)
      if (r.status !== 200) refusal = { status: r.status, body: r.body, retryAfter: r.headers.get('retry-after') }
    }
    await sleep(500)
  }
  const outageErrors = loader.stats.insertErrors - errorsBefore
  await lk.lookout.store.command(`ATTACH TABLE ${db}.logs`)
  sender.phase = 'after'
  await sleep(3000)
  await sender.finish(120_000)
  const rep = await ledger.settle(lk.lookout.store, rid, 120_000)
  t.comment(formatReport(`ClickHouse outage of ${OUTAGE_MS / 1000} s`, rep))
  t.comment(`largest backlog ${maxBacklogBytes} bytes of ${STREAM_MAX_BYTES}; loader insert attempts failed during the outage: ${outageErrors}; ` +
    `acknowledged before/during/after: ${ledger.ackedIn('before')}/${ledger.ackedIn('during')}/${ledger.ackedIn('after')}; sender: ${JSON.stringify(sender.stats)}; ` +
    `probe statuses ${JSON.stringify(probeStatuses)}, refusal ${JSON.stringify(refusal)}`)

  t.ok(ledger.ackedIn('during') > 0, 'JetStream absorbed requests during the outage')
  t.ok(maxBacklogBytes <= STREAM_MAX_BYTES, 'the backlog never went past its limit')
  t.ok(refusal !== null, 'at the limit, requests were refused')
  t.equal(refusal?.status, 429, 'with 429 on the cloud route')
  t.equal(refusal?.body?.detail?.[0]?.type, 'LOOKOUT_INGEST_OVERLOADED', 'and the overloaded code')
  t.ok(Number(refusal?.retryAfter) > 0, 'and a Retry-After')
  t.ok((sender.stats.statuses['429'] ?? 0) > 0, 'the steady sender was refused too, and retried')
  t.ok(outageErrors >= 2, 'the loader kept retrying during the outage')
  // Backoff: without it, a 200 ms retry would fail about 100 times in 20 s (with it: about 7).
  t.ok(outageErrors < OUTAGE_MS / 2000, `with backoff (${outageErrors} attempts)`)
  t.same(sender.stats.fatal, [], 'no request refused for good, and no 500')
  t.equal(rep.acknowledged, rep.sent, 'every request acknowledged in the end')
  t.equal(rep.lost, 0, 'lost')
  t.equal(rep.duplicated, 0, 'duplicated')
  t.equal(rep.unexpected, 0, 'no stray rows')
})
