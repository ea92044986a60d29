// A sender at a steady rate: one new JSON batch every `intervalMs`, whatever
// happens to the earlier ones (open loop), each retried with the same body
// until it gets a 2xx under its own Idempotency-Key, as a well-behaved client does: after a refusal
// (429/503, honouring Retry-After), an error status or a broken connection.
// Any other 5xx is retried too but recorded as a failure: README "never 500
// under faults" is a claim the fault tests check through `stats.fatal`.
import { Agent } from 'undici'
import type { Batch, Ledger } from './ledger.ts'

export interface SenderOptions {
  ledger: Ledger
  /** Base URL for an attempt; may change between attempts (another api process). */
  baseUrl: (attempt: number) => string
  path: string
  token: string
  eventsPerBatch: number
  intervalMs: number
  /** Batches in flight at most; a new one waits for a slot (then the rate drops, visibly in the counts). */
  maxInFlight?: number
  /** Longest pause between two attempts of one batch. */
  maxRetryDelayMs?: number
  extra?: (i: number) => Record<string, unknown>
}

export interface SenderStats {
  attempts: number
  refused: number
  errors: number
  statuses: Record<string, number>
  /** Each a test failure: a batch refused for good (a 4xx other than 429, never retried), or a 5xx other than the 503 refusal (retried). */
  fatal: string[]
}

export class SteadySender {
  phase = 'before'
  readonly stats: SenderStats = { attempts: 0, refused: 0, errors: 0, statuses: {}, fatal: [] }
  readonly #o: Required<Omit<SenderOptions, 'extra'>> & Pick<SenderOptions, 'extra'>
  readonly #inFlight = new Set<Promise<void>>()
  // Fresh connections per attempt: a connection to a killed process must not be reused.
  readonly #agent = new Agent({ keepAliveTimeout: 1000, connections: 64 })
  readonly #pendingByUrl = new Map<string, number>()
  #ticker: Promise<void> | null = null
  #creating = false
  #giveUpAt = Number.POSITIVE_INFINITY

  constructor(options: SenderOptions) {
    this.#o = { maxInFlight: 64, maxRetryDelayMs: 2000, ...options }
  }

  start(): void {
    this.#creating = true
    this.#ticker = this.#tick()
  }

  async #tick(): Promise<void> {
    let next = performance.now()
    while (this.#creating) {
      while (this.#inFlight.size >= this.#o.maxInFlight && this.#creating) await Promise.race(this.#inFlight)
      if (!this.#creating) break
      const b = this.#o.ledger.next(this.#o.eventsPerBatch, this.#o.extra)
      const p = this.#deliver(b).finally(() => this.#inFlight.delete(p))
      this.#inFlight.add(p)
      next += this.#o.intervalMs
      const wait = next - performance.now()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    }
  }

  /** Attempts waiting for an answer from this base URL right now. */
  pendingAt(baseUrl: string): number {
    return this.#pendingByUrl.get(baseUrl) ?? 0
  }

  /** Stops creating batches and waits for those in flight to be acknowledged (or gives up at the deadline). */
  async finish(timeoutMs = 60_000): Promise<void> {
    this.#creating = false
    await this.#ticker
    this.#giveUpAt = Date.now() + timeoutMs
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight])
    await this.#agent.close()
  }

  async #deliver(b: Batch): Promise<void> {
    let delay = 100
    while (Date.now() < this.#giveUpAt) {
      const attempt = ++b.attempts
      this.stats.attempts++
      let retryAfterMs = 0
      const base = this.#o.baseUrl(attempt)
      this.#pendingByUrl.set(base, (this.#pendingByUrl.get(base) ?? 0) + 1)
      try {
        const res = await fetch(base + this.#o.path, {
          method: 'POST',
          // The batch's own key: a retry after an unseen answer is the same events (README "Event identity").
          headers: { authorization: `Bearer ${this.#o.token}`, 'content-type': 'application/json', 'idempotency-key': b.tag },
          body: b.body,
          dispatcher: this.#agent,
          signal: AbortSignal.timeout(30_000),
        } as RequestInit)
        const body = await res.arrayBuffer()
        this.stats.statuses[res.status] = (this.stats.statuses[res.status] ?? 0) + 1
        if (res.status >= 200 && res.status < 300) {
          this.#o.ledger.ack(b, this.phase)
          return
        }
        if (res.status === 429 || res.status === 503) this.stats.refused++
        else if (res.status < 500) {
          this.stats.fatal.push(`${b.tag}: ${res.status}`)
          return
        } else this.stats.fatal.push(`${b.tag}: ${res.status} ${new TextDecoder().decode(body).slice(0, 200)} (retried)`)
        const ra = Number(res.headers.get('retry-after'))
        if (Number.isFinite(ra) && ra > 0) retryAfterMs = ra * 1000
      } catch {
        this.stats.errors++
        b.brokenAttempts++
      } finally {
        this.#pendingByUrl.set(base, (this.#pendingByUrl.get(base) ?? 1) - 1)
      }
      await new Promise((r) => setTimeout(r, Math.min(Math.max(delay, retryAfterMs), this.#o.maxRetryDelayMs)))
      delay = Math.min(delay * 2, this.#o.maxRetryDelayMs)
    }
  }
}
