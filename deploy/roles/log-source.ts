// The monitor role's access to the log store for `log` checks: counts through
// the query stage (the search's filters and indexes), and the loader's backlog
// from the broker. A backlog reading is used only by evaluations that began
// before it was asked for, so a line accepted just before a window's end is
// never missed by a reading taken earlier. Counts are collected for
// BATCH_WINDOW_MS (or BATCH_MAX of them) and answered by one statement per
// resource (query/log-count-batch.ts); while one runs, the next batch collects, so a
// loaded store gets fewer, larger statements.
import type { Broker, LogStore } from '../../ingest/index.ts'
import { countBatch, countFilter } from '../../query/index.ts'
import type { LogCount, LogCountRequest, LogSource } from '../../monitor/index.ts'

type Filter = ReturnType<typeof countFilter>

interface Waiting {
  filter: Filter
  samples: boolean
  timeoutMs: number
  resolve: (c: LogCount) => void
  reject: (err: unknown) => void
}

// A quarter second gathers a resource's checks, which are due at one instant (monitor/probes/log-kind.ts
// phaseBy), into one statement, and a window's end is fixed when the evaluation starts, so
// waiting changes no count.
export const BATCH_WINDOW_MS = 250
/** Bounds a statement's text (a check's conditions are under a kilobyte) and the work one failure turns unknown. */
export const BATCH_MAX = 200

export class StoreLogSource implements LogSource {
  readonly #store: LogStore
  readonly #broker: Broker | null
  #inFlight: Promise<number | null> | null = null
  #next: Promise<number | null> | null = null
  #waiting: Waiting[] = []
  #timer: NodeJS.Timeout | null = null
  #running = 0

  /** Without a broker (no ingest pipeline in this process's deployment) nothing can be pending. */
  constructor(store: LogStore, broker: Broker | null) {
    this.#store = store
    this.#broker = broker
  }

  count(req: LogCountRequest): Promise<LogCount> {
    let filter: Filter
    try {
      filter = countFilter(req.workspaceId, req.resourceId, req.query, req.startMs, req.endMs)
    } catch (err) {
      return Promise.reject(err)
    }
    return new Promise((resolve, reject) => {
      this.#waiting.push({ filter, samples: req.samples, timeoutMs: req.timeoutMs, resolve, reject })
      if (this.#waiting.length >= BATCH_MAX) this.#flush()
      else this.#timer ??= setTimeout(() => {
        this.#timer = null
        if (this.#running === 0) this.#flush()
      }, BATCH_WINDOW_MS)
    })
  }

  #flush(): void {
    if (this.#timer !== null) {
      clearTimeout(this.#timer)
      this.#timer = null
    }
    const batch = this.#waiting.splice(0, BATCH_MAX)
    if (batch.length === 0) return
    this.#running++
    let timeoutMs = 0
    for (const w of batch) timeoutMs = Math.max(timeoutMs, w.timeoutMs)
    countBatch(this.#store, batch, timeoutMs).then(
      (counts) => { for (let i = 0; i < batch.length; i++) (batch[i] as Waiting).resolve(counts[i] as LogCount) },
      // A failed statement fails every count in it: each of those checks is unknown, never up.
      (err: unknown) => { for (const w of batch) w.reject(err) },
    ).finally(() => {
      this.#running--
      // What collected while this ran goes now, unless its window is still open.
      if (this.#running === 0 && this.#timer === null && this.#waiting.length > 0) this.#flush()
    })
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
