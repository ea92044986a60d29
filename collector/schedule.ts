// The collector's scheduler: the monitor's pieces (min-heap of due checks, the
// per-check phase, per-kind concurrency defaults, the probe runners), without
// leases, database or confirmation: those are the server's. One timer for the
// heap's top; a check whose previous probe is still running skips that round.
import { randomUUID } from 'node:crypto'
import {
  COLLECTOR_KINDS, DEFAULT_CONCURRENCY, MinHeap, PROBE_REASONS, createRunners, phaseOf, systemClock,
  type Clock, type CollectorCheck, type CollectorObservation, type CredentialPolicy, type HeapItem, type Kind, type Outcome, type ProbeTarget, type Runner,
} from '../monitor/index.ts'

/** Extra time past a probe's own timeout after which it counts as failed (as in the monitor). */
const GUARD_MS = 5_000

class Entry implements HeapItem {
  due = 0
  heapIndex = -1
  check!: CollectorCheck
  target!: ProbeTarget
  busy = false
  handledRunAt = 0
}

export interface ScheduleOptions {
  credentials: CredentialPolicy
  concurrency?: Partial<Record<Kind, number>>
  clock?: Clock
  onResult: (o: CollectorObservation) => void
}


export class ProbeSchedule {
  readonly #opts: ScheduleOptions
  readonly #clock: Clock
  // The monitor's own runners, for the kinds a collector may run (each kind's declaration says where
  // it runs: not heartbeats, judged by the server, nor log checks, which read the server's log store).
  readonly #runners: Partial<Record<Kind, Runner>> = createRunners(null, {}, COLLECTOR_KINDS)
  readonly #limit: Record<Kind, number>
  readonly #active = new Map<Kind, number>()
  readonly #waiting = new Map<Kind, Entry[]>()
  readonly #entries = new Map<string, Entry>()
  readonly #heap = new MinHeap<Entry>()
  #timer: unknown = null
  #timerAt = Infinity
  #inflight = 0
  #stopped = false
  #idle: (() => void)[] = []
  probes = 0

  constructor(opts: ScheduleOptions) {
    this.#opts = opts
    this.#clock = opts.clock ?? systemClock
    this.#limit = { ...DEFAULT_CONCURRENCY, ...opts.concurrency }
  }

  get size(): number {
    return this.#entries.size
  }

  /** Takes the API's list as the truth: new checks start, changed ones change, absent ones (removed, paused, moved) stop. */
  apply(checks: readonly CollectorCheck[]): void {
    const now = this.#clock.now()
    const seen = new Set<string>()
    for (const c of checks) {
      seen.add(c.id)
      let e = this.#entries.get(c.id)
      const fresh = e === undefined
      if (e === undefined) {
        e = new Entry()
        this.#entries.set(c.id, e)
      }
      const intervalChanged = fresh || e.check.interval_ms !== c.interval_ms
      e.check = c
      e.target = {
        checkId: c.id, kind: c.kind, config: c.configuration, credential: c.credential, timeoutMs: c.timeout_ms, intervalMs: c.interval_ms,
        graceMs: 0, activeSince: now,
      }
      const runAt = c.run_requested_at === null ? 0 : Date.parse(c.run_requested_at)
      if (runAt > e.handledRunAt) {
        // A new check, or one someone asked to run now: probe at once.
        e.handledRunAt = runAt
        this.#heap.schedule(e, now)
      } else if (intervalChanged) this.#heap.schedule(e, this.#nextDue(e, now))
    }
    for (const [id, e] of this.#entries) {
      if (seen.has(id)) continue
      this.#heap.remove(e)
      this.#entries.delete(id)
    }
    this.#arm()
  }

  /** Stops scheduling and waits for the probes in flight (their results are still reported). */
  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer)
    this.#timer = null
    for (const q of this.#waiting.values()) q.length = 0
    if (this.#inflight > 0) await new Promise<void>((resolve) => this.#idle.push(resolve))
    await Promise.all(Object.values(this.#runners).map((r) => r?.close?.()))
  }

  #nextDue(e: Entry, after: number): number {
    const i = e.check.interval_ms
    const phase = phaseOf(e.check.id, i)
    return after - ((((after - phase) % i) + i) % i) + i
  }

  #arm(): void {
    if (this.#stopped) return
    const top = this.#heap.peek()
    if (top === undefined || top.due >= this.#timerAt) return
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer)
    this.#timerAt = top.due
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = null
      this.#timerAt = Infinity
      this.#dispatch()
    }, Math.max(0, top.due - this.#clock.now()))
  }

  #dispatch(): void {
    const now = this.#clock.now()
    for (;;) {
      const e = this.#heap.peek()
      if (e === undefined || e.due > now || this.#stopped) break
      this.#heap.schedule(e, this.#nextDue(e, Math.max(now, e.due)))
      if (e.busy) continue
      e.busy = true
      const kind = e.check.kind
      if ((this.#active.get(kind) ?? 0) < this.#limit[kind]) this.#launch(e)
      else {
        const q = this.#waiting.get(kind) ?? []
        q.push(e)
        this.#waiting.set(kind, q)
      }
    }
    this.#arm()
  }

  #launch(e: Entry): void {
    const kind = e.check.kind
    this.#active.set(kind, (this.#active.get(kind) ?? 0) + 1)
    this.#inflight++
    void this.#probe(e, e.check, e.target)
  }

  async #probe(e: Entry, check: CollectorCheck, target: ProbeTarget): Promise<void> {
    this.probes++
    const started = this.#clock.now()
    let out: Outcome
    let guard: NodeJS.Timeout | undefined
    const runner = this.#runners[check.kind]
    try {
      out = runner === undefined
        ? { status: 'unknown', code: PROBE_REASONS.adapter, reason: `a collector does not run ${check.kind} checks`, latencyMs: null, details: null }
        : await Promise.race([
          runner.run(target, { credentials: this.#opts.credentials, now: started }),
          new Promise<Outcome>((resolve) => {
            guard = setTimeout(resolve, target.timeoutMs + GUARD_MS, { status: 'unknown', code: PROBE_REASONS.error, reason: 'the probe did not finish', latencyMs: null, details: null })
            guard.unref()
          }),
        ])
    } catch (err) {
      out = { status: 'unknown', code: PROBE_REASONS.error, reason: `probe failed: ${String((err as Error)?.message ?? err).slice(0, 200)}`, latencyMs: null, details: null }
    } finally {
      clearTimeout(guard)
    }
    const kind = check.kind
    this.#active.set(kind, (this.#active.get(kind) ?? 1) - 1)
    const next = this.#waiting.get(kind)?.shift()
    if (next !== undefined && !this.#stopped) this.#launch(next)
    e.busy = false
    // A check removed or edited meanwhile: the API would fence this result off anyway.
    if (this.#entries.get(check.id) === e && e.check.revision === check.revision) {
      this.#opts.onResult({
        id: randomUUID(), check_id: check.id, revision: check.revision, observed_at: new Date(this.#clock.now()).toISOString(),
        status: out.status === 'missing' ? 'unknown' : out.status, code: out.code, reason: out.reason.slice(0, 1000), latency_ms: out.latencyMs, details: out.details,
      })
    }
    this.#inflight--
    if (this.#inflight === 0) for (const w of this.#idle.splice(0)) w()
  }
}
