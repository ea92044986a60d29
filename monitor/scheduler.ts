// The monitor process: one min-heap of due checks and one timer for its top;
// probes run with a concurrency cap per kind, so a slow probe only ever holds
// its own slot; results are judged by the confirmation state machine and
// written in batches, fenced by revision and lease. Housekeeping (every
// syncMs) picks up API changes, renews and claims leases, and prunes results.
import { hostname } from 'node:os'
import { randomUUID } from 'node:crypto'
import type { Database } from '../core/index.ts'
import { systemClock, type Clock } from './clock.ts'
import { staleAfterMs } from './config.ts'
import type { CredentialPolicy, CredentialRef } from './credentials.ts'
import { PROBE_REASONS } from './errors.ts'
import { MinHeap, type HeapItem } from './heap.ts'
import { ALL_KINDS, DEFAULT_CONCURRENCY, SERVED_LOCATIONS, type Kind } from './kinds.ts'
import {
  changedChecks, checksById, claimChecks, heldChecks, pruneResults, purgeWorkers, registerWorker, releaseLeases, removeWorker, renewWorker, shareOf,
} from './leases.ts'
import { createRunners, type IcmpOptions, type Outcome, type ProbeTarget, type Runner } from './probes/index.ts'
import { outcome as makeOutcome } from './probes/outcome.ts'
import { ms, type CheckRow } from './rows.ts'
import { applyObservation, type CheckState } from './state.ts'
import { writeResults, type CheckIdentity, type PendingResult } from './writer.ts'
import { KeyInstaller, SshTunnels, type RuntimeSecrets } from './tunnel/index.ts'

export interface MonitorLogger {
  warn(obj: object, msg: string): void
}

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
}

/** Extra time past a probe's own timeout after which the scheduler stops waiting for it. */
const GUARD_MS = 5_000
const PRUNE_EVERY_MS = 10 * 60_000
const PRUNE_CHUNK = 5_000
/** A process whose lease ended this many lease periods ago is forgotten (its row deleted). */
const WORKER_PURGE_LEASES = 10
const CHANGES_PAGE = 2_000
const LATENESS_SAMPLES = 1 << 17

class Entry implements HeapItem {
  due = 0
  heapIndex = -1
  readonly id: string
  identity!: CheckIdentity
  target!: ProbeTarget
  kind!: Kind
  enabled = true
  maintenanceUntil: number | null = null
  revision = 0
  epoch = 0
  phase = 0
  staleAfterMs = 0
  missingCounts = false
  state!: CheckState
  /** A probe or its write is in progress. */
  busy = false
  /** A row seen while busy, applied once the write is done. */
  reload: CheckRow | null = null
  handledRunAt = 0

  constructor(id: string) {
    this.id = id
  }
}

/** FIFO of entries waiting for a slot of their kind. */
class Waiting {
  #a: { e: Entry; at: number; rev: number; epoch: number }[] = []
  #head = 0

  get length(): number {
    return this.#a.length - this.#head
  }

  push(e: Entry, at: number): void {
    this.#a.push({ e, at, rev: e.revision, epoch: e.epoch })
  }

  shift(): { e: Entry; at: number; rev: number; epoch: number } | undefined {
    const v = this.#a[this.#head]
    if (v === undefined) return undefined
    this.#head++
    if (this.#head > 1024 && this.#head * 2 > this.#a.length) {
      this.#a = this.#a.slice(this.#head)
      this.#head = 0
    }
    return v
  }
}

export interface MonitorStats {
  worker: string
  owned: number
  probes: number
  results: number
  rejected: number
  skippedBusy: number
  flushes: number
  flushMs: number
  byStatus: Record<string, number>
}

/** A check's offset within its interval, from its id: the same in every process (and on collectors). */
export function phaseOf(id: string, intervalMs: number): number {
  return parseInt(id.replaceAll('-', '').slice(0, 12), 16) % intervalMs
}

