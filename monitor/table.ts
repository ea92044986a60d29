// The checks this process holds, in memory: a row from the database is
// adopted as the truth for configuration (and for state when its revision or
// lease changed), scheduled on the dispatcher, and dropped when it leaves.
// While a probe or its write is in progress a newer row waits in `reload`.
import type { CredentialRef } from './credentials.ts'
import { staleAfterMs } from './config.ts'
import type { Dispatcher } from './dispatch.ts'
import { Entry, nextDue, phaseOf, stateOf } from './entry.ts'
import { KIND_SPECS, SERVED_LOCATIONS } from './kinds.ts'
import { ms, type CheckRow } from './rows.ts'
import type { PendingResult } from './writer.ts'

export class CheckTable {
  readonly #entries = new Map<string, Entry>()
  readonly #dispatch: Dispatcher

  constructor(dispatch: Dispatcher) {
    this.#dispatch = dispatch
  }

  get size(): number {
    return this.#entries.size
  }

  get(id: string): Entry | undefined {
    return this.#entries.get(id)
  }

  values(): IterableIterator<Entry> {
    return this.#entries.values()
  }

  ids(): string[] {
    return [...this.#entries.keys()]
  }

  clear(): void {
    this.#entries.clear()
  }

  drop(e: Entry): void {
    this.#dispatch.remove(e)
    this.#entries.delete(e.id)
  }

  /** Takes a row as the truth for configuration; for state only when the revision or lease changed. */
  adopt(row: CheckRow, now: number): void {
    // Moved to a location this service does not run (a collector's): not ours to probe.
    if (!SERVED_LOCATIONS.includes(row.location)) {
      const gone = this.#entries.get(row.id)
      if (gone !== undefined && !gone.busy) this.drop(gone)
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
      ...(row.kind === 'log' ? { resource: { workspaceId: row.workspace_id, resourceId: row.resource_id } } : {}),
    }
    e.enabled = row.enabled
    e.maintenanceUntil = ms(row.maintenance_until)
    e.phase = phaseOf(KIND_SPECS[row.kind].phaseBy === 'resource' ? row.resource_id : row.id, row.interval_ms)
    e.staleAfterMs = staleAfterMs(row.interval_ms, row.timeout_ms, row.grace_ms)
    e.missingCounts = row.kind === 'heartbeat' && row.configuration.missing === 'unhealthy'
    if (newRevision) e.state = stateOf(row)
    e.revision = row.revision
    e.epoch = row.lease_epoch
    if (!row.enabled) {
      this.#dispatch.remove(e)
      return
    }
    const runAt = ms(row.run_requested_at)
    if (runAt !== null && runAt > e.handledRunAt) {
      e.handledRunAt = runAt
      this.#dispatch.schedule(e, now)
    } else if (intervalChanged || !this.#dispatch.has(e)) {
      this.#dispatch.schedule(e, nextDue(e, now))
    }
    this.#dispatch.arm()
  }

  /** The write for this check is done: take its new state (if accepted) and any row seen meanwhile. */
  release(id: string, accepted: PendingResult | null, now: () => number): void {
    const e = this.#entries.get(id)
    if (e === undefined) return
    if (accepted !== null && e.revision === accepted.revision && e.epoch === accepted.epoch) e.state = accepted.next
    e.busy = false
    const row = e.reload
    if (row !== null) {
      e.reload = null
      this.adopt(row, now())
    }
  }
}
