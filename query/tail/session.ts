// One live-tail client: Server-Sent Events read from the hub's ring at the
// client's pace. Every event's id names its place (hub epoch, message
// sequence, line, receive time), so a reconnect with Last-Event-ID resumes
// from the ring exactly, or, when the ring no longer holds that place (another
// process, a restart, a long absence), from ClickHouse by receive time first.
import type { ServerResponse } from 'node:http'
import type { LogStore } from '../../ingest/index.ts'
import { toEvent, type EventRow, type LogEvent } from '../event.ts'
import type { LogFilter } from '../filters.ts'
import { receivedQuery, type ReceivedPosition } from '../sql.ts'
import { matchesText } from '../text.ts'
import { matchesAttrs } from '../attrs.ts'
import type { TailEntry, TailHub } from './hub.ts'

export interface ResumePoint {
  epoch: string
  /** Message sequence in that epoch's ring; 0 for a line sent during a catch-up. */
  seq: number
  line: number
  receivedNs: bigint
}

const ID_RE = /^([0-9a-f]{12})\.(\d{1,15})\.(\d{1,9})\.(\d{1,19})$/

/** A Last-Event-ID this server wrote, or null. */
export function parseLastEventId(s: string): ResumePoint | null {
  const m = ID_RE.exec(s.trim())
  if (m === null) return null
  return { epoch: m[1] as string, seq: Number(m[2]), line: Number(m[3]), receivedNs: BigInt(m[4] as string) }
}

export interface TailSessionOptions {
  hub: TailHub
  store: LogStore
  /** The stream's filter (no time range). */
  filter: LogFilter
  /** Bytes buffered on the socket before the session waits for the client; default 256 KiB. */
  highWaterBytes?: number
  /** Longest wait for a client to take buffered bytes before it is dropped; default 5 s. */
  drainTimeoutMs?: number
  /** A comment line after this much silence keeps proxies from closing the stream; default 15 s. */
  heartbeatMs?: number
  /** A catch-up also resends lines received up to this long before the last one seen (publish order is not receive order); default 5 s. */
  graceMs?: number
  /** Time the loader needs to store what was published; a catch-up trusts ClickHouse only for older messages; default 2 s. */
  settleMs?: number
}

const MS = 1_000_000n
const CATCH_UP_PAGE = 1000

export class TailSession {
  readonly #res: ServerResponse
  readonly #hub: TailHub
  readonly #store: LogStore
  readonly #f: LogFilter
  readonly #highWater: number
  readonly #drainTimeoutMs: number
  readonly #heartbeatMs: number
  readonly #graceNs: bigint
  readonly #settleMs: number
  #closed = false
  readonly #ended = Promise.withResolvers<void>()
  #lastWrite = Date.now()
  /** Why the stream ended: 'client', 'slow', 'shutdown'. */
  endReason = ''
  /** Events written. */
  sent = 0

  constructor(res: ServerResponse, o: TailSessionOptions) {
    this.#res = res
    this.#hub = o.hub
    this.#store = o.store
    this.#f = o.filter
    this.#highWater = o.highWaterBytes ?? 256 * 1024
    this.#drainTimeoutMs = o.drainTimeoutMs ?? 5_000
    this.#heartbeatMs = o.heartbeatMs ?? 15_000
    this.#graceNs = BigInt(o.graceMs ?? 5_000) * MS
    this.#settleMs = o.settleMs ?? 2_000
    res.on('close', () => this.#end('client'))
  }

  readonly #onHubClose = (): void => {
    this.#end('shutdown')
    this.#res.end()
  }

