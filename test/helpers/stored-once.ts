// "Stored exactly once" looks long enough to see a late duplicate: a message
// whose acknowledgement was lost comes back from JetStream after the loader's
// ack wait, and the loader's redelivery checks are what keep it from being
// stored twice. So the rows are read after a later request (a sentinel) is
// stored, and again until that window has passed.
import { ACK_WAIT_MS } from '../../ingest/internal.ts'
import type { TestLookout } from './lookout.ts'

/** JetStream redelivers an unacknowledged message after the ack wait; a little more for the loader's flush. */
export const REDELIVERY_WINDOW_MS = ACK_WAIT_MS + 2_000

type Row = Record<string, unknown>

/**
 * The resource's rows once `n` are stored, a sentinel request sent after them
 * is stored too, and the redelivery window has passed (ending early once more
 * than `n` rows show: a duplicate or a stray row, for the caller to report).
 * Returns the rows without the sentinel's (its `message` is `sentinel`).
 */
export async function settledRows(lk: TestLookout, rid: string, n: number, sendSentinel: () => Promise<{ status: number }>, timeoutMs = 120_000): Promise<Row[]> {
  await lk.waitRows(rid, n, timeoutMs)
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const status = (await sendSentinel()).status
    if (status === 200) break
    // Still refused as overloaded after a flood: retry as a sender would.
    if ((status !== 429 && status !== 503) || Date.now() > deadline) throw new Error(`the sentinel request was answered ${status}`)
    await new Promise((r) => setTimeout(r, 250))
  }
  const isSentinel = (r: Row): boolean => r.message === 'sentinel'
  let rows = await lk.waitRows(rid, n + 1, timeoutMs)
  const windowEnd = Date.now() + REDELIVERY_WINDOW_MS
  while (Date.now() < windowEnd && rows.length <= n + 1) {
    await new Promise((r) => setTimeout(r, 500))
    rows = await lk.rows(rid)
  }
  if (!rows.some(isSentinel)) throw new Error('the sentinel was not stored')
  return rows.filter((r) => !isSentinel(r))
}
