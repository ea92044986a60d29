// The loader: pulls row messages from JetStream, batches them by rows, bytes
// and time, bulk-inserts into ClickHouse, and acknowledges only after the insert.
import { createHash } from 'node:crypto'
import pRetry from 'p-retry'
import type { Consumer, JsMsg } from '@nats-io/jetstream'
import type { NatsConnection } from '@nats-io/transport-node'
import { ACK_WAIT_MS, DEFAULT_DUPLICATE_WINDOW_MS, HEADER_ROWS, isLegacySubject, type Broker } from './broker.ts'
import { rowFormatOf, storedRowHead, storedRowIds, type RowFormat } from './rows.ts'
import type { LogStore } from './store.ts'
import { InvalidOptionError } from '../core/index.ts'
import { isDataError } from './store-errors.ts'
import { knownEventIds, storedBatchRows, storedEventIds, type ReceivedRange } from './stored.ts'
import { RecentIds } from './recent-ids.ts'
import type { LoaderObserver } from './observer.ts'
import { positiveNumber } from '../core/index.ts'

/** The loader's defaults; deploy/config.ts reads them for its LOOKOUT_LOADER_* variables. */
export const LOADER_DEFAULTS = { maxRows: 50_000, maxBytes: 32 * 1024 * 1024, flushMs: 500, maxRetryDelayMs: 30_000 } as const

export interface LoaderOptions {
  /** Rows per insert before a batch is cut; default 50,000. */
  maxRows?: number
  /** Bytes per insert before a batch is cut; default 32 MiB. */
  maxBytes?: number
  /** Longest a row waits in a partial batch, ms; default 500. */
  flushMs?: number
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

export interface LoaderStats {
  batches: number
  rows: number
  messages: number
  duplicatesSkipped: number
  deadLettered: number
  insertErrors: number
  lastInsertMs: number
  /** Milliseconds spent in inserts, in all. */
  insertMs: number
  lastBatchRows: number
  fetchErrors: number
}

const MIN_FETCH_BYTES = 9 * 1024 * 1024
const EMPTY = Buffer.alloc(0)
/** Message ids a loader remembers having loaded (recent-ids.ts): minutes of traffic at full rate, a few MiB. */
const RECENT_IDS = 65_536

export class Loader {
  readonly #broker: Broker
  readonly #store: LogStore
  readonly #maxRows: number
  readonly #maxBytes: number
  readonly #flushMs: number
  readonly #maxRetryDelayMs: number
  readonly #windowNs: number
  readonly stats: LoaderStats = {
    batches: 0, rows: 0, messages: 0, duplicatesSkipped: 0, deadLettered: 0, insertErrors: 0, lastInsertMs: 0, insertMs: 0, lastBatchRows: 0, fetchErrors: 0,
  }
  /** The last fetch or insert error, for status reports. */
  lastError = ''
  #consumer: Consumer | null = null
  /** Messages pulled and not yet acknowledged or given back: kept from redelivery while held. */
  readonly #held = new Set<JsMsg>()
  #keepAlive: NodeJS.Timeout | null = null
  #connection: NatsConnection | null = null
  #stopping = false
  #running: Promise<void> | null = null
  #abort = new AbortController()
  #scratch = EMPTY
  readonly #recent = new RecentIds(RECENT_IDS)
  /** When this loader started, ns since the epoch (a double: sub-microsecond precision is not needed). */
  readonly #startedNs = Date.now() * 1e6
  readonly #observer: LoaderObserver | undefined

