// The loader's pull: gathers one batch of row messages from the durable
// consumer, bounded by rows, bytes and the age of its oldest message.
import type { Consumer, JsMsg } from '@nats-io/jetstream'
import type { LoaderStats } from './loader-stats.ts'
import { rowsOf } from './loader-messages.ts'

const MIN_FETCH_BYTES = 9 * 1024 * 1024
/**
 * The shortest pull nats.js accepts ("'expires' must be at least 1000ms"): a
 * shorter one fails before it reaches the server, so every pull asks for at
 * least this long and returns sooner when its bytes are filled.
 */
const MIN_EXPIRES_MS = 1_000

export interface PullLimits {
  maxRows: number
  maxBytes: number
  flushMs: number
  /**
   * Rows below which the flush time does not cut a batch while more messages
   * wait in the stream (0: the flush time always cuts).
   */
  minRows: number
}

export interface PullState {
  readonly consumer: Consumer
  readonly stats: LoaderStats
  /** Messages pulled and not yet acknowledged or given back (kept from redelivery while held). */
  readonly held: Set<JsMsg>
  stopping(): boolean
  /** Whether the previous batch's insert still runs. */
  inserting(): boolean
  failed(message: string): void
  /** The largest message pulled so far (bytes), kept across batches: how many waiting messages a pull can take. */
  readonly seen: { largest: number }
}

/** How often a batch with rows in hand asks how many messages wait, while it waits for its time or an insert. */
const POLL_MS = 100

/**
 * Gathers one batch: returns when it is full, its oldest message is flushMs
 * old, or on stop. The flush time adapts to a backlog (limits.minRows > 0):
 * while the previous insert still runs, a batch cut now could not load before
 * it ends, so it keeps growing; and while messages wait in the stream, a batch
 * under minRows keeps pulling them: each insert makes a part the engine
 * writes and later merges, so fewer, larger inserts cost less per row (issue
 * 19 asks for at least 20k). Without a backlog the flush time cuts as before.
 *
 * A pull that waits ends only when its bytes are filled or it expires, and it
 * cannot expire sooner than 1 s. So only an empty batch waits in a pull: with
 * rows in hand (and at the start, when a backlog may wait), the consumer is
 * asked how many messages wait and the pull asks for exactly those, which
 * returns as soon as they are delivered; with none waiting, the batch sleeps
 * in short steps. Otherwise the last batch of a flood, smaller than the pull's
 * bytes, waited out a whole pull after the insert before it had finished.
 * A batch of at least minRows is cut before its flush time when a sleep
 * finds nothing new waiting and no insert runs: the traffic paused, and
 * waiting longer adds no rows. (Cutting every batch at a shorter flush time
 * instead made inserts smaller and cost the engine 7-10 % more per event at
 * 40-60k events/s: bench/e2e README.)
 */
export async function collectBatch(s: PullState, limits: PullLimits): Promise<JsMsg[]> {
  const batch: JsMsg[] = []
  let rows = 0
  let bytes = 0
  let deadline = 0
  /** Messages the stream held for this consumer after the last one pulled (JetStream's count; -1 unknown). */
  let pending = 0
  let lastPulled = 0
  let first = true
  /** Whether the consumer was found with nothing waiting after a sleep since the last pull: a gap in the traffic. */
  let quiet = false
  while (!s.stopping() && rows < limits.maxRows && bytes < limits.maxBytes) {
    let wait = deadline === 0 ? 1_000 : deadline - Date.now()
    if (deadline !== 0 && wait <= 0) {
      const backlog = rows < limits.minRows && pending > 0 && lastPulled > 0
      if (limits.minRows === 0 || !(s.inserting() || backlog)) break
      wait = MIN_EXPIRES_MS
    }
    let iter
    try {
      let waiting = 0
      if (first || batch.length > 0) {
        first = false
        waiting = (await s.consumer.info()).num_pending
        if (waiting === 0 && batch.length > 0) {
          // The traffic stopped (a flood ended) with an insert's worth in hand and the engine free:
          // load it now rather than at the flush time. Steady traffic leaves no such gap.
          if (quiet && limits.minRows > 0 && rows >= limits.minRows && !s.inserting()) break
          const left = deadline - Date.now()
          await sleep(left > 0 ? Math.min(POLL_MS, left) : POLL_MS)
          quiet = true
          continue
        }
        quiet = false
      }
      // Bounded by bytes too; a pull must still fit the largest message (the server's max_payload).
      const maxBytes = Math.max(MIN_FETCH_BYTES, limits.maxBytes - bytes)
      const expires = Math.max(wait, MIN_EXPIRES_MS)
      // nats.js takes a count or bytes, not both: a count only when that many of the largest size fit.
      const fit = s.seen.largest > 0 ? Math.floor(maxBytes / s.seen.largest) : 0
      iter = await s.consumer.fetch(waiting > 0 && waiting <= fit ? { max_messages: waiting, expires } : { max_bytes: maxBytes, expires })
    } catch (err) {
      // The connection is reconnecting: wait and pull again.
      s.stats.fetchErrors++
      s.failed(String((err as Error)?.message ?? err))
      // What the last pull saw is stale now: it must not keep the batch open.
      lastPulled = 0
      await sleep(250)
      continue
    }
    lastPulled = 0
    try {
      for await (const m of iter) {
        batch.push(m)
        s.held.add(m)
        rows += rowsOf(m)
        bytes += m.data.byteLength
        if (m.data.byteLength > s.seen.largest) s.seen.largest = m.data.byteLength
        pending = m.info.pending
        lastPulled++
        if (deadline === 0) deadline = Date.now() + limits.flushMs
      }
    } catch (err) {
      // 409 "message size exceeds maxbytes" ends a pull whose next message does not fit: normal.
      if ((err as { code?: unknown }).code !== 409) {
        s.stats.fetchErrors++
        s.failed(String((err as Error)?.message ?? err))
      }
    }
  }
  return batch
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
