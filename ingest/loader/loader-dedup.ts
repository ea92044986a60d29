// The loader's redelivery checks: which messages of a batch may be stored
// already, and the lookups in ClickHouse that leave their stored rows out.
import type { JsMsg } from '@nats-io/jetstream'
import { isLegacySubject } from '../broker/broker.ts'
import { readStoredRows, storedRowHead } from '../rows/rows-read.ts'
import { encodeRows } from '../rows/native-rows.ts'
import type { StoredRow } from '../row-model.ts'
import type { LogStore } from '../store/store.ts'
import { knownEventIds, storedBatchRows, storedEventIds, type ReceivedRange } from '../store/stored.ts'
import { RecentIds } from './recent-ids.ts'
import { msgIdOf, rowsOf } from './loader-messages.ts'

/** Message ids a loader remembers having loaded (recent-ids.ts): minutes of traffic at full rate, a few MiB. */
const RECENT_IDS = 65_536

export interface DedupDeps {
  store: LogStore
  /** The JetStream duplicate window, ns (see LoaderOptions.duplicateWindowMs). */
  windowNs: number
  /** Runs a lookup until it succeeds (or the loader is killed). */
  retried<T>(fn: () => Promise<T>): Promise<T>
  /** Counts rows left out as stored already. */
  skipped(rows: number): void
}

export class RedeliveryChecks {
  readonly #deps: DedupDeps
  readonly #recent = new RecentIds(RECENT_IDS)
  /** When this loader started, ns since the epoch (a double: sub-microsecond precision is not needed). */
  readonly #startedNs = Date.now() * 1e6

  constructor(deps: DedupDeps) {
    this.#deps = deps
  }

  /** Remembers a message as loaded (acknowledged after its insert). */
  loaded(m: JsMsg): void {
    this.#recent.add(msgIdOf(m))
  }

  /**
   * The batch's messages not stored yet, and in `bodies` the rows left to load
   * of those stored in part. Copies handed out twice into the batch are kept once.
   */
  async dropStored(batch: JsMsg[], bodies: Map<JsMsg, Uint8Array>): Promise<JsMsg[]> {
    let todo = this.#firstCopies(batch)
    if (todo.some((m) => this.#mayBeLoaded(m))) todo = await this.#dropAlreadyLoaded(todo, bodies)
    const legacy = todo.filter((m) => isLegacySubject(m.subject))
    if (legacy.length > 0) await this.#dropKnownEventIds(legacy, bodies)
    return todo
  }

  /**
   * Whether the message may be stored already: JetStream says it is redelivered,
   * this loader loaded it, or it was published before this loader started (a
   * nats-server 2.9 killed under load can hand acknowledged messages out again
   * as first deliveries: serve-kill-insert.fault.ts saw them stored twice).
   * The lookups are bounded by receive time, so asking costs little.
   */
  #mayBeLoaded(m: JsMsg): boolean {
    return m.redelivered || this.#recent.has(msgIdOf(m)) || this.#freshStart(m)
  }

  /** Published before this loader started, or within a duplicate window after (see duplicateWindowMs). */
  #freshStart(m: JsMsg): boolean {
    return Number(m.info.timestampNanos) < this.#startedNs + this.#deps.windowNs
  }

  /** The batch with any message handed out twice into it (recent-ids.ts) kept once; every copy is acknowledged. */
  #firstCopies(batch: JsMsg[]): JsMsg[] {
    const seen = new Set<string>()
    let out: JsMsg[] | null = null
    for (let i = 0; i < batch.length; i++) {
      const m = batch[i] as JsMsg
      const id = msgIdOf(m)
      if (id === '' || !seen.has(id)) {
        seen.add(id)
        out?.push(m)
        continue
      }
      out ??= batch.slice(0, i)
      this.#deps.skipped(rowsOf(m))
    }
    return out ?? batch
  }

  /**
   * Redelivered messages may have been inserted before a crash lost the ack.
   * Rows carry their message id (batch_id): skip messages already stored whole;
   * of a message stored in part (a crash between the parts of an insert), load
   * only the rows not stored yet. (No DELETE: on a cluster it would be a
   * mutation on every shard racing the reload.)
   */
  async #dropAlreadyLoaded(batch: JsMsg[], bodies: Map<JsMsg, Uint8Array>): Promise<JsMsg[]> {
    const suspects = batch.filter((m) => this.#mayBeLoaded(m) && msgIdOf(m) !== '')
    if (suspects.length === 0) return batch
    const { store, retried } = this.#deps
    const ids = suspects.map(msgIdOf)
    // A retry of a request loaded before a restart carries its own receive time: look one window back.
    const range = receivedRange(suspects, suspects.some((m) => this.#freshStart(m)) ? this.#deps.windowNs : 0)
    const stored = await retried(() => storedBatchRows(store, ids, range))
    const partial: JsMsg[] = []
    const keep: JsMsg[] = []
    for (const m of batch) {
      const n = stored.get(msgIdOf(m))
      if (n === undefined) keep.push(m)
      else if (n >= rowsOf(m)) this.#deps.skipped(n)
      else {
        keep.push(m)
        // Legacy rows need nothing more: their stored event ids are dropped below anyway.
        if (!isLegacySubject(m.subject)) partial.push(m)
      }
    }
    if (partial.length > 0) {
      const known = await retried(() => storedEventIds(store, partial.map(msgIdOf), receivedRange(partial)))
      for (const m of partial) {
        const rows = readStoredRows(m.data)
        const left = rows.filter((r) => !known.has(r.event_id))
        this.#deps.skipped(rows.length - left.length)
        // The rows left, as a Native block whatever the message's format.
        bodies.set(m, encodeRows(left))
      }
    }
    return keep
  }

  /** Legacy events are deduplicated per resource by their caller-given id, forever (within retention). */
  async #dropKnownEventIds(msgs: JsMsg[], bodies: Map<JsMsg, Uint8Array>): Promise<void> {
    const read = new Map<JsMsg, StoredRow[]>()
    const byResource = new Map<string, Set<string>>()
    for (const m of msgs) {
      const rows = readStoredRows(m.data)
      read.set(m, rows)
      for (const r of rows) {
        let set = byResource.get(r.resource_id)
        if (set === undefined) byResource.set(r.resource_id, (set = new Set()))
        set.add(r.event_id)
      }
    }
    const known = new Set<string>()
    for (const [rid, ids] of byResource) {
      const found = await this.#deps.retried(() => knownEventIds(this.#deps.store, rid, [...ids]))
      for (const eid of found) known.add(rid + '/' + eid)
    }
    for (const [m, rows] of read) {
      const left: StoredRow[] = []
      for (const r of rows) {
        const key = r.resource_id + '/' + r.event_id
        if (known.has(key)) {
          this.#deps.skipped(1)
          continue
        }
        known.add(key) // the same id twice in this batch is stored once
        left.push(r)
      }
      bodies.set(m, encodeRows(left))
    }
  }
}

/** The receive times of these messages' rows (each message's rows share one), null when one cannot be read. */
function receivedRange(msgs: readonly JsMsg[], lookBackNs = 0): ReceivedRange | null {
  let lo = 0n
  let hi = 0n
  for (const m of msgs) {
    const head = storedRowHead(m.data)
    if (head === null) return null
    const t = BigInt(head.receivedNs)
    if (lo === 0n || t < lo) lo = t
    if (t > hi) hi = t
  }
  return lo === 0n ? null : { lo: (lo - BigInt(lookBackNs)).toString(), hi: hi.toString() }
}