  constructor(broker: Broker, store: LogStore, options: LoaderOptions = {}) {
    this.#broker = broker
    this.#store = store
    this.#maxRows = positiveNumber('maxRows', options.maxRows ?? LOADER_DEFAULTS.maxRows)
    this.#maxBytes = positiveNumber('maxBytes', options.maxBytes ?? LOADER_DEFAULTS.maxBytes)
    this.#flushMs = positiveNumber('flushMs', options.flushMs ?? LOADER_DEFAULTS.flushMs)
    this.#maxRetryDelayMs = positiveNumber('maxRetryDelayMs', options.maxRetryDelayMs ?? LOADER_DEFAULTS.maxRetryDelayMs)
    this.#windowNs = positiveNumber('duplicateWindowMs', options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS) * 1e6
    this.#observer = options.observer
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
      try {
        await this.#load(batch)
      } catch (err) {
        // Not acknowledged: JetStream redelivers the batch after the ack wait.
        this.lastError = String((err as Error)?.message ?? err)
        for (const m of batch) this.#held.delete(m)
        if (this.#abort.signal.aborted) break
      }
    }
    // Pulled but not loaded: give it back at once for another loader (or the next start).
    for (const m of await next) {
      m.nak()
      this.#held.delete(m)
    }
    for (const m of this.#held) this.#held.delete(m)
  }

  /** Gathers one batch: returns when it is full, its oldest message is flushMs old, or on stop. */
  async #collect(): Promise<JsMsg[]> {
    const batch: JsMsg[] = []
    let rows = 0
    let bytes = 0
    let deadline = 0
    const consumer = this.#consumer as Consumer
    while (!this.#stopping && rows < this.#maxRows && bytes < this.#maxBytes) {
      const wait = deadline === 0 ? 1_000 : deadline - Date.now()
      if (deadline !== 0 && wait <= 0) break
      let iter
      try {
        // Bounded by bytes too; a pull must still fit the largest message (the server's max_payload).
        const maxBytes = Math.max(MIN_FETCH_BYTES, this.#maxBytes - bytes)
        iter = await consumer.fetch({ max_bytes: maxBytes, expires: Math.max(wait, 50) })
      } catch (err) {
        // The connection is reconnecting: wait and pull again.
        this.stats.fetchErrors++
        this.lastError = String((err as Error)?.message ?? err)
        await sleep(250)
        continue
      }
      try {
        for await (const m of iter) {
          batch.push(m)
          this.#held.add(m)
          rows += rowsOf(m)
          bytes += m.data.byteLength
          if (deadline === 0) deadline = Date.now() + this.#flushMs
        }
      } catch (err) {
        // 409 "message size exceeds maxbytes" ends a pull whose next message does not fit: normal.
        if ((err as { code?: unknown }).code !== 409) {
          this.stats.fetchErrors++
          this.lastError = String((err as Error)?.message ?? err)
        }
      }
      // A pull that waited its full second for nothing: the burst is over, and the insert
      // buffer (up to 1.25x maxBytes) goes back; an insert still using it keeps its own reference.
      if (batch.length === 0) this.#scratch = EMPTY
    }
    return batch
  }

  async #load(batch: JsMsg[]): Promise<void> {
    let todo = this.#firstCopies(batch)
    const bodies = new Map<JsMsg, Uint8Array>()
    if (todo.some((m) => this.#mayBeLoaded(m))) todo = await this.#dropAlreadyLoaded(todo, bodies)
    const legacy = todo.filter((m) => isLegacySubject(m.subject))
    if (legacy.length > 0) await this.#dropKnownEventIds(legacy, bodies)
    // One insert per row format: normally one; two only while a backlog written
    // before the compact format (rows.ts) drains.
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
      const parts: Uint8Array[] = []
      let groupRows = 0
      let size = 0
      for (const m of msgs) {
        const part = bodies.get(m) ?? m.data
        parts.push(part)
        size += part.byteLength
        groupRows += bodies.has(m) ? countLines(part) : rowsOf(m)
      }
      const body = this.#insertBuffer(size)
      let offset = 0
      for (const part of parts) {
        body.set(part, offset)
        offset += part.byteLength
      }
      // With rows left out (stored already) the token must follow the content:
      // ClickHouse deduplicates per partition and block, so the rest of a message
      // under the message's usual token could pass for an earlier part and be dropped.
      const token = msgs.some((m) => trimmed(m, bodies)) ? contentToken(body) : batchToken(msgs)
      try {
        trace(`insert-begin ${groupRows}`)
        await this.#insertWithRetry(body, token, format)
        trace(`insert-end ${groupRows}`)
        rows += groupRows
      } catch (err) {
        if (this.#abort.signal.aborted) return
        if (!isDataError(err)) throw err
        await this.#loadOneByOne(msgs, bodies)
      }
    }
    for (const m of batch) {
      m.ack()
      this.#held.delete(m)
      this.#recent.add(msgIdOf(m))
    }
    await this.#connection?.flush().catch(() => undefined)
    this.stats.batches++
    this.stats.messages += batch.length
    this.stats.rows += rows
    this.stats.lastBatchRows = rows
  }

  /**
   * The bytes of one insert, in a buffer kept from batch to batch: a fresh
   * 32 MiB buffer per insert cost more in page faults than the copy itself.
   * Safe to reuse: one batch loads at a time, and an insert is done with its
   * body when it settles.
   */
  #insertBuffer(size: number): Buffer {
    if (this.#scratch.byteLength < size) this.#scratch = Buffer.allocUnsafeSlow(Math.ceil(size * 1.25))
    return this.#scratch.subarray(0, size)
  }

  async #insertWithRetry(body: Uint8Array, token: string, format: RowFormat): Promise<void> {
    const started = performance.now()
    await this.#insertRetried(body, token, format)
    this.stats.lastInsertMs = performance.now() - started
    this.stats.insertMs += this.stats.lastInsertMs
  }

  async #insertOnce(body: Uint8Array, token: string, format: RowFormat): Promise<void> {
    const observer = this.#observer
    if (observer === undefined) return this.#store.insertJsonRows('logs', body, token, format)
    const t0 = performance.now()
    try {
      await this.#store.insertJsonRows('logs', body, token, format)
      observer.loaderInsert(true, (performance.now() - t0) / 1000, body.byteLength)
    } catch (err) {
      observer.loaderInsert(false, (performance.now() - t0) / 1000, body.byteLength)
      throw err
    }
  }

