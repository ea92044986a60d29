// Result writes: observations queue here and are written in batches (at most
// flushMax per transaction, at the latest flushMs after the first waits), one
// batch at a time, fenced by revision and lease (writer.ts). A rejected result
// means the check changed or moved: its row is read again.
import type { Database } from '../core/index.ts'
import type { Clock } from './clock.ts'
import type { MonitorLogger, MonitorStats, PhaseHook, RunState } from './entry.ts'
import { checksById } from './leases.ts'
import type { CheckTable } from './table.ts'
import { writeResults, type PendingResult } from './writer.ts'

export interface FlusherOptions {
  db: Database
  clock: Clock
  run: RunState
  stats: MonitorStats
  log: MonitorLogger
  table: CheckTable
  /** The id this process writes under now (a new one after a lost lease). */
  worker: () => string
  flushMs: number
  flushMax: number
  /** A batch is done (written or given up). */
  onDone: () => void
  onPhase: PhaseHook | undefined
}

export class ResultFlusher {
  readonly #o: FlusherOptions
  #pending: PendingResult[] = []
  #flushing: Promise<void> | null = null
  #timer: NodeJS.Timeout | null = null

  constructor(o: FlusherOptions) {
    this.#o = o
  }

  /** Results waiting to be written. */
  get pending(): number {
    return this.#pending.length
  }

  /** The batch being written now, if any. */
  get flushing(): Promise<void> | null {
    return this.#flushing
  }

  add(p: PendingResult): void {
    this.#pending.push(p)
    if (this.#pending.length >= this.#o.flushMax) void this.flush()
    else if (this.#timer === null && this.#flushing === null) {
      this.#timer = setTimeout(this.#onTimer, this.#o.flushMs)
      this.#timer.unref()
    }
  }

  /** Forgets what is queued (a simulated crash). */
  discard(): void {
    this.#pending = []
  }

  clearTimer(): void {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
  }

  readonly #onTimer = (): void => {
    this.#timer = null
    void this.flush()
  }

  flush(): Promise<void> {
    if (this.#flushing !== null) return this.#flushing
    this.clearTimer()
    this.#o.onPhase?.('flush', true)
    const run = this.#round().finally(() => {
      this.#o.onPhase?.('flush', false)
      this.#flushing = null
      if (this.#pending.length > 0 && !this.#o.run.dead) {
        this.#timer = setTimeout(this.#onTimer, this.#o.flushMs)
        this.#timer.unref()
      }
      this.#o.onDone()
    })
    this.#flushing = run
    return run
  }

  async #round(): Promise<void> {
    const { db, clock, stats, table } = this.#o
    const batch = this.#pending.splice(0, this.#o.flushMax)
    if (batch.length === 0) return
    const t0 = performance.now()
    let accepted: Set<PendingResult>
    try {
      accepted = await writeResults(db, this.#o.worker(), clock.now(), batch)
    } catch (err) {
      this.#o.log.warn({ err }, 'writing results failed; retrying')
      // Keep what can still count as fresh; the rest is released (it would be stale anyway).
      const now = clock.now()
      const keep = batch.filter((p) => now - p.observedAt < (table.get(p.check.id)?.staleAfterMs ?? 0))
      for (const p of batch) if (!keep.includes(p)) table.release(p.check.id, null, () => clock.now())
      this.#pending.unshift(...keep)
      await new Promise((r) => setTimeout(r, 1000).unref())
      return
    }
    stats.flushes++
    stats.flushMs += performance.now() - t0
    const reload: string[] = []
    for (const p of batch) {
      const ok = accepted.has(p)
      if (ok) stats.results++
      else {
        stats.rejected++
        reload.push(p.check.id)
      }
      table.release(p.check.id, ok ? p : null, () => clock.now())
    }
    if (reload.length > 0 && !this.#o.run.dead) {
      const rows = await checksById(db, this.#o.worker(), reload)
      const still = new Set(rows.map((r) => r.id))
      const now = clock.now()
      for (const row of rows) table.adopt(row, now)
      for (const id of reload) {
        const e = table.get(id)
        if (e !== undefined && !still.has(id)) table.drop(e)
      }
    }
  }
}
