// Housekeeping, every syncMs: the process lease is renewed (every leaseMs/3),
// the fair share recomputed, surplus checks given back or free ones claimed,
// API changes picked up, and old results and dead processes' rows pruned.
// Rounds are serialized: a manual step and a timer never interleave.
import type { Database } from '../core/index.ts'
import type { Clock } from './clock.ts'
import type { MonitorLogger, PhaseHook, RunState } from './entry.ts'
import { pruneUptime } from './uptime.ts'
import {
  changedChecks, checksById, claimChecks, heldChecks, pruneResults, purgeWorkers, registerWorker, releaseLeases, removeWorker, renewWorker, shareOf,
  shareSignature,
} from './leases.ts'
import type { CheckTable } from './table.ts'

const PRUNE_EVERY_MS = 10 * 60_000
const PRUNE_CHUNK = 5_000
const PRUNE_PAGE_EMBEDDED = 500
/** A process whose lease ended this many lease periods ago is forgotten (its row deleted). */
const WORKER_PURGE_LEASES = 10
const CHANGES_PAGE = 2_000
/** Most checks claimed per round (a process starting beside 50,000 free checks takes them over ten rounds). */
const CLAIM_MAX = 5_000
const CLAIM_PAGE_EMBEDDED = 500
/** Checks counted per statement on the embedded database (the fair share's counts). 5,000 took 23-29 ms there, over 50 ms with a young-generation GC in the same turn; 2,000 is about 10-12 ms by proportion (not timed alone). */
const COUNT_PAGE_EMBEDDED = 2_000
/** Leases given back per statement on the embedded database (surplus, and all of them on leaving). */
const RELEASE_PAGE_EMBEDDED = 1_000
/** The counts behind the fair share are redone at least this often even when nothing seems to have changed. */
const RECOUNT_EVERY_MS = 60_000
/** Between statements on the embedded database (it runs on the event loop): let timers and sockets have a turn. */
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve))
const noYield = async () => undefined

export interface LeaseCycleOptions {
  db: Database
  clock: Clock
  run: RunState
  log: MonitorLogger
  table: CheckTable
  baseId: string
  leaseMs: number
  syncMs: number
  retentionMs: number
  maxChecks: number
  /** After each timed round (the monitor dispatches what became due). */
  onRound: () => void
  onPhase: PhaseHook | undefined
}

export class LeaseCycle {
  readonly #o: LeaseCycleOptions
  /** The id this process holds its lease under; a new one after a lost lease. */
  #worker: string
  #generation = 0
  /** Until when this process's lease is known to hold (renewed in housekeeping). */
  #leaseUntil = 0
  #timer: unknown = null
  #house: Promise<void> = Promise.resolve()
  #lastChange = 0
  #lastLeaseCycle = -Infinity
  #lastPrune = -Infinity
  #pruning = false
  #share = 0
  /** The share signature (processes, last change number) when the share was last counted. */
  #signature = ''
  #countedAt = -Infinity

  constructor(o: LeaseCycleOptions) {
    this.#o = o
    this.#worker = o.baseId
  }

  get worker(): string {
    return this.#worker
  }

  get leaseUntil(): number {
    return this.#leaseUntil
  }

  /** The round in progress (or the last one), failures swallowed. */
  get idle(): Promise<void> {
    return this.#house.catch(() => undefined)
  }