export function stateOf(row: CheckRow): CheckState {
  return {
    health: row.health,
    healthSince: ms(row.health_since) ?? 0,
    candidate: row.candidate,
    streak: row.streak,
    lastObservedAt: ms(row.last_observed_at),
    openIncidentId: row.open_incident_id,
    incidentNotified: row.incident_notified,
  }
}

export class Monitor {
  readonly #baseId: string
  /** The id this process holds its lease under; a new one after a lost lease. */
  #worker: string
  #generation = 0
  /** Until when this process's lease is known to hold (renewed in housekeeping). */
  #leaseUntil = 0
  readonly #db: Database
  readonly #clock: Clock
  readonly #leaseMs: number
  readonly #syncMs: number
  readonly #flushMs: number
  readonly #flushMax: number
  readonly #retentionMs: number
  readonly #maxChecks: number
  readonly #credentials: CredentialPolicy
  readonly #log: MonitorLogger
  readonly #observer: { checkRun(kind: string, result: string): void } | null
  readonly #runners: Record<Kind, Runner>
  readonly #tunnels: SshTunnels | undefined
  readonly #installer: KeyInstaller | null
  readonly #limit: Record<Kind, number>
  readonly #active: Record<Kind, number>
  readonly #waiting: Record<Kind, Waiting>
  readonly #entries = new Map<string, Entry>()
  readonly #heap = new MinHeap<Entry>()
  #pending: PendingResult[] = []
  #inflight = 0
  #flushing: Promise<void> | null = null
  #flushTimer: NodeJS.Timeout | null = null
  #dispatchTimer: unknown = null
  #dispatchAt = Infinity
  #houseTimer: unknown = null
  #house: Promise<void> = Promise.resolve()
  #lastChange = 0
  #lastLeaseCycle = -Infinity
  #lastPrune = -Infinity
  #pruning = false
  #share = 0
  #running = false
  #dead = false
  #idle: (() => void)[] = []
  readonly #lateness = new Float64Array(LATENESS_SAMPLES)
  #latenessCount = 0
  readonly #stats: MonitorStats

