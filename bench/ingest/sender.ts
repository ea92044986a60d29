// The open-loop sender: dispatches each request at its intended time over a
// pool of keep-alive connections and records its outcome with the latency
// measured from the intended time. It never waits for an answer before the
// next send; when the bytes still in flight pass a cap, a due request is
// dropped and counted as an error (the harness would otherwise just buffer).
import { Pool } from 'undici'
import type { OpenLoopSchedule } from './schedule.ts'

export interface OutgoingRequest {
  path: string
  headers: Record<string, string>
  body: Buffer
  events: number
  /** The request's unique nonce, also its freshness marker. */
  nonce: string
  resourceId: string
  /** The marker event's timestamp, ms since the epoch. */
  timeMs: number
}

export interface RequestSource {
  /** Builds request number i (called when it is due). */
  request(i: number): OutgoingRequest
}

/** What one request came to. `status` 0: network error; -1: timeout; -2: dropped by the harness. */
export interface RequestResult {
  i: number
  intendedMs: number
  status: number
  latencyMs: number
  events: number
  bytes: number
}

export const DROPPED = -2
export const TIMED_OUT = -1
export const NETWORK_ERROR = 0

export interface SenderHooks {
  /** A request is about to be sent (for freshness sampling). */
  onSend?(req: OutgoingRequest, intendedMs: number): void
  onResult(req: OutgoingRequest, r: RequestResult): void
}

export interface SenderOptions {
  connections: number
  timeoutMs: number
  /** Request bytes in flight past which due requests are dropped. */
  maxInFlightBytes?: number
}

export class OpenLoopSender {
  readonly #pool: Pool
  readonly #timeoutMs: number
  readonly #maxInFlightBytes: number
  #inFlightBytes = 0
  #inFlight = 0
  #lags: number[] = []

  constructor(baseUrl: string, o: SenderOptions) {
    this.#pool = new Pool(baseUrl, {
      connections: o.connections,
      pipelining: 1,
      headersTimeout: o.timeoutMs,
      bodyTimeout: o.timeoutMs,
      keepAliveTimeout: 30_000,
    })
    this.#timeoutMs = o.timeoutMs
    this.#maxInFlightBytes = o.maxInFlightBytes ?? 512 * 1024 * 1024
  }

  /** How late each dispatch was behind its intended time (ms) since the last call. */
  takeLags(): number[] {
    const l = this.#lags
    this.#lags = []
    return l
  }

  get inFlight(): number {
    return this.#inFlight
  }

  /**
   * Runs a schedule to its end and resolves when every request has an outcome.
   * `stop()` on the returned handle ends sending early.
   */
  run(schedule: OpenLoopSchedule, source: RequestSource, hooks: SenderHooks): { done: Promise<void>; stop(): void } {
    let next = 0
    let stopped = false
    let timer: NodeJS.Timeout | null = null
    let resolveSent!: () => void
    const sent = new Promise<void>((r) => (resolveSent = r))
    const pending = new Set<Promise<void>>()
    const tick = (): void => {
      timer = null
      const now = performance.now()
      const due = stopped ? next : schedule.dueBy(now)
      while (next < due) {
        const i = next++
        const intended = schedule.intendedAt(i)
        this.#lags.push(now - intended)
        const p = this.#dispatch(i, intended, source, hooks)
        pending.add(p)
        void p.finally(() => pending.delete(p))
      }
      if (stopped || next >= schedule.total) {
        resolveSent()
        return
      }
      timer = setTimeout(tick, Math.max(0, schedule.intendedAt(next) - performance.now()))
    }
    tick()
    const done = (async () => {
      await sent
      while (pending.size > 0) await Promise.allSettled([...pending])
    })()
    return {
      done,
      stop: () => {
        stopped = true
        if (timer !== null) {
          clearTimeout(timer)
          tick()
        }
      },
    }
  }

  async #dispatch(i: number, intended: number, source: RequestSource, hooks: SenderHooks): Promise<void> {
    const req = source.request(i)
    const bytes = req.body.byteLength
    if (this.#inFlightBytes + bytes > this.#maxInFlightBytes) {
      hooks.onResult(req, { i, intendedMs: intended, status: DROPPED, latencyMs: 0, events: req.events, bytes })
      return
    }
    hooks.onSend?.(req, intended)
    this.#inFlightBytes += bytes
    this.#inFlight++
    let status = NETWORK_ERROR
    try {
      const res = await this.#pool.request({
        method: 'POST', path: req.path, headers: req.headers, body: req.body,
        signal: AbortSignal.timeout(this.#timeoutMs),
      })
      await res.body.dump()
      status = res.statusCode
    } catch (err) {
      const name = (err as Error)?.name
      const code = (err as { code?: string })?.code
      status = name === 'TimeoutError' || code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT' ? TIMED_OUT : NETWORK_ERROR
    } finally {
      this.#inFlightBytes -= bytes
      this.#inFlight--
    }
    hooks.onResult(req, { i, intendedMs: intended, status, latencyMs: performance.now() - intended, events: req.events, bytes })
  }

  async close(): Promise<void> {
    await this.#pool.close()
  }
}
