// The live tail's source: a core NATS subscription to the row subjects (it
// sees every message the API publishes to JetStream, as it is published; an
// extra JetStream consumer is not allowed on the work-queue stream), kept in
// a ring bounded by bytes and age. Tail sessions read the ring at their own
// pace: a session that falls out of it is dropped, so nothing buffers without
// bound; a reconnect whose Last-Event-ID is still in the ring resumes exactly.
import { randomBytes } from 'node:crypto'
import type { Msg, NatsConnection, Subscription } from '@nats-io/transport-node'
import { readStoredRows, storedRowHead } from '../../ingest/index.ts'
import { positiveNumber } from '../../core/index.ts'
import { eventRowOf, toEvent, type LogEvent } from '../event.ts'

/** The tail's defaults: how much and how long a hub keeps for resuming clients. */
export const TAIL_DEFAULTS = { maxBytes: 32 * 1024 * 1024, maxAgeMs: 5 * 60_000, lingerMs: 5 * 60_000 } as const

export interface TailHubOptions {
  /** The connection to listen on (TailHubs gives its own, never the publish connection). */
  connection: () => NatsConnection
  /** Subjects carrying stored-row messages (ingest/rows/rows.ts). */
  subjects: readonly string[]
  /** Raw message bytes kept for resuming and for slow readers; default 32 MiB. */
  maxBytes?: number
  /** Longest a message is kept; default 5 minutes. */
  maxAgeMs?: number
  /** Keep listening this long after the last session ends, so a reconnect resumes from the ring; default 5 minutes. */
  lingerMs?: number
}

/** One published message: the rows of one request chunk (one workspace, one resource). */
export interface TailEntry {
  seq: number
  /** Arrival here, ms since the epoch. */
  arrivedMs: number
  workspaceId: string
  resourceId: string
  /** received_at of every row in it, ns as text. */
  receivedNs: string
  msgId: string
  data: Uint8Array
  /** Parsed on first use. */
  events: LogEvent[] | null
}

export interface TailLine {
  event: LogEvent
  workspaceId: string
}

export class TailHub {
  readonly epoch = randomBytes(6).toString('hex')
  readonly #opts: Required<Omit<TailHubOptions, 'connection' | 'subjects'>>
  readonly #connection: () => NatsConnection
  readonly #subjects: readonly string[]
  #subs: Subscription[] = []
  #listening: Promise<void> = Promise.resolve()
  #ring: TailEntry[] = []
  #ringStart = 0
  #bytes = 0
  #seq = 0
  #startedMs = 0
  #byMsgId = new Map<string, number>()
  #sessions = 0
  #linger: NodeJS.Timeout | null = null
  #wake: { promise: Promise<void>; resolve: () => void } = deferred()
  #closed = false
  readonly #closers = new Set<() => void>()