  constructor(db: Database, opts: MonitorOptions = {}) {
    this.#db = db
    this.#clock = opts.clock ?? systemClock
    this.#baseId = opts.workerId ?? `${hostname()}:${process.pid}:${randomUUID().slice(0, 8)}`
    this.#worker = this.#baseId
    this.#leaseMs = opts.leaseMs ?? 15_000
    this.#syncMs = opts.syncMs ?? 1_000
    this.#flushMs = opts.flushMs ?? 200
    this.#flushMax = opts.flushMax ?? 500
    this.#retentionMs = opts.resultRetentionMs ?? 24 * 3_600_000
    this.#maxChecks = opts.maxChecks ?? Number.POSITIVE_INFINITY
    this.#credentials = opts.credentials ?? { fileDirs: [] }
    this.#observer = opts.observer ?? null
    this.#log = opts.logger ?? { warn: (obj, msg) => console.error(`monitor: ${msg}`, obj) }
    this.#runners = createRunners(db, { icmp: opts.icmp })
    this.#tunnels = opts.runtime === undefined ? undefined : new SshTunnels(opts.runtime, opts.sshWorkDir)
    this.#installer = opts.runtime === undefined || this.#tunnels === undefined ? null
      : new KeyInstaller(opts.runtime, this.#tunnels, { everyMs: opts.installEveryMs, onError: (err) => this.#log.warn({ err }, 'installing SSH keys failed') })
    this.#limit = { ...DEFAULT_CONCURRENCY, ...opts.concurrency }
    this.#active = Object.fromEntries(ALL_KINDS.map((k) => [k, 0])) as Record<Kind, number>
    this.#waiting = Object.fromEntries(ALL_KINDS.map((k) => [k, new Waiting()])) as Record<Kind, Waiting>
    this.#stats = { worker: this.#worker, owned: 0, probes: 0, results: 0, rejected: 0, skippedBusy: 0, flushes: 0, flushMs: 0, byStatus: {} }
  }

  get workerId(): string {
    return this.#worker
  }

  async start(): Promise<void> {
    this.#running = true
    const now = this.#clock.now()
    await registerWorker(this.#db, this.#worker, now, now + this.#leaseMs)
    this.#leaseUntil = now + this.#leaseMs
    await this.#housekeeping(true)
    this.#armHouse()
    this.#installer?.start()
  }

  /** Stops probing, waits for probes in flight and their writes, then gives every lease back. */
  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    this.#clearTimers()
    await this.#installer?.stop()
    await this.#house.catch(() => undefined)
    await this.settle()
    await releaseLeases(this.#db, this.#worker, null).catch(() => undefined)
    await removeWorker(this.#db, this.#worker).catch(() => undefined)
    this.#entries.clear()
  }

  /** Simulates a crash (tests): stops without writing anything or giving leases back. */
  abandon(): void {
    this.#running = false
    this.#dead = true
    this.#clearTimers()
    this.#pending = []
    this.#entries.clear()
  }

  /** One full round now (tests with a manual clock): changes, leases, due probes, and their writes. */
  async step(): Promise<void> {
    await this.#housekeeping(true)
    this.#dispatch()
    await this.settle()
  }

  /** Resolves when no probe is running and every result is written. */
  async settle(): Promise<void> {
    for (;;) {
      if (this.#flushing !== null) await this.#flushing
      if (this.#pending.length > 0 && !this.#dead) {
        await this.#flush()
        continue
      }
      if (this.#inflight === 0) return
      await new Promise<void>((resolve) => this.#idle.push(resolve))
    }
  }

  stats(): MonitorStats {
    return { ...this.#stats, worker: this.#worker, owned: this.#entries.size, byStatus: { ...this.#stats.byStatus } }
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

  /** Ids of the checks this process holds (tests, diagnostics). */
  owned(): string[] {
    return [...this.#entries.keys()]
  }

  // ---- housekeeping ----

  #armHouse(): void {
    if (!this.#running) return
    this.#houseTimer = this.#clock.setTimeout(this.#onHouseTimer, this.#syncMs)
  }

  readonly #onHouseTimer = (): void => {
    this.#houseTimer = null
    this.#housekeeping(false).catch((err: unknown) => this.#log.warn({ err }, 'housekeeping failed')).finally(() => {
      this.#dispatch()
      this.#armHouse()
    })
  }

  /** Serialized: a manual step and a timer never interleave. */
  #housekeeping(forceLeases: boolean): Promise<void> {
    const run = this.#house.catch(() => undefined).then(() => this.#houseRound(forceLeases))
    this.#house = run
    return run
  }

  async #houseRound(forceLeases: boolean): Promise<void> {
    if (this.#dead) return
    const now = this.#clock.now()
    if (forceLeases || now - this.#lastLeaseCycle >= this.#leaseMs / 3) await this.#leaseCycle(now)
    else {
      // New checks are taken within a second, not a lease cycle.
      await this.#updateShare(now)
      await this.#claim(now)
    }
    await this.#sync(now)
    if (this.#pruning || now - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = now
      // Kept a while after expiry so a dead process's name still explains its checks' lease_owner.
      await purgeWorkers(this.#db, now - WORKER_PURGE_LEASES * this.#leaseMs)
      // A chunk per round until the backlog is gone.
      this.#pruning = (await pruneResults(this.#db, now - this.#retentionMs, PRUNE_CHUNK)) === PRUNE_CHUNK
    }
  }

  async #leaseCycle(now: number): Promise<void> {
    this.#lastLeaseCycle = now
    if (await renewWorker(this.#db, this.#worker, now, now + this.#leaseMs)) {
      this.#leaseUntil = now + this.#leaseMs
    } else {
      // The lease ran out (a stall longer than leaseMs): others may hold our checks now.
      // Start over under a new id, so nothing probed under the old lease can be written.
      this.#log.warn({ worker: this.#worker }, 'lease expired; rejoining under a new id')
      for (const e of [...this.#entries.values()]) this.#drop(e)
      this.#generation++
      this.#worker = `${this.#baseId}#${this.#generation}`
      this.#lastChange = 0
      await registerWorker(this.#db, this.#worker, now, now + this.#leaseMs)
      this.#leaseUntil = now + this.#leaseMs
    }
    const mine = await this.#updateShare(now)
    if (mine !== this.#entries.size) await this.#reconcile(now)
    const surplus = this.#entries.size - this.#share
    if (surplus > Math.max(1, Math.ceil(this.#share * 0.05))) {
      const give: string[] = []
      for (const e of this.#entries.values()) {
        if (give.length >= surplus) break
        if (!e.busy) give.push(e.id)
      }
      await releaseLeases(this.#db, this.#worker, give)
      for (const id of give) {
        const e = this.#entries.get(id)
        if (e !== undefined) this.#drop(e)
      }
      return
    }
    await this.#claim(now)
  }

  /** Memory and the table disagree about what this process holds: the table wins. */
  async #reconcile(now: number): Promise<void> {
    const held = await heldChecks(this.#db, this.#worker)
    const ids = new Set<string>()
    const load: string[] = []
    for (const h of held) {
      ids.add(h.id)
      const e = this.#entries.get(h.id)
      if (e === undefined || e.epoch !== h.epoch) load.push(h.id)
    }
    for (const [id, e] of this.#entries) if (!ids.has(id)) this.#drop(e)
    for (const row of await checksById(this.#db, this.#worker, load)) this.#adopt(row, now)
  }

  /** This process's fair share: the served checks divided by the live monitor processes. Returns how many it holds. */
  async #updateShare(now: number): Promise<number> {
    const { workers, total, mine } = await shareOf(this.#db, this.#worker, now)
    this.#share = Math.min(this.#maxChecks, Math.ceil(total / workers))
    return mine
  }

  async #claim(now: number): Promise<void> {
    const room = this.#share - this.#entries.size
    if (room <= 0) return
    const rows = await claimChecks(this.#db, this.#worker, now, Math.min(room, 5_000))
    for (const row of rows) this.#adopt(row, now)
  }

  async #sync(now: number): Promise<void> {
    for (;;) {
      const rows = await changedChecks(this.#db, this.#worker, this.#lastChange, CHANGES_PAGE)
      for (const row of rows) {
        if (row.change_seq > this.#lastChange) this.#lastChange = row.change_seq
        this.#adopt(row, now)
      }
      if (rows.length < CHANGES_PAGE) break
    }
  }

  #drop(e: Entry): void {
    this.#heap.remove(e)
    this.#entries.delete(e.id)
  }

  /** Takes a row as the truth for configuration; for state only when the revision or lease changed. */
  #adopt(row: CheckRow, now: number): void {
    // Moved to a location this service does not run (a collector's): not ours to probe.
    if (!SERVED_LOCATIONS.includes(row.location)) {
      const gone = this.#entries.get(row.id)
      if (gone !== undefined && !gone.busy) this.#drop(gone)
      else if (gone !== undefined) gone.reload = row
      return
    }
    let e = this.#entries.get(row.id)
    const fresh = e === undefined
    if (e === undefined) {
      e = new Entry(row.id)
      e.handledRunAt = ms(row.last_observed_at) ?? 0
      this.#entries.set(row.id, e)
    }
    if (e.busy) {
      e.reload = row
      return
    }
    const newRevision = fresh || e.revision !== row.revision || e.epoch !== row.lease_epoch
    const intervalChanged = fresh || e.target.intervalMs !== row.interval_ms
    e.kind = row.kind
    e.identity = { id: row.id, workspaceId: row.workspace_id, resourceId: row.resource_id, name: row.name, kind: row.kind, required: row.required }
    e.target = {
      checkId: row.id, kind: row.kind, config: row.configuration, credential: row.credential as CredentialRef | null,
      timeoutMs: row.timeout_ms, intervalMs: row.interval_ms, graceMs: row.grace_ms, activeSince: ms(row.active_since) ?? now,
      // Only neura checks get the workspace's runtime secrets (public ones never tunnel, whatever their configuration says).
      ...(row.location === 'neura' ? { owner: { workspaceId: row.workspace_id, resourceId: row.resource_id } } : {}),
    }
    e.enabled = row.enabled
    e.maintenanceUntil = ms(row.maintenance_until)
    e.phase = phaseOf(row.id, row.interval_ms)
    e.staleAfterMs = staleAfterMs(row.interval_ms, row.timeout_ms, row.grace_ms)
    e.missingCounts = row.kind === 'heartbeat' && row.configuration.missing !== 'unknown'
    if (newRevision) e.state = stateOf(row)
    e.revision = row.revision
    e.epoch = row.lease_epoch
    if (!row.enabled) {
      this.#heap.remove(e)
      return
    }
    const runAt = ms(row.run_requested_at)
    if (runAt !== null && runAt > e.handledRunAt) {
      e.handledRunAt = runAt
      this.#heap.schedule(e, now)
    } else if (intervalChanged || !this.#heap.has(e)) {
      this.#heap.schedule(e, this.#nextDue(e, now))
    }
    this.#arm()
  }

  /** The first time after `after` on the check's phase: phases are stable across processes and restarts. */
  #nextDue(e: Entry, after: number): number {
    const i = e.target.intervalMs
    const base = after - ((((after - e.phase) % i) + i) % i)
    return base + i
  }

  // ---- dispatch ----

  #arm(): void {
    if (!this.#running) return
    const top = this.#heap.peek()
    if (top === undefined) return
    if (top.due >= this.#dispatchAt) return
    if (this.#dispatchTimer !== null) this.#clock.clearTimeout(this.#dispatchTimer)
    this.#dispatchAt = top.due
    this.#dispatchTimer = this.#clock.setTimeout(this.#onDispatchTimer, Math.max(0, top.due - this.#clock.now()))
  }

  readonly #onDispatchTimer = (): void => {
    this.#dispatchTimer = null
    this.#dispatchAt = Infinity
    this.#dispatch()
  }

  #dispatch(): void {
    if (this.#dead) return
    const now = this.#clock.now()
    for (;;) {
      const e = this.#heap.peek()
      if (e === undefined || e.due > now) break
      const scheduledFor = e.due
      this.#heap.schedule(e, this.#nextDue(e, Math.max(now, scheduledFor)))
      // Past our lease the check may be someone else's: do not probe until it is renewed.
      if (this.#leaseUntil <= now) continue
      if (e.busy) {
        this.#stats.skippedBusy++
        continue
      }
      e.busy = true
      if (this.#active[e.kind] < this.#limit[e.kind]) this.#launch(e, scheduledFor, e.revision, e.epoch)
      else this.#waiting[e.kind].push(e, scheduledFor)
    }
    this.#arm()
  }

  #launch(e: Entry, scheduledFor: number, revision: number, epoch: number): void {
    this.#active[e.kind]++
    this.#inflight++
    void this.#probe(e, scheduledFor, revision, epoch)
  }

  async #probe(e: Entry, scheduledFor: number, revision: number, epoch: number): Promise<void> {
    const kind = e.kind
    const startedAt = this.#clock.now()
    this.#lateness[this.#latenessCount++ % LATENESS_SAMPLES] = startedAt - scheduledFor
    this.#stats.probes++
    let out: Outcome
    let guard: NodeJS.Timeout | undefined
    try {
      out = await Promise.race([
        this.#runners[kind].run(e.target, { credentials: this.#credentials, now: startedAt, tunnels: this.#tunnels }),
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
    this.#record(e, revision, epoch, out)
    this.#inflight--
    this.#wake()
  }

  #record(e: Entry, revision: number, epoch: number, out: Outcome): void {
    if (this.#dead) return
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
    this.#pending.push({ check: e.identity, revision, epoch, observedAt: at, outcome: out, prev: e.state, next, effects })
    if (out.recheckAt !== undefined && this.#heap.has(e) && out.recheckAt < e.due) {
      this.#heap.schedule(e, out.recheckAt)
      this.#arm()
    }
    if (this.#pending.length >= this.#flushMax) void this.#flush()
    else if (this.#flushTimer === null && this.#flushing === null) {
      this.#flushTimer = setTimeout(this.#onFlushTimer, this.#flushMs)
      this.#flushTimer.unref()
    }
  }

  // ---- writes ----

  readonly #onFlushTimer = (): void => {
    this.#flushTimer = null
    void this.#flush()
  }

  #flush(): Promise<void> {
    if (this.#flushing !== null) return this.#flushing
    if (this.#flushTimer !== null) {
      clearTimeout(this.#flushTimer)
      this.#flushTimer = null
    }
    const run = this.#flushRound().finally(() => {
      this.#flushing = null
      if (this.#pending.length > 0 && !this.#dead) {
        this.#flushTimer = setTimeout(this.#onFlushTimer, this.#flushMs)
        this.#flushTimer.unref()
      }
      this.#wake()
    })
    this.#flushing = run
    return run
  }

  async #flushRound(): Promise<void> {
    const batch = this.#pending.splice(0, this.#flushMax)
    if (batch.length === 0) return
    const t0 = performance.now()
    let accepted: Set<PendingResult>
    try {
      accepted = await writeResults(this.#db, this.#worker, this.#clock.now(), batch)
    } catch (err) {
      this.#log.warn({ err }, 'writing results failed; retrying')
      // Keep what can still count as fresh; the rest is released (it would be stale anyway).
      const now = this.#clock.now()
      const keep = batch.filter((p) => now - p.observedAt < (this.#entries.get(p.check.id)?.staleAfterMs ?? 0))
      for (const p of batch) if (!keep.includes(p)) this.#release(p.check.id, null)
      this.#pending.unshift(...keep)
      await new Promise((r) => setTimeout(r, 1000).unref())
      return
    }
    this.#stats.flushes++
    this.#stats.flushMs += performance.now() - t0
    const reload: string[] = []
    for (const p of batch) {
      const ok = accepted.has(p)
      if (ok) this.#stats.results++
      else {
        this.#stats.rejected++
        reload.push(p.check.id)
      }
      this.#release(p.check.id, ok ? p : null)
    }
    if (reload.length > 0 && !this.#dead) {
      const rows = await checksById(this.#db, this.#worker, reload)
      const still = new Set(rows.map((r) => r.id))
      const now = this.#clock.now()
      for (const row of rows) this.#adopt(row, now)
      for (const id of reload) {
        const e = this.#entries.get(id)
        if (e !== undefined && !still.has(id)) this.#drop(e)
      }
    }
  }

  /** The write for this check is done: take its new state (if accepted) and any row seen meanwhile. */
  #release(id: string, accepted: PendingResult | null): void {
    const e = this.#entries.get(id)
    if (e === undefined) return
    if (accepted !== null && e.revision === accepted.revision && e.epoch === accepted.epoch) e.state = accepted.next
    e.busy = false
    const row = e.reload
    if (row !== null) {
      e.reload = null
      this.#adopt(row, this.#clock.now())
    }
  }

  #wake(): void {
    if (this.#inflight > 0 || this.#flushing !== null || this.#pending.length > 0) return
    const waiters = this.#idle
    this.#idle = []
    for (const w of waiters) w()
  }

  #clearTimers(): void {
    if (this.#dispatchTimer !== null) this.#clock.clearTimeout(this.#dispatchTimer)
    if (this.#houseTimer !== null) this.#clock.clearTimeout(this.#houseTimer)
    if (this.#flushTimer !== null) clearTimeout(this.#flushTimer)
    this.#dispatchTimer = this.#houseTimer = this.#flushTimer = null
    this.#dispatchAt = Infinity
  }
}
