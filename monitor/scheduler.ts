// The monitor process. Its parts, one job each: the lease cycle
// (lease-cycle.ts: renew, share, claim, API changes, pruning), the checks it
// holds (table.ts), dispatch (dispatch.ts: one min-heap of due checks and one
// timer for its top, concurrency per kind, so a slow probe only ever holds
// its own slot) and result writes (flush.ts: batched, fenced by revision and
// lease). This file wires them together: each probe's outcome is judged by
// the confirmation state machine here and queued for writing.
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { Database } from '../core/index.ts'
import { systemClock, type Clock } from './clock.ts'
import type { CredentialPolicy } from './credentials.ts'
import { Dispatcher } from './dispatch.ts'
import type { Entry, MonitorLogger, MonitorStats, PhaseHook, RunState } from './entry.ts'
import { ResultFlusher } from './flush.ts'
import { DEFAULT_CONCURRENCY, type Kind } from './kinds.ts'
import { LeaseCycle } from './lease-cycle.ts'
import { createRunners, type IcmpOptions, type LogSource, type Outcome } from './probes/index.ts'
import { applyObservation } from './state.ts'
import { CheckTable } from './table.ts'
import { KeyInstaller, SshTunnels, type RuntimeSecrets } from './tunnel/index.ts'

export type { MonitorLogger, MonitorStats, PhaseHook } from './entry.ts'
export { phaseOf, stateOf } from './entry.ts'

export interface MonitorOptions {
  clock?: Clock
  /** Unique per process; default host:pid:random. */
  workerId?: string
  /** Process lease; renewed every leaseMs/3. A dead process's checks are taken within about leaseMs + syncMs. Default 15 s. */
  leaseMs?: number
  /** Housekeeping period: API changes, run requests and free checks are seen this often. Default 1 s. */
  syncMs?: number
  /** Longest wait before a batch of results is written (bigger batches cost far less per result). Default 200 ms. */
  flushMs?: number
  /** Most results per write transaction. Default 500. */
  flushMax?: number
  concurrency?: Partial<Record<Kind, number>>
  credentials?: CredentialPolicy
  icmp?: IcmpOptions
  /** The log store, for log checks (the monitor role wires it); without it they are unknown. */
  logs?: LogSource
  /** How long per-observation result rows are kept. Default 24 h. */
  resultRetentionMs?: number
  /** Most checks this process takes. Default: its fair share. */
  maxChecks?: number
  logger?: MonitorLogger
  /** Told of every probe result (the metrics registry: results by kind). */
  observer?: { checkRun(kind: string, result: string): void }
  /**
   * The workspace's runtime secrets (resource SSH keys): with them this process is the managed
   * runtime, running the SSH tunnels of `neura` checks and installing keys. Without them such checks are unknown.
   */
  runtime?: RuntimeSecrets
  /** How often pending SSH keys are installed. Default 5 s. */
  installEveryMs?: number
  /** Where the ssh client's key directories are made (default: the system temp dir). */
  sshWorkDir?: string
  /** Told when housekeeping rounds and result writes start and end (diagnostics: bench/monitor times them). */
  onPhase?: PhaseHook
}

export class Monitor {
  readonly #clock: Clock
  readonly #log: MonitorLogger
  readonly #observer: { checkRun(kind: string, result: string): void } | null
  readonly #installer: KeyInstaller | null
  readonly #run: RunState = { running: false, dead: false }
  readonly #stats: MonitorStats
  readonly #dispatch: Dispatcher
  readonly #table: CheckTable
  readonly #flusher: ResultFlusher
  readonly #leases: LeaseCycle
  #idle: (() => void)[] = []

