// The monitor role's access to the log store for `log` checks: counts through
// the query stage (the search's filters and indexes), and the loader's backlog
// from the broker. A backlog reading is used only by evaluations that began
// before it was asked for, so a line accepted just before a window's end is
// never missed by a reading taken earlier.
import type { Broker, LogStore } from '../../ingest/index.ts'
import { countMatchingLines } from '../../query/index.ts'
import type { LogCount, LogCountRequest, LogSource } from '../../monitor/index.ts'

export class StoreLogSource implements LogSource {
  readonly #store: LogStore
  readonly #broker: Broker | null
  #inFlight: Promise<number | null> | null = null
  #next: Promise<number | null> | null = null

  /** Without a broker (no ingest pipeline in this process's deployment) nothing can be pending. */
  constructor(store: LogStore, broker: Broker | null) {
    this.#store = store
    this.#broker = broker
  }

  count(req: LogCountRequest): Promise<LogCount> {
    return countMatchingLines(this.#store, req.workspaceId, req.resourceId, req.query, req.startMs, req.endMs, req.timeoutMs)
  }

  oldestPending(): Promise<number | null> {
    const broker = this.#broker
    if (broker === null) return Promise.resolve(null)
    // Concurrent evaluations share one reading, but only one asked for after they started.
    if (this.#inFlight === null) return this.#start(broker)
    this.#next ??= this.#inFlight.catch(() => null).then(() => {
      this.#next = null
      return this.#start(broker)
    })
    return this.#next
  }

  #start(broker: Broker): Promise<number | null> {
    const p = broker.oldestPendingAt().finally(() => {
      if (this.#inFlight === p) this.#inFlight = null
    })
    this.#inFlight = p
    return p
  }
}
