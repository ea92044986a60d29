// The loader's inserts: one per row format of a batch, retried until the store
// takes it, with a deduplication token that follows the content; a batch with
// bad data is loaded message by message and what fails is dead-lettered.
import { setTimeout as sleep } from 'node:timers/promises'
import { createHash } from 'node:crypto'
import pRetry from 'p-retry'
import type { JsMsg } from '@nats-io/jetstream'
import type { Broker } from '../broker/broker.ts'
import { countStoredRows, rowFormatOf, type RowFormat } from '../rows/rows-read.ts'
import type { LogStore } from '../store/store.ts'
import { rowBodyBytes, rowBodyPieces, type RowBody } from '../rows/row-body.ts'
import { isDataError } from '../store/store-errors.ts'
import { msgIdOf, rowsOf, trimmed } from './loader-messages.ts'
import type { LoaderStats } from './loader-stats.ts'
import type { LoaderObserver } from '../observer.ts'

export interface InserterDeps {
  broker: Broker
  store: LogStore
  stats: LoaderStats
  maxRetryDelayMs: number
  signal: AbortSignal
  /** Counts each insert attempt (metrics stage). */
  observer?: LoaderObserver
}

export class Inserter {
  readonly #deps: InserterDeps

  constructor(deps: InserterDeps) {
    this.#deps = deps
  }

  /**
   * Inserts these messages' rows (`bodies` holds those left in part), one insert
   * per row format: normally one (Native blocks); more only while a backlog
   * written in an earlier format (rows-read.ts) drains. Returns the rows inserted, or null when
   * the loader was killed during a retry (the batch must not be acknowledged).
   */
  async insert(todo: JsMsg[], bodies: Map<JsMsg, Uint8Array>): Promise<number | null> {
    const groups = new Map<RowFormat, JsMsg[]>()
    for (const m of todo) {
      const body = bodies.get(m) ?? m.data
      if (body.byteLength === 0) continue
      const format = rowFormatOf(body)
      const group = groups.get(format)
      if (group === undefined) groups.set(format, [m])
      else group.push(m)
    }
    let rows = 0
    for (const [format, msgs] of groups) {
      // The payloads go to the store as they are, in order (row-body.ts): no copy into one buffer.
      const body: Uint8Array[] = []
      let groupRows = 0
      for (const m of msgs) {
        const part = bodies.get(m) ?? m.data
        body.push(part)
        groupRows += bodies.has(m) ? countStoredRows(part) : rowsOf(m)
      }
      // With rows left out (stored already) the token must follow the content:
      // ClickHouse deduplicates per partition and block, so the rest of a message
      // under the message's usual token could pass for an earlier part and be dropped.
      const token = msgs.some((m) => trimmed(m, bodies)) ? contentToken(body) : batchToken(msgs)
      try {
        trace(`insert-begin ${groupRows}`)
        await this.#insertWithRetry(body, token, format)
        if (HOLD_MS > 0) await sleep(HOLD_MS)
        trace(`insert-end ${groupRows}`)
        rows += groupRows
      } catch (err) {
        if (this.#deps.signal.aborted) return null
        if (!isDataError(err)) throw err
        await this.#loadOneByOne(msgs, bodies)
      }
    }
    return rows
  }

  /** Runs a store call until it succeeds (or the loader is killed), counting failures. */
  retried<T>(fn: () => Promise<T>, shouldRetry?: (error: unknown) => boolean): Promise<T> {
    return pRetry(fn, {
      retries: Number.POSITIVE_INFINITY,
      minTimeout: 200,
      maxTimeout: this.#deps.maxRetryDelayMs,
      signal: this.#deps.signal,
      ...(shouldRetry === undefined ? {} : { shouldRetry: ({ error }: { error: unknown }) => shouldRetry(error) }),
      onFailedAttempt: () => {
        this.#deps.stats.insertErrors++
      },
    })
  }

  async #insertWithRetry(body: RowBody, token: string, format: RowFormat): Promise<void> {
    const { stats, store } = this.#deps
    const started = performance.now()
    await this.retried(() => this.#insertOnce(store, body, token, format), (error) => !isDataError(error))
    stats.lastInsertMs = performance.now() - started
    stats.insertMs += stats.lastInsertMs
  }

  async #insertOnce(store: LogStore, body: RowBody, token: string, format: RowFormat): Promise<void> {
    const observer = this.#deps.observer
    if (observer === undefined) return store.insertJsonRows('logs', body, token, format)
    const t0 = performance.now()
    try {
      await store.insertJsonRows('logs', body, token, format)
      observer.loaderInsert(true, (performance.now() - t0) / 1000, rowBodyBytes(body))
    } catch (err) {
      observer.loaderInsert(false, (performance.now() - t0) / 1000, rowBodyBytes(body))
      throw err
    }
  }

  /** A batch with bad data: load message by message and dead-letter the ones that fail. */
  async #loadOneByOne(msgs: JsMsg[], bodies: Map<JsMsg, Uint8Array>): Promise<void> {
    const { stats, broker } = this.#deps
    for (const m of msgs) {
      const body = bodies.get(m) ?? m.data
      if (body.byteLength === 0) continue
      try {
        await this.#insertWithRetry(body, trimmed(m, bodies) ? contentToken(body) : 'msg-' + (msgIdOf(m) || String(m.seq)), rowFormatOf(body))
        stats.rows += rowsOf(m)
      } catch (err) {
        if (!isDataError(err)) throw err
        await broker.deadLetter({ subject: m.subject, data: m.data, msgId: msgIdOf(m) || String(m.seq) }, String((err as Error).message))
        stats.deadLettered++
      }
    }
  }
}

// LOOKOUT_TRACE_LOADER=1: one stderr line around each insert, for fault tests
// that kill the process while an insert runs (synchronous on a pipe, so the
// line is out before the insert starts).
const TRACE = process.env.LOOKOUT_TRACE_LOADER === '1'
// LOOKOUT_TRACE_LOADER_HOLD_MS (with the trace): the loader waits this long after the engine's
// insert returned, before it acknowledges. A Native insert can return before a kill sent at
// insert-begin lands; held, the kill lands with the rows stored and not acknowledged.
const HOLD_MS = TRACE ? Number(process.env.LOOKOUT_TRACE_LOADER_HOLD_MS ?? 0) : 0
function trace(step: string): void {
  if (TRACE) process.stderr.write(`lookout-trace loader ${step}\n`)
}

/** The token of an insert whose content is not a plain concatenation of messages: its hash. */
function contentToken(body: RowBody): string {
  const h = createHash('sha256')
  for (const piece of rowBodyPieces(body)) h.update(piece)
  return 'c-' + h.digest('hex')
}

/** The same messages always give the same token, so a retried insert is deduplicated. */
function batchToken(msgs: readonly JsMsg[]): string {
  const h = createHash('sha256')
  for (const m of msgs) h.update(msgIdOf(m) || String(m.seq)).update(',')
  return h.digest('hex')
}
