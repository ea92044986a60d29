// Dispatch: one min-heap of due checks and one timer for its top. Due checks
// start a probe when their kind has a free slot, else wait in that kind's
// queue, so a slow probe only ever holds its own slot. Schedule lateness
// (probe start minus due time) is sampled for every probe.
import type { Clock } from './clock.ts'
import type { CredentialPolicy } from './credentials.ts'
import { nextDue, Waiting, type Entry, type MonitorStats, type RunState } from './entry.ts'
import { PROBE_REASONS } from './errors.ts'
import { MinHeap } from './heap.ts'
import { ALL_KINDS, type Kind } from './kinds.ts'
import type { Outcome, Runner } from './probes/index.ts'
import { outcome as makeOutcome } from './probes/outcome.ts'
import type { SshTunnels } from '../tunnel/index.ts'

/** Extra time past a probe's own timeout after which the scheduler stops waiting for it. */
const GUARD_MS = 5_000
const LATENESS_SAMPLES = 1 << 17

export interface DispatcherOptions {
  clock: Clock
  run: RunState
  stats: MonitorStats
  runners: Record<Kind, Runner>
  limit: Record<Kind, number>
  credentials: CredentialPolicy
  tunnels: SshTunnels | undefined
  /** Until when this process's lease is known to hold: past it nothing is probed. */
  leaseUntil: () => number
  /** A probe ended (called before it stops counting as in flight). */
  onOutcome: (e: Entry, revision: number, epoch: number, out: Outcome) => void
  /** A probe is no longer in flight. */
  onDone: () => void
}

export class Dispatcher {
  readonly #o: DispatcherOptions
  readonly #heap = new MinHeap<Entry>()
  readonly #active: Record<Kind, number>
  readonly #waiting: Record<Kind, Waiting>
  #inflight = 0
  #timer: unknown = null
  #timerAt = Infinity
  readonly #lateness = new Float64Array(LATENESS_SAMPLES)
  #latenessCount = 0

  constructor(o: DispatcherOptions) {
    this.#o = o
    this.#active = Object.fromEntries(ALL_KINDS.map((k) => [k, 0])) as Record<Kind, number>
    this.#waiting = Object.fromEntries(ALL_KINDS.map((k) => [k, new Waiting()])) as Record<Kind, Waiting>
  }

  /** Probes running now. */
  get inflight(): number {
    return this.#inflight
  }

  has(e: Entry): boolean {
    return this.#heap.has(e)
  }

  schedule(e: Entry, due: number): void {
    this.#heap.schedule(e, due)
  }

  remove(e: Entry): void {
    this.#heap.remove(e)
  }

  /** Sets the timer for the earliest due check (if it is earlier than the one set). */
  arm(): void {
    if (!this.#o.run.running) return
    const top = this.#heap.peek()
    if (top === undefined) return
    if (top.due >= this.#timerAt) return
    const clock = this.#o.clock
    if (this.#timer !== null) clock.clearTimeout(this.#timer)
    this.#timerAt = top.due
    this.#timer = clock.setTimeout(this.#onTimer, Math.max(0, top.due - clock.now()))
  }

  clearTimer(): void {
    if (this.#timer !== null) this.#o.clock.clearTimeout(this.#timer)
    this.#timer = null
    this.#timerAt = Infinity
  }

  readonly #onTimer = (): void => {
    this.#timer = null
    this.#timerAt = Infinity
    this.dispatch()
  }

  /** Starts (or queues) every check that is due, and moves each to its next due time. */
  dispatch(): void {
    if (this.#o.run.dead) return
    const now = this.#o.clock.now()
    const leaseUntil = this.#o.leaseUntil()
    for (;;) {
      const e = this.#heap.peek()
      if (e === undefined || e.due > now) break
      const scheduledFor = e.due
      this.#heap.schedule(e, nextDue(e, Math.max(now, scheduledFor)))
      // Past our lease the check may be someone else's: do not probe until it is renewed.
      if (leaseUntil <= now) continue
      if (e.busy) {
        this.#o.stats.skippedBusy++
        continue
      }
      e.busy = true
      if (this.#active[e.kind] < this.#o.limit[e.kind]) this.#launch(e, scheduledFor, e.revision, e.epoch)
      else this.#waiting[e.kind].push(e, scheduledFor)
    }
    this.arm()
  }

  /** Schedule lateness samples (ms) since the last call, oldest first. */
  takeLateness(): Float64Array {
    const n = Math.min(this.#latenessCount, LATENESS_SAMPLES)
    const out = new Float64Array(n)
    const start = this.#latenessCount - n
    for (let i = 0; i < n; i++) out[i] = this.#lateness[(start + i) % LATENESS_SAMPLES] as number
    this.#latenessCount = 0
    return out
  }

  #launch(e: Entry, scheduledFor: number, revision: number, epoch: number): void {
    this.#active[e.kind]++
    this.#inflight++
    void this.#probe(e, scheduledFor, revision, epoch)
  }

  async #probe(e: Entry, scheduledFor: number, revision: number, epoch: number): Promise<void> {
    const kind = e.kind
    const startedAt = this.#o.clock.now()
    this.#lateness[this.#latenessCount++ % LATENESS_SAMPLES] = startedAt - scheduledFor
    this.#o.stats.probes++
    let out: Outcome
    let guard: NodeJS.Timeout | undefined
    try {
      out = await Promise.race([
        this.#o.runners[kind].run(e.target, { credentials: this.#o.credentials, now: startedAt, tunnels: this.#o.tunnels, state: e.state }),
        new Promise<Outcome>((resolve) => {
          guard = setTimeout(resolve, e.target.timeoutMs + GUARD_MS, makeOutcome('unknown', PROBE_REASONS.error, 'the probe did not finish'))
          guard.unref()
        }),
      ])
    } catch (err) {
      out = makeOutcome('unknown', PROBE_REASONS.error, `probe failed: ${String((err as Error)?.message ?? err).slice(0, 200)}`)
    } finally {
      clearTimeout(guard)
    }
    this.#active[kind]--
    const next = this.#waiting[kind].shift()
    if (next !== undefined) this.#launch(next.e, next.at, next.rev, next.epoch)
    this.#o.onOutcome(e, revision, epoch, out)
    this.#inflight--
    this.#o.onDone()
  }
}