  async run(resume: ResumePoint | null): Promise<void> {
    const hub = this.#hub
    hub.acquire(this.#onHubClose)
    try {
      // Nothing is written (not even the headers) before the hub listens.
      await hub.listening
      if (!(await this.#write(`retry: 1000\n: lookout tail ${hub.epoch}\n\n`))) return
      let seq: number
      let line = 0
      let skip: { beforeNs: bigint; keys: Set<string> } | null = null
      if (resume === null) seq = hub.head + 1
      else if (resume.epoch === hub.epoch && resume.seq >= hub.first && resume.seq <= hub.head) {
        seq = resume.seq
        line = resume.line + 1
      } else {
        const c = await this.#catchUp(resume)
        if (c === null) return
        seq = c.seq
        skip = { beforeNs: resume.receivedNs - this.#graceNs, keys: c.keys }
      }
      while (!this.#closed && !hub.closed) {
        if (seq > hub.head) {
          await hub.wait(this.#heartbeatMs, this.#ended.promise)
          if (seq > hub.head && Date.now() - this.#lastWrite >= this.#heartbeatMs && !(await this.#write(': ping\n\n'))) return
          continue
        }
        const entry = hub.entry(seq)
        if (entry === undefined) {
          // Fell out of the ring: the client reads slower than lines arrive.
          this.#drop()
          return
        }
        if (this.#inScope(entry) && !(await this.#deliver(entry, line, skip))) return
        seq++
        line = 0
      }
    } finally {
      hub.release(this.#onHubClose)
    }
  }

  #inScope(e: TailEntry): boolean {
    return e.workspaceId === this.#f.workspaceId && (this.#f.resourceIds === null || this.#f.resourceIds.includes(e.resourceId))
  }

  async #deliver(entry: TailEntry, from: number, skip: { beforeNs: bigint; keys: Set<string> } | null): Promise<boolean> {
    if (skip !== null && BigInt(entry.receivedNs) < skip.beforeNs) return true
    const events = this.#hub.events(entry)
    let chunk = ''
    for (let i = from; i < events.length; i++) {
      const ev = events[i] as LogEvent
      if (skip !== null && skip.keys.has(ev.event_id + '/' + ev.resource_id)) continue
      if (!this.#matches(ev)) continue
      chunk += `id: ${this.#hub.epoch}.${entry.seq}.${i}.${entry.receivedNs}\ndata: ${JSON.stringify(ev)}\n\n`
      this.sent++
    }
    return chunk === '' || this.#write(chunk)
  }

  #matches(ev: LogEvent): boolean {
    const f = this.#f
    if (f.minSeverity !== null && ev.severity_number < f.minSeverity) return false
    if (f.traceId !== null && ev.trace_id !== f.traceId) return false
    if (f.attrs !== undefined && !matchesAttrs(f.attrs, ev.attributes, ev.resource_attributes)) return false
    return f.text === null || matchesText(f.text, ev.message, ev.attributes)
  }

  /**
   * Sends, from ClickHouse, the matching lines received since shortly before
   * the last one the client saw, then returns where to go on in the ring and
   * which of the ring's lines were already sent. Messages older than the ring
   * are in ClickHouse once the loader has had `settle` to store them.
   */
  async #catchUp(resume: ResumePoint): Promise<{ seq: number; keys: Set<string> } | null> {
    const hub = this.#hub
    const firstArrival = hub.entry(hub.first)?.arrivedMs ?? Date.now()
    const wait = firstArrival + this.#settleMs - Date.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    if (this.#closed) return null
    const seq = hub.first
    // Lines at or after this receive time may also be in the ring: remember what was sent of them.
    let ringFloor = BigInt(Date.now()) * MS
    for (let s = seq; s <= hub.head; s++) {
      const e = hub.entry(s)
      if (e !== undefined && BigInt(e.receivedNs) < ringFloor) ringFloor = BigInt(e.receivedNs)
    }
    ringFloor -= this.#graceNs
    const since = resume.receivedNs - this.#graceNs
    const until = BigInt(Date.now()) * MS
    const keys = new Set<string>()
    let after: ReceivedPosition | null = null
    for (;;) {
      const q = receivedQuery(this.#store.database, this.#f, since, until, after, CATCH_UP_PAGE)
      const r = await this.#store.query<EventRow>(q.sql, q.params)
      let chunk = ''
      for (const row of r.rows) {
        const ev = toEvent(row)
        if (BigInt(row.received_at_ns) >= ringFloor) keys.add(ev.event_id + '/' + ev.resource_id)
        if (!this.#matches(ev)) continue
        chunk += `id: ${hub.epoch}.0.0.${row.received_at_ns}\ndata: ${JSON.stringify(ev)}\n\n`
        this.sent++
      }
      if (chunk !== '' && !(await this.#write(chunk))) return null
      const last = r.rows[r.rows.length - 1]
      if (r.rows.length < CATCH_UP_PAGE || last === undefined) break
      after = { receivedNs: BigInt(last.received_at_ns), eventId: last.event_id, resourceId: last.resource_id }
    }
    return { seq, keys }
  }

  /** Writes, then waits while too much is buffered; false when the stream is over. */
  async #write(chunk: string): Promise<boolean> {
    if (this.#closed) return false
    this.#res.write(chunk)
    this.#lastWrite = Date.now()
    if (this.#res.writableLength <= this.#highWater) return true
    const drained = await new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer)
        this.#res.off('drain', onDrain)
        this.#res.off('close', onClose)
        resolve(ok)
      }
      const onDrain = () => done(true)
      const onClose = () => done(false)
      const timer = setTimeout(() => done(false), this.#drainTimeoutMs)
      this.#res.on('drain', onDrain)
      this.#res.on('close', onClose)
    })
    if (!drained && !this.#closed) this.#drop()
    return drained && !this.#closed
  }

  /** A slow client is cut off, not buffered for: it may reconnect with its Last-Event-ID. */
  #drop(): void {
    this.#end('slow')
    this.#res.destroy()
  }

  #end(reason: string): void {
    if (this.#closed) return
    this.#closed = true
    this.endReason = reason
    this.#ended.resolve()
  }
}