  async register(): Promise<void> {
    const now = this.#o.clock.now()
    await registerWorker(this.#o.db, this.#worker, now, now + this.#o.leaseMs)
    this.#leaseUntil = now + this.#o.leaseMs
  }

  /** Gives every lease back and leaves (errors ignored: the lease would expire anyway). */
  async leave(): Promise<void> {
    const db = this.#o.db
    await releaseLeases(db, this.#worker, null, db.embedded ? RELEASE_PAGE_EMBEDDED : 0, yieldTurn).catch(() => undefined)
    await removeWorker(this.#o.db, this.#worker).catch(() => undefined)
  }

  arm(): void {
    if (!this.#o.run.running) return
    this.#timer = this.#o.clock.setTimeout(this.#onTimer, this.#o.syncMs)
  }

  clearTimer(): void {
    if (this.#timer !== null) this.#o.clock.clearTimeout(this.#timer)
    this.#timer = null
  }

  readonly #onTimer = (): void => {
    this.#timer = null
    this.housekeeping(false).catch((err: unknown) => this.#o.log.warn({ err }, 'housekeeping failed')).finally(() => {
      this.#o.onRound()
      this.arm()
    })
  }

  /** Serialized: a manual step and a timer never interleave. */
  housekeeping(forceLeases: boolean): Promise<void> {
    const run = this.#house.catch(() => undefined).then(() => this.#timed(forceLeases))
    this.#house = run
    return run
  }

  async #timed(forceLeases: boolean): Promise<void> {
    const hook = this.#o.onPhase
    if (hook === undefined) return this.#round(forceLeases)
    hook('housekeeping', true)
    try {
      await this.#round(forceLeases)
    } finally {
      hook('housekeeping', false)
    }
  }

  async #round(forceLeases: boolean): Promise<void> {
    if (this.#o.run.dead) return
    const { db, clock, leaseMs } = this.#o
    const now = clock.now()
    if (forceLeases || now - this.#lastLeaseCycle >= leaseMs / 3) await this.#leaseCycle(now, forceLeases)
    else {
      // New checks are taken within a second, not a lease cycle. Counting every check each
      // second cost more than all else at 50,000 checks: count only when something changed.
      const signature = await shareSignature(db, now)
      if (signature !== this.#signature) await this.#updateShare(now, signature)
      await this.#claim(now)
    }
    await this.#sync(now)
    if (this.#pruning || now - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = now
      // Kept a while after expiry so a dead process's name still explains its checks' lease_owner.
      await purgeWorkers(db, now - WORKER_PURGE_LEASES * leaseMs)
      // A chunk per round until the backlog is gone.
      this.#pruning = await this.#prune(now - this.#o.retentionMs)
      // Hour buckets are few (one per check and hour): one chunk per round keeps up.
      await pruneUptime(this.#o.db, now, PRUNE_PAGE_EMBEDDED)
    }
  }

  /** Deletes up to PRUNE_CHUNK old results (in pages on the embedded database); true when more are left. */
  async #prune(before: number): Promise<boolean> {
    const db = this.#o.db
    const page = db.embedded ? PRUNE_PAGE_EMBEDDED : PRUNE_CHUNK
    for (let done = 0; done < PRUNE_CHUNK;) {
      if (done > 0) await yieldTurn()
      const n = await pruneResults(db, before, page)
      done += n
      if (n < page) return false
    }
    return true
  }

  async #leaseCycle(now: number, recount: boolean): Promise<void> {
    const { db, leaseMs, table } = this.#o
    this.#lastLeaseCycle = now
    if (await renewWorker(db, this.#worker, now, now + leaseMs)) {
      this.#leaseUntil = now + leaseMs
    } else {
      // The lease ran out (a stall longer than leaseMs): others may hold our checks now.
      // Start over under a new id, so nothing probed under the old lease can be written.
      this.#o.log.warn({ worker: this.#worker }, 'lease expired; rejoining under a new id')
      for (const e of [...table.values()]) table.drop(e)
      this.#generation++
      this.#worker = `${this.#o.baseId}#${this.#generation}`
      this.#lastChange = 0
      await registerWorker(db, this.#worker, now, now + leaseMs)
      this.#leaseUntil = now + leaseMs
    }
    const signature = await shareSignature(db, now)
    // Unchanged processes and change number: what this process holds is what it took and kept.
    const mine = recount || signature !== this.#signature || now - this.#countedAt >= RECOUNT_EVERY_MS
      ? await this.#updateShare(now, signature)
      : table.size
    if (mine !== table.size) await this.#reconcile(now)
    const surplus = table.size - this.#share
    if (surplus > Math.max(1, Math.ceil(this.#share * 0.05))) {
      const give: string[] = []
      for (const e of table.values()) {
        if (give.length >= surplus) break
        if (!e.busy) give.push(e.id)
      }
      await releaseLeases(db, this.#worker, give, db.embedded ? RELEASE_PAGE_EMBEDDED : 0, yieldTurn)
      for (const id of give) {
        const e = table.get(id)
        if (e !== undefined) table.drop(e)
      }
      return
    }
    await this.#claim(now)
  }

  /** Memory and the table disagree about what this process holds: the table wins. */
  async #reconcile(now: number): Promise<void> {
    const { db, table } = this.#o
    const held = await heldChecks(db, this.#worker)
    const ids = new Set<string>()
    const load: string[] = []
    for (const h of held) {
      ids.add(h.id)
      const e = table.get(h.id)
      if (e === undefined || e.epoch !== h.epoch) load.push(h.id)
    }
    for (const e of [...table.values()]) if (!ids.has(e.id)) table.drop(e)
    for (const row of await checksById(db, this.#worker, load)) table.adopt(row, now)
  }

  /** This process's fair share: the served checks divided by the live monitor processes. Returns how many it holds. */
  async #updateShare(now: number, signature: string): Promise<number> {
    const db = this.#o.db
    const { workers, total, mine } = await shareOf(db, this.#worker, now, db.embedded ? yieldTurn : noYield, db.embedded ? COUNT_PAGE_EMBEDDED : 0)
    this.#share = Math.min(this.#o.maxChecks, Math.ceil(total / workers))
    this.#signature = signature
    this.#countedAt = now
    return mine
  }

  async #claim(now: number): Promise<void> {
    const { db, table } = this.#o
    const want = Math.min(this.#share - table.size, CLAIM_MAX)
    // On the embedded database a claim of thousands of rows is one long statement on the event loop: take them in pages.
    const page = db.embedded ? CLAIM_PAGE_EMBEDDED : CLAIM_MAX
    for (let got = 0; got < want;) {
      if (got > 0) await yieldTurn()
      const ask = Math.min(page, want - got)
      const rows = await claimChecks(db, this.#worker, now, ask)
      for (const row of rows) table.adopt(row, now)
      got += rows.length
      if (rows.length < ask) break
    }
  }

  async #sync(now: number): Promise<void> {
    for (;;) {
      const rows = await changedChecks(this.#o.db, this.#worker, this.#lastChange, CHANGES_PAGE)
      for (const row of rows) {
        if (row.change_seq > this.#lastChange) this.#lastChange = row.change_seq
        this.#o.table.adopt(row, now)
      }
      if (rows.length < CHANGES_PAGE) break
    }
  }
}