  #insertRetried(body: Uint8Array, token: string, format: RowFormat): Promise<void> {
    return pRetry(() => this.#insertOnce(body, token, format), {
      retries: Number.POSITIVE_INFINITY,
      minTimeout: 200,
      maxTimeout: this.#maxRetryDelayMs,
      signal: this.#abort.signal,
      shouldRetry: ({ error }) => !isDataError(error),
      onFailedAttempt: () => {
        this.stats.insertErrors++
      },
    })
  }

  /** A batch with bad data: load message by message and dead-letter the ones that fail. */
  async #loadOneByOne(msgs: JsMsg[], bodies: Map<JsMsg, Uint8Array>): Promise<void> {
    for (const m of msgs) {
      const body = bodies.get(m) ?? m.data
      if (body.byteLength === 0) continue
      try {
        await this.#insertWithRetry(body, trimmed(m, bodies) ? contentToken(body) : 'msg-' + (msgIdOf(m) || String(m.seq)), rowFormatOf(body))
        this.stats.rows += rowsOf(m)
      } catch (err) {
        if (!isDataError(err)) throw err
        await this.#broker.deadLetter({ subject: m.subject, data: m.data, msgId: msgIdOf(m) || String(m.seq) }, String((err as Error).message))
        this.stats.deadLettered++
      }
    }
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
    return Number(m.info.timestampNanos) < this.#startedNs + this.#windowNs
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
      this.stats.duplicatesSkipped += rowsOf(m)
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
    const ids = suspects.map(msgIdOf)
    // A retry of a request loaded before a restart carries its own receive time: look one window back.
    const range = receivedRange(suspects, suspects.some((m) => this.#freshStart(m)) ? this.#windowNs : 0)
    const stored = await this.#withRetry(() => storedBatchRows(this.#store, ids, range))
    const partial: JsMsg[] = []
    const keep: JsMsg[] = []
    for (const m of batch) {
      const n = stored.get(msgIdOf(m))
      if (n === undefined) keep.push(m)
      else if (n >= rowsOf(m)) this.stats.duplicatesSkipped += n
      else {
        keep.push(m)
        // Legacy rows need nothing more: their stored event ids are dropped below anyway.
        if (!isLegacySubject(m.subject)) partial.push(m)
      }
    }
    if (partial.length > 0) {
      const known = await this.#withRetry(() => storedEventIds(this.#store, partial.map(msgIdOf), receivedRange(partial)))
      const decoder = new TextDecoder()
      for (const m of partial) {
        let text = ''
        for (const line of decoder.decode(m.data).split('\n')) {
          if (line === '') continue
          if (known.has(storedRowIds(line).eventId)) this.stats.duplicatesSkipped++
          else text += line + '\n'
        }
        bodies.set(m, Buffer.from(text))
      }
    }
    return keep
  }

  /** Legacy events are deduplicated per resource by their caller-given id, forever (within retention). */
  async #dropKnownEventIds(msgs: JsMsg[], bodies: Map<JsMsg, Uint8Array>): Promise<void> {
    const lines = new Map<JsMsg, { rid: string; eid: string; line: string }[]>()
    const byResource = new Map<string, Set<string>>()
    const decoder = new TextDecoder()
    for (const m of msgs) {
      const list = decoder.decode(m.data).split('\n').filter((l) => l !== '').map((line) => {
        const ids = storedRowIds(line)
        return { rid: ids.resourceId, eid: ids.eventId, line }
      })
      lines.set(m, list)
      for (const l of list) {
        let set = byResource.get(l.rid)
        if (set === undefined) byResource.set(l.rid, (set = new Set()))
        set.add(l.eid)
      }
    }
    const known = new Set<string>()
    for (const [rid, ids] of byResource) {
      const found = await this.#withRetry(() => knownEventIds(this.#store, rid, [...ids]))
      for (const eid of found) known.add(rid + '/' + eid)
    }
    for (const [m, list] of lines) {
      let text = ''
      for (const l of list) {
        const key = l.rid + '/' + l.eid
        if (known.has(key)) {
          this.stats.duplicatesSkipped++
          continue
        }
        known.add(key) // the same id twice in this batch is stored once
        text += l.line + '\n'
      }
      bodies.set(m, Buffer.from(text))
    }
  }

  #withRetry<T>(fn: () => Promise<T>): Promise<T> {
    return pRetry(fn, {
      retries: Number.POSITIVE_INFINITY,
      minTimeout: 200,
      maxTimeout: this.#maxRetryDelayMs,
      signal: this.#abort.signal,
      onFailedAttempt: () => {
        this.stats.insertErrors++
      },
    })
  }
}

