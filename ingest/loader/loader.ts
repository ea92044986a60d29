// The loader: pulls row messages from JetStream (loader-pull.ts), batches them
// by rows, bytes and time, leaves out what a redelivery finds stored already
// (loader-dedup.ts), bulk-inserts into ClickHouse (loader-insert.ts), and
// acknowledges only after the insert.
import type { Consumer, JsMsg } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import { ACK_WAIT_MS, DEFAULT_DUPLICATE_WINDOW_MS, type Broker } from '../broker/broker.ts'
import type { LogStore } from '../store/store.ts'
import { InvalidOptionError, positiveNumber } from '../../core/index.ts'
import type { LoaderObserver } from '../observer.ts'
import { collectBatch } from './loader-pull.ts'
import { RedeliveryChecks } from './loader-dedup.ts'
import { Inserter } from './loader-insert.ts'
import type { LoaderStats } from './loader-stats.ts'

/** The loader's defaults; deploy/config.ts reads them for its LOOKOUT_LOADER_* variables. */
export const LOADER_DEFAULTS = { maxRows: 50_000, maxBytes: 32 * 1024 * 1024, flushMs: 1_000, minRows: 20_000, maxRetryDelayMs: 30_000 } as const

export interface LoaderOptions {
  /** Rows per insert before a batch is cut; default 50,000. */
  maxRows?: number
  /** Bytes per insert before a batch is cut; default 32 MiB. */
  maxBytes?: number
  /**
   * Longest a row waits in a partial batch while nothing else waits, ms; default 1,000. (Until
   * loader-pull.ts stopped waiting out 1 s pulls, a 500 ms flush time cut batches at about 1 s anyway.)
   */
  flushMs?: number
  /**
   * Rows a batch reaches before the flush time cuts it while a backlog waits
   * (loader-pull.ts); default 20,000. 0: the flush time always cuts.
   */
  minRows?: number
  /** Longest wait between insert retries, ms; default 30,000. */
  maxRetryDelayMs?: number
  /**
   * The JetStream duplicate window (default 10 minutes). For that long after a
   * start every message is looked up in ClickHouse, back to one window before
   * its receive time: a restarted nats-server forgets the ids of messages
   * already loaded, so a sender's retry of a request answered just before a
   * crash is not a JetStream duplicate any more, and only ClickHouse knows.
   */
  duplicateWindowMs?: number
  /** Counts each insert attempt (metrics stage). */
  observer?: LoaderObserver
}

export type { LoaderStats } from './loader-stats.ts'

export class Loader {
  readonly #maxRows: number
  readonly #maxBytes: number
  readonly #flushMs: number
  readonly #minRows: number
  readonly stats: LoaderStats = {
    batches: 0, rows: 0, messages: 0, duplicatesSkipped: 0, deadLettered: 0, insertErrors: 0, lastInsertMs: 0, insertMs: 0, lastBatchRows: 0, fetchErrors: 0,
  }
  /** The last fetch or insert error, for status reports. */
  lastError = ''
  #consumer: Consumer | null = null
  /** Messages pulled and not yet acknowledged or given back: kept from redelivery while held. */
  readonly #held = new Set<JsMsg>()
  readonly #seen = { largest: 0 }
  #keepAlive: NodeJS.Timeout | null = null
  #connection: NatsConnection | null = null
  #stopping = false
  #inserting = false
  #running: Promise<void> | null = null
  readonly #abort = new AbortController()
  readonly #broker: Broker
  readonly #inserter: Inserter
  readonly #checks: RedeliveryChecks