  constructor(o: TailHubOptions) {
    this.#connection = o.connection
    this.#subjects = o.subjects
    this.#opts = {
      maxBytes: positiveNumber('tail maxBytes', o.maxBytes ?? TAIL_DEFAULTS.maxBytes),
      maxAgeMs: positiveNumber('tail maxAgeMs', o.maxAgeMs ?? TAIL_DEFAULTS.maxAgeMs),
      lingerMs: positiveNumber('tail lingerMs', o.lingerMs ?? TAIL_DEFAULTS.lingerMs),
    }
  }

  /** Sequence of the newest message (0 before any). */
  get head(): number {
    return this.#seq
  }

  /** Sequence of the oldest message still held. */
  get first(): number {
    return this.#ring[this.#ringStart]?.seq ?? this.#seq + 1
  }

  /** Sessions reading this hub now. */
  get sessions(): number {
    return this.#sessions
  }

  /** When the subscription started (ms), 0 when not listening. */
  get startedMs(): number {
    return this.#startedMs
  }

  get closed(): boolean {
    return this.#closed
  }

  /**
   * Resolves once the server has this hub's subscriptions, so that every line
   * published after it reaches the hub. A session waits for it before its first
   * byte: a client that sees the stream open and then sends a line must find
   * that line on it (the subscription and the publish travel on different connections).
   */
  get listening(): Promise<void> {
    return this.#listening
  }

  /** A session begins: listen (if not yet). onClose runs when the hub shuts down. */
  acquire(onClose: () => void): void {
    if (this.#closed) throw new Error('tail hub closed')
    this.#sessions++
    this.#closers.add(onClose)
    if (this.#linger !== null) {
      clearTimeout(this.#linger)
      this.#linger = null
    }
    if (this.#subs.length === 0) this.#listen()
  }

  release(onClose: () => void): void {
    if (!this.#closers.delete(onClose)) return
    this.#sessions--
    if (this.#sessions === 0 && !this.#closed) {
      this.#linger = setTimeout(() => this.#stopListening(), this.#opts.lingerMs)
      this.#linger.unref()
    }
  }

  entry(seq: number): TailEntry | undefined {
    const first = this.first
    if (seq < first || seq > this.#seq) return undefined
    return this.#ring[this.#ringStart + (seq - first)]
  }

  /** The events of a message, parsed once. */
  events(e: TailEntry): LogEvent[] {
    if (e.events !== null) return e.events
    const out: LogEvent[] = []
    for (const row of readStoredRows(e.data)) out.push(toEvent(eventRowOf(row)))
    e.events = out
    // Parsed objects cost memory too: count them against the budget.
    this.#bytes += e.data.byteLength
    this.#evict()
    return out
  }

  /** Resolves at the next message, at close, when `cancel` settles, or after `ms`. */
  async wait(ms: number, cancel: Promise<void>): Promise<void> {
    let timer: NodeJS.Timeout | undefined
    await Promise.race([this.#wake.promise, cancel, new Promise<void>((r) => { timer = setTimeout(r, ms) })])
    clearTimeout(timer)
  }

  close(): void {
    if (this.#closed) return
    this.#closed = true
    if (this.#linger !== null) clearTimeout(this.#linger)
    this.#stopListening()
    for (const c of [...this.#closers]) c()
    this.#wake.resolve()
  }

  #listen(): void {
    const nc = this.#connection()
    this.#ring = []
    this.#ringStart = 0
    this.#bytes = 0
    this.#byMsgId.clear()
    this.#startedMs = Date.now()
    const callback = (err: Error | null, msg: Msg) => {
      if (err === null) this.#push(msg)
    }
    this.#subs = this.#subjects.map((s) => nc.subscribe(s, { callback }))
    // The server handles a connection's messages in order: its answer to this
    // ping means the subscriptions above are in place. A failed flush (the
    // connection closing) ends the sessions by other means.
    this.#listening = nc.flush().catch(() => undefined)
  }

  #stopListening(): void {
    for (const s of this.#subs) s.unsubscribe()
    this.#subs = []
    this.#startedMs = 0
    this.#ring = []
    this.#ringStart = 0
    this.#bytes = 0
    this.#byMsgId.clear()
  }

  #push(msg: Msg): void {
    const data = msg.data
    if (data.byteLength === 0) return
    const msgId = msg.headers?.get('Nats-Msg-Id') ?? ''
    // A sender's retry is a JetStream duplicate, but core subscribers see it again.
    if (msgId !== '' && this.#byMsgId.has(msgId)) return
    // A message that cannot be read is not shown (the loader dead-letters it).
    const head = storedRowHead(data)
    if (head === null) return
    const seq = ++this.#seq
    this.#ring.push({ seq, arrivedMs: Date.now(), workspaceId: head.workspaceId, resourceId: head.resourceId, receivedNs: head.receivedNs, msgId, data, events: null })
    this.#bytes += data.byteLength
    if (msgId !== '') this.#byMsgId.set(msgId, seq)
    this.#evict()
    const w = this.#wake
    this.#wake = deferred()
    w.resolve()
  }

  #evict(): void {
    const oldest = Date.now() - this.#opts.maxAgeMs
    while (this.#ringStart < this.#ring.length) {
      const e = this.#ring[this.#ringStart] as TailEntry
      // Keep the newest message whatever its size, so a live reader always has it.
      if (this.#ringStart === this.#ring.length - 1) break
      if (this.#bytes <= this.#opts.maxBytes && e.arrivedMs >= oldest) break
      this.#bytes -= e.data.byteLength * (e.events === null ? 1 : 2)
      if (this.#byMsgId.get(e.msgId) === e.seq) this.#byMsgId.delete(e.msgId)
      this.#ring[this.#ringStart] = undefined as unknown as TailEntry
      this.#ringStart++
    }
    // Compact now and then so the array does not grow forever.
    if (this.#ringStart > 1024 && this.#ringStart * 2 > this.#ring.length) {
      this.#ring = this.#ring.slice(this.#ringStart)
      this.#ringStart = 0
    }
  }
}

function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void
  const promise = new Promise<void>((r) => { resolve = r })
  return { promise, resolve }
}

