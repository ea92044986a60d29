// What a sender sent and had acknowledged, checked against what the store
// holds: every event carries a unique message text, so each stored row is
// matched to the request that carried it.
import type { LogStore } from '../../../ingest/index.ts'
import { REDELIVERY_WINDOW_MS } from '../../helpers/stored-once.ts'

export interface Batch {
  tag: string
  events: number
  body: string
  acked: boolean
  attempts: number
  /** Attempts that ended without any HTTP response (connection refused or broken). */
  brokenAttempts: number
  /** Phase label at the time of the acknowledgement. */
  ackPhase: string
}

export interface LedgerReport {
  sent: number
  acknowledged: number
  stored: number
  duplicated: number
  lost: number
  /** Rows no request of this ledger carried (must be 0 too). */
  unexpected: number
  /** Stored events of requests that never got a 2xx (allowed: the sender retries them). */
  storedUnacknowledged: number
}

export function eventMessage(tag: string, i: number): string {
  return `${tag} event ${i}`
}

export class Ledger {
  readonly batches = new Map<string, Batch>()
  #seq = 0
  readonly #prefix: string

  constructor(prefix: string) {
    this.#prefix = prefix
  }

  /** A new JSON batch of `n` events with unique messages. */
  next(n: number, extra: (i: number) => Record<string, unknown> = () => ({})): Batch {
    const tag = `${this.#prefix}-${String(this.#seq++).padStart(6, '0')}`
    const events = Array.from({ length: n }, (_, i) => ({ message: eventMessage(tag, i), attributes: { i }, ...extra(i) }))
    const b: Batch = { tag, events: n, body: JSON.stringify({ events }), acked: false, attempts: 0, brokenAttempts: 0, ackPhase: '' }
    this.batches.set(tag, b)
    return b
  }

  ack(b: Batch, phase: string): void {
    if (b.acked) return
    b.acked = true
    b.ackPhase = phase
  }

  get sentEvents(): number {
    let n = 0
    for (const b of this.batches.values()) n += b.events
    return n
  }

  get ackedEvents(): number {
    let n = 0
    for (const b of this.batches.values()) if (b.acked) n += b.events
    return n
  }

  ackedIn(phase: string): number {
    let n = 0
    for (const b of this.batches.values()) if (b.acked && b.ackPhase === phase) n += b.events
    return n
  }

  /** Compares with the rows stored for the resource. */
  async report(store: LogStore, resourceId: string): Promise<LedgerReport> {
    const r = await store.query<{ message: string; c: string }>(
      `SELECT message, count() AS c FROM ${store.database}.logs WHERE resource_id = {rid:UUID} GROUP BY message`, { rid: resourceId })
    const counts = new Map<string, number>()
    for (const row of r.rows) counts.set(row.message, Number(row.c))
    let duplicated = 0
    let lost = 0
    let storedUnacknowledged = 0
    let matched = 0
    for (const b of this.batches.values()) {
      for (let i = 0; i < b.events; i++) {
        const c = counts.get(eventMessage(b.tag, i))
        if (c === undefined) {
          if (b.acked) lost++
          continue
        }
        matched++
        if (c > 1) duplicated += c - 1
        if (!b.acked) storedUnacknowledged++
      }
    }
    return {
      sent: this.sentEvents,
      acknowledged: this.ackedEvents,
      stored: counts.size,
      duplicated,
      lost,
      unexpected: counts.size - matched,
      storedUnacknowledged,
    }
  }

  /** Polls until every acknowledged event is stored (or the time is up), then reports. */
  async settle(store: LogStore, resourceId: string, timeoutMs = 60_000): Promise<LedgerReport> {
    const deadline = Date.now() + timeoutMs
    let rep = await this.report(store, resourceId)
    while (rep.lost > 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 250))
      rep = await this.report(store, resourceId)
    }
    // A late duplicate shows up after the last missing row arrived, as late as a
    // redelivery after the loader's ack wait: keep looking that long.
    const windowEnd = Date.now() + REDELIVERY_WINDOW_MS
    while (rep.duplicated === 0 && rep.unexpected === 0 && Date.now() < windowEnd) {
      await new Promise((r) => setTimeout(r, 500))
      rep = await this.report(store, resourceId)
    }
    return rep
  }
}

export function formatReport(name: string, r: LedgerReport): string {
  return `${name}: events sent ${r.sent}, acknowledged ${r.acknowledged}, stored ${r.stored}, duplicated ${r.duplicated}, lost ${r.lost}` +
    (r.storedUnacknowledged > 0 ? ` (stored without a 2xx: ${r.storedUnacknowledged})` : '') +
    (r.unexpected > 0 ? `, unexpected ${r.unexpected}` : '')
}