function rowsOf(m: JsMsg): number {
  return Number(m.headers?.get(HEADER_ROWS) ?? 0) || countLines(m.data)
}

function msgIdOf(m: JsMsg): string {
  return m.headers?.get('Nats-Msg-Id') ?? ''
}

const headDecoder = new TextDecoder()

/** The receive times of these messages' rows (each message's rows share one), null when one cannot be read. */
function receivedRange(msgs: readonly JsMsg[], lookBackNs = 0): ReceivedRange | null {
  let lo = 0n
  let hi = 0n
  for (const m of msgs) {
    const head = storedRowHead(headDecoder.decode(m.data.subarray(0, 160)))
    if (head === null) return null
    const t = BigInt(head.receivedNs)
    if (lo === 0n || t < lo) lo = t
    if (t > hi) hi = t
  }
  return lo === 0n ? null : { lo: (lo - BigInt(lookBackNs)).toString(), hi: hi.toString() }
}

function countLines(b: Uint8Array): number {
  let n = 0
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++
  return n
}

/** Whether rows were left out of this message's payload. */
function trimmed(m: JsMsg, bodies: Map<JsMsg, Uint8Array>): boolean {
  const b = bodies.get(m)
  return b !== undefined && b.byteLength !== m.data.byteLength
}

// LOOKOUT_TRACE_LOADER=1: one stderr line around each insert, for fault tests
// that kill the process while an insert runs (synchronous on a pipe, so the
// line is out before the insert starts).
const TRACE = process.env.LOOKOUT_TRACE_LOADER === '1'
function trace(step: string): void {
  if (TRACE) process.stderr.write(`lookout-trace loader ${step}\n`)
}

/** The token of an insert whose content is not a plain concatenation of messages: its hash. */
function contentToken(body: Uint8Array): string {
  return 'c-' + createHash('sha256').update(body).digest('hex')
}

/** The same messages always give the same token, so a retried insert is deduplicated. */
function batchToken(msgs: readonly JsMsg[]): string {
  const h = createHash('sha256')
  for (const m of msgs) h.update(msgIdOf(m) || String(m.seq)).update(',')
  return h.digest('hex')
}


function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