  constructor(db: Database, opts: MonitorOptions = {}) {
    const clock = this.#clock = opts.clock ?? systemClock
    const baseId = opts.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
    const credentials = opts.credentials ?? { fileDirs: [] }
    this.#observer = opts.observer ?? null
    const log = this.#log = opts.logger ?? { warn: (obj, msg) => console.error(`monitor: ${msg}`, obj) }
    const tunnels = opts.runtime === undefined ? undefined : new SshTunnels(opts.runtime, opts.sshWorkDir)
    this.#installer = opts.runtime === undefined || tunnels === undefined ? null
      : new KeyInstaller(opts.runtime, tunnels, { everyMs: opts.installEveryMs, onError: (err) => log.warn({ err }, 'installing SSH keys failed') })
    const stats = this.#stats = { worker: baseId, owned: 0, probes: 0, results: 0, rejected: 0, skippedBusy: 0, flushes: 0, flushMs: 0, byStatus: {} }
    const run = this.#run
    this.#dispatch = new Dispatcher({
      clock, run, stats, credentials, tunnels,
      runners: createRunners(db, { icmp: opts.icmp, logs: opts.logs }),
      limit: { ...DEFAULT_CONCURRENCY, ...opts.concurrency },
      leaseUntil: () => this.#leases.leaseUntil,
      onOutcome: (e, revision, epoch, out) => this.#record(e, revision, epoch, out),
      onDone: () => this.#wake(),
    })
    const table = this.#table = new CheckTable(this.#dispatch)
    this.#leases = new LeaseCycle({
      db, clock, run, log, table, baseId,
      leaseMs: opts.leaseMs ?? 15_000,
      syncMs: opts.syncMs ?? 1_000,
      retentionMs: opts.resultRetentionMs ?? 24 * 3_600_000,
      maxChecks: opts.maxChecks ?? Number.POSITIVE_INFINITY,
      onRound: () => this.#dispatch.dispatch(),
      onPhase: opts.onPhase,
    })
    this.#flusher = new ResultFlusher({
      db, clock, run, stats, log, table,
      worker: () => this.#leases.worker,
      flushMs: opts.flushMs ?? 200,
      flushMax: opts.flushMax ?? 500,
      onDone: () => this.#wake(),
      onPhase: opts.onPhase,
    })
  }

  get workerId(): string {
    return this.#leases.worker
  }

  async start(): Promise<void> {
    this.#run.running = true
    await this.#leases.register()
    await this.#leases.housekeeping(true)
    this.#leases.arm()
    this.#installer?.start()
  }

  /** Stops probing, waits for probes in flight and their writes, then gives every lease back. */
  async stop(): Promise<void> {
    if (!this.#run.running) return
    this.#run.running = false
    this.#clearTimers()
    await this.#installer?.stop()
    await this.#leases.idle
    await this.settle()
    await this.#leases.leave()
    this.#table.clear()
  }

  /** Simulates a crash (tests): stops without writing anything or giving leases back. */
  abandon(): void {
    this.#run.running = false
    this.#run.dead = true
    this.#clearTimers()
    this.#flusher.discard()
    this.#table.clear()
  }

  /** One full round now (tests with a manual clock): changes, leases, due probes, and their writes. */
  async step(): Promise<void> {
    await this.#leases.housekeeping(true)
    this.#dispatch.dispatch()
    await this.settle()
  }

  /** Resolves when no probe is running and every result is written. */
  async settle(): Promise<void> {
    for (;;) {
      const flushing = this.#flusher.flushing
      if (flushing !== null) await flushing
      if (this.#flusher.pending > 0 && !this.#run.dead) {
        await this.#flusher.flush()
        continue
      }
      if (this.#dispatch.inflight === 0) return
      await new Promise<void>((resolve) => this.#idle.push(resolve))
    }
  }

  stats(): MonitorStats {
    return { ...this.#stats, worker: this.#leases.worker, owned: this.#table.size, byStatus: { ...this.#stats.byStatus } }
  }

  /** Schedule lateness samples (ms) since the last call, oldest first. */
  takeLateness(): Float64Array {
    return this.#dispatch.takeLateness()
  }

  /** Ids of the checks this process holds (tests, diagnostics). */
  owned(): string[] {
    return this.#table.ids()
  }

  /** Judges a probe's outcome and queues the result for writing. */
  #record(e: Entry, revision: number, epoch: number, out: Outcome): void {
    if (this.#run.dead) return
    const at = this.#clock.now()
    this.#stats.byStatus[out.status] = (this.#stats.byStatus[out.status] ?? 0) + 1
    this.#observer?.checkRun(e.kind, out.status)
    const { next, effects } = applyObservation(e.state, out.status, {
      at,
      required: e.identity.required,
      inMaintenance: e.maintenanceUntil !== null && e.maintenanceUntil > at,
      staleAfterMs: e.staleAfterMs,
      missingCounts: e.missingCounts,
    })
    const p = { check: e.identity, revision, epoch, observedAt: at, outcome: out, prev: e.state, next, effects }
    if (out.recheckAt !== undefined && this.#dispatch.has(e) && out.recheckAt < e.due) {
      this.#dispatch.schedule(e, out.recheckAt)
      this.#dispatch.arm()
    }
    this.#flusher.add(p)
  }

  #wake(): void {
    if (this.#dispatch.inflight > 0 || this.#flusher.flushing !== null || this.#flusher.pending > 0) return
    const waiters = this.#idle
    this.#idle = []
    for (const w of waiters) w()
  }

  #clearTimers(): void {
    this.#dispatch.clearTimer()
    this.#leases.clearTimer()
    this.#flusher.clearTimer()
  }
}
