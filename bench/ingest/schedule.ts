// Rate control. Open loop: the i-th request is due at start + i / rate, whether
// or not earlier ones have been answered, and its latency is measured from that
// intended time. A slow server therefore shows up as latency (and as requests
// piling up), never as a quietly lower offered rate: no coordinated omission.
// Find-the-maximum: grow the rate geometrically until a step breaks a
// threshold, then bisect between the last passing and the first failing rate.

export class OpenLoopSchedule {
  readonly requestsPerSecond: number
  readonly startMs: number
  readonly durationMs: number
  /** Requests in the whole schedule. */
  readonly total: number

  constructor(requestsPerSecond: number, startMs: number, durationMs: number) {
    if (!(requestsPerSecond > 0) || !Number.isFinite(requestsPerSecond)) throw new RangeError('requestsPerSecond must be a positive number')
    if (!(durationMs >= 0)) throw new RangeError('durationMs must be >= 0')
    this.requestsPerSecond = requestsPerSecond
    this.startMs = startMs
    this.durationMs = durationMs
    this.total = Math.floor((durationMs * requestsPerSecond) / 1000 + 1e-9)
  }

  /** When request i is meant to be sent. */
  intendedAt(i: number): number {
    return this.startMs + (i * 1000) / this.requestsPerSecond
  }

  /** How many requests (from the first) are due by `nowMs`. */
  dueBy(nowMs: number): number {
    if (nowMs < this.startMs) return 0
    return Math.min(this.total, Math.floor(((nowMs - this.startMs) * this.requestsPerSecond) / 1000 + 1e-9) + 1)
  }
}

export interface Thresholds {
  maxP99Ms: number
  maxErrorRate: number
  maxFreshnessMs: number
  /** Past this the harness itself could not keep its schedule: the step says nothing about the server. */
  maxSenderLagMs: number
}

export interface StepOutcome {
  ackP99Ms: number
  /** Requests refused or failed (any non-2xx, network error, timeout, dropped by the harness) / requests due. */
  errorRate: number
  /** NaN when freshness was not measured. */
  freshnessP99Ms: number
  /** Markers sent but never seen within the drain timeout. */
  freshnessLost: number
  senderLagP99Ms: number
}

export type Verdict = { pass: boolean; harnessLimited: boolean; reasons: string[] }

export function judgeStep(o: StepOutcome, t: Thresholds): Verdict {
  const reasons: string[] = []
  if (!(o.ackP99Ms <= t.maxP99Ms)) reasons.push(`ack p99 ${fmtMs(o.ackP99Ms)} > ${fmtMs(t.maxP99Ms)}`)
  if (!(o.errorRate <= t.maxErrorRate)) reasons.push(`error rate ${(o.errorRate * 100).toFixed(2)}% > ${(t.maxErrorRate * 100).toFixed(2)}%`)
  if (o.freshnessP99Ms > t.maxFreshnessMs) reasons.push(`freshness p99 ${fmtMs(o.freshnessP99Ms)} > ${fmtMs(t.maxFreshnessMs)}`)
  if (o.freshnessLost > 0) reasons.push(`${o.freshnessLost} freshness marker(s) never became queryable`)
  const harnessLimited = o.senderLagP99Ms > t.maxSenderLagMs
  if (harnessLimited) reasons.push(`the harness fell ${fmtMs(o.senderLagP99Ms)} behind its schedule (p99)`)
  return { pass: reasons.length === 0, harnessLimited, reasons }
}

function fmtMs(ms: number): string {
  return ms >= 1000 ? `${(ms / 1000).toFixed(2)} s` : `${ms.toFixed(1)} ms`
}

export interface RateSearchOptions {
  start: number
  factor: number
  maxSteps: number
  /** Bisection steps once a step has failed after one passed. */
  refine: number
}

/**
 * The rates find-the-maximum tries. Grows by `factor` while steps pass; when
 * the very first step fails it shrinks by `factor` until one passes; then it
 * bisects (geometric mean) between the best pass and the lowest failure.
 */
export class RateSearch {
  readonly #o: RateSearchOptions
  #steps = 0
  #refined = 0
  #next: number | null
  #bestPass: number | null = null
  #lowestFail: number | null = null

  constructor(o: RateSearchOptions) {
    if (!(o.start > 0) || !(o.factor > 1) || !(o.maxSteps >= 1) || !(o.refine >= 0)) throw new RangeError('invalid rate search options')
    this.#o = o
    this.#next = o.start
  }

  /** The rate of the next step, or null when the search is over. */
  next(): number | null {
    return this.#steps >= this.#o.maxSteps ? null : this.#next
  }

  /** The highest rate that passed so far. */
  get best(): number | null {
    return this.#bestPass
  }

  get lowestFail(): number | null {
    return this.#lowestFail
  }

  record(rate: number, pass: boolean): void {
    this.#steps++
    if (pass) this.#bestPass = Math.max(this.#bestPass ?? 0, rate)
    else this.#lowestFail = Math.min(this.#lowestFail ?? Number.POSITIVE_INFINITY, rate)
    const lo = this.#bestPass
    const hi = this.#lowestFail
    if (hi === null) {
      this.#next = rate * this.#o.factor
    } else if (lo === null) {
      this.#next = rate / this.#o.factor
    } else if (this.#refined < this.#o.refine && hi / lo > 1.02) {
      this.#refined++
      this.#next = Math.sqrt(lo * hi)
    } else {
      this.#next = null
    }
  }

  /** Ends the search early (e.g. the harness cannot offer more). */
  stop(): void {
    this.#next = null
  }
}
