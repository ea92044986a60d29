// What the scheduler keeps per check it holds (Entry), the queue of checks
// waiting for a probe slot of their kind, and the schedule arithmetic that
// every part of the scheduler shares (phase, next due time, stored state).
import { hash } from 'node:crypto'
import type { HeapItem } from './heap.ts'
import type { Kind } from './kinds.ts'
import type { ProbeTarget } from './probes/index.ts'
import { ms, type CheckRow } from './rows.ts'
import type { CheckState } from './state.ts'
import type { CheckIdentity } from './writer.ts'

export class Entry implements HeapItem {
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

export interface Waiter {
  e: Entry
  at: number
  rev: number
  epoch: number
}

/** FIFO of entries waiting for a slot of their kind. */
export class Waiting {
  #a: Waiter[] = []
  #head = 0

  get length(): number {
    return this.#a.length - this.#head
  }

  push(e: Entry, at: number): void {
    this.#a.push({ e, at, rev: e.revision, epoch: e.epoch })
  }

  shift(): Waiter | undefined {
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

export interface MonitorLogger {
  warn(obj: object, msg: string): void
}

/** Told when a housekeeping round (lease renewal, share, claims, API changes, pruning) or a result write starts and ends. */
export type PhaseHook = (phase: 'housekeeping' | 'flush', active: boolean) => void

/** Shared by the parts of one Monitor: started, and killed (abandon: nothing more is written). */
export interface RunState {
  running: boolean
  dead: boolean
}

/**
 * A check's offset within its interval, from a hash of its id: the same in every process (and on
 * collectors), and even over the interval however the ids were made. (Read straight from the id,
 * UUIDv7s made in a burst, whose leading 48 bits are their creation time, would all share one phase.)
 */
export function phaseOf(id: string, intervalMs: number): number {
  return hash('sha256', id, 'buffer').readUIntBE(0, 6) % intervalMs
}

/** The first time after `after` on the check's phase: phases are stable across processes and restarts. */
export function nextDue(e: Entry, after: number): number {
  const i = e.target.intervalMs
  const base = after - ((((after - e.phase) % i) + i) % i)
  return base + i
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