  constructor(broker: Broker, store: LogStore, options: LoaderOptions = {}) {
    this.#broker = broker
    this.#maxRows = positiveNumber('maxRows', options.maxRows ?? LOADER_DEFAULTS.maxRows)
    this.#maxBytes = positiveNumber('maxBytes', options.maxBytes ?? LOADER_DEFAULTS.maxBytes)
    this.#flushMs = positiveNumber('flushMs', options.flushMs ?? LOADER_DEFAULTS.flushMs)
    this.#minRows = options.minRows ?? LOADER_DEFAULTS.minRows
    if (!Number.isInteger(this.#minRows) || this.#minRows < 0) throw new InvalidOptionError('minRows', 'must be an integer >= 0')
    const maxRetryDelayMs = positiveNumber('maxRetryDelayMs', options.maxRetryDelayMs ?? LOADER_DEFAULTS.maxRetryDelayMs)
    const windowNs = positiveNumber('duplicateWindowMs', options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS) * 1e6
    this.#inserter = new Inserter({ broker, store, stats: this.stats, maxRetryDelayMs, signal: this.#abort.signal, observer: options.observer })
    this.#checks = new RedeliveryChecks({
      store,
      windowNs,
      retried: (fn) => this.#inserter.retried(fn),
      skipped: (rows) => {
        this.stats.duplicatesSkipped += rows
      },
    })
  }

  async start(): Promise<void> {
    const { consumer, connection } = await this.#broker.openConsumer()
    this.#consumer = consumer
    this.#connection = connection
    this.#keepAlive = setInterval(() => {
      for (const m of this.#held) m.working()
    }, ACK_WAIT_MS / 2)
    this.#running = this.#run().finally(() => {
      if (this.#keepAlive !== null) clearInterval(this.#keepAlive)
    })
  }

  /**
   * Stops pulling, loads and acknowledges what it holds, then resolves. If the
   * store does not take the batch within `graceMs`, gives it up unacknowledged:
   * JetStream keeps it for the next loader, nothing is lost.
   */
  async stop(graceMs = 5000): Promise<void> {
    this.#stopping = true
    let timer: NodeJS.Timeout | undefined
    const expired = new Promise<void>((resolve) => {
      timer = setTimeout(() => {
        this.#abort.abort()
        resolve()
      }, graceMs)
    })
    await Promise.race([this.#running?.catch(() => undefined), expired])
    clearTimeout(timer)
    await this.#running?.catch(() => undefined)
  }

  /** Stops at once: a batch being retried is abandoned unacknowledged (JetStream redelivers it). */
  async kill(): Promise<void> {
    this.#stopping = true
    this.#abort.abort()
    await this.#running?.catch(() => undefined)
  }

  async #run(): Promise<void> {
    let next = this.#collect()
    while (!this.#stopping) {
      const batch = await next
      // The next batch is pulled while this one loads: the insert runs on the
      // engine's threads (or the server), the pull on this one.
      next = this.#stopping ? Promise.resolve([]) : this.#collect()
      if (batch.length === 0) continue
      this.#inserting = true
      try {
        await this.#load(batch)
      } catch (err) {
        // Not acknowledged: JetStream redelivers the batch after the ack wait.
        this.lastError = String((err as Error)?.message ?? err)
        for (const m of batch) this.#held.delete(m)
        if (this.#abort.signal.aborted) break
      } finally {
        this.#inserting = false
      }
    }
    // Pulled but not loaded: give it back at once for another loader (or the next start).
    for (const m of await next) {
      m.nak()
      this.#held.delete(m)
    }
    for (const m of this.#held) this.#held.delete(m)
  }

  #collect(): Promise<JsMsg[]> {
    return collectBatch({
      consumer: this.#consumer as Consumer,
      stats: this.stats,
      held: this.#held,
      stopping: () => this.#stopping,
      inserting: () => this.#inserting,
      failed: (message) => {
        this.lastError = message
      },
      seen: this.#seen,
    }, { maxRows: this.#maxRows, maxBytes: this.#maxBytes, flushMs: this.#flushMs, minRows: this.#minRows })
  }

  async #load(batch: JsMsg[]): Promise<void> {
    const bodies = new Map<JsMsg, Uint8Array>()
    const todo = await this.#checks.dropStored(batch, bodies)
    const rows = await this.#inserter.insert(todo, bodies)
    if (rows === null) return
    // Counted before the acks go out: a reader who sees the stream drained also sees the rows counted.
    this.stats.batches++
    this.stats.messages += batch.length
    this.stats.rows += rows
    this.stats.lastBatchRows = rows
    for (const m of batch) {
      m.ack()
      this.#held.delete(m)
      this.#checks.loaded(m)
    }
    await this.#connection?.flush().catch(() => undefined)
  }
}

