// A loader "process" inside the test process: its own NATS connections (a
// Broker of its own) and a Loader, on the one chdb store the process can open
// (chdb binds a data directory to one process, so loaders that must share a
// store share the process). It can be made to die the way a killed process
// does: after its insert reached ClickHouse (whole, or only the part of its
// first day's partition, as when a crash falls between the parts of a
// multi-partition insert) and before any acknowledgement left.
import { setTimeout as sleep } from 'node:timers/promises'
import { Broker, Loader, encodeRows, readStoredRows, rowFormatOf, type LogStore, type LoaderOptions, type QueryParams, type QueryResult, type RowBody, type RowFormat, rowBodyWhole } from '../../../ingest/internal.ts'
import type { TestLookout } from '../../helpers/lookout.ts'

export type DeathMode = 'after-insert' | 'mid-insert'

/** One insert as the store took it: for telling, when a row is stored twice, who stored it when. */
export interface InsertRecord {
  at: number
  token: string
  rows: number
  batchIds: string[]
  /** The insert resolved (false: it failed, or was the trap's partial one). */
  done: boolean
}

/** The real store, with a trap on the next insert. */
class TrappedStore implements LogStore {
  readonly #inner: LogStore
  #trap: { mode: DeathMode; die: (rows: number) => void } | null = null
  readonly inserts: InsertRecord[] = []

  constructor(inner: LogStore) {
    this.#inner = inner
  }

  get embedded(): boolean {
    return this.#inner.embedded
  }

  get database(): string {
    return this.#inner.database
  }

  get cluster(): string | null {
    return this.#inner.cluster
  }

  arm(mode: DeathMode, die: (rows: number) => void): void {
    this.#trap = { mode, die }
  }

  command(sql: string, params?: QueryParams): Promise<void> {
    return this.#inner.command(sql, params)
  }

  query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    return this.#inner.query<T>(sql, params)
  }

  async insertJsonRows(table: string, rows: RowBody, dedupToken: string, format?: RowFormat): Promise<void> {
    const body = rowBodyWhole(rows)
    const trap = this.#trap
    const record = describe(body, dedupToken)
    this.inserts.push(record)
    if (trap === null) {
      await this.#inner.insertJsonRows(table, body, dedupToken, format)
      record.done = true
      return
    }
    this.#trap = null
    const part = trap.mode === 'after-insert' ? { body, rows: record.rows } : firstDay(body)
    await this.#inner.insertJsonRows(table, part.body, dedupToken, trap.mode === 'after-insert' ? format : rowFormatOf(part.body))
    // Dies here: the loader is aborted before its acknowledgements (the retry
    // wrapper sees the abort as soon as this resolves and the batch is abandoned).
    trap.die(part.rows)
  }

  ping(): Promise<boolean> {
    return this.#inner.ping()
  }

  close(): Promise<void> {
    return Promise.resolve() // the shared store outlives this loader
  }
}

function describe(body: Uint8Array, token: string): InsertRecord {
  const rows = readStoredRows(body)
  const ids = new Set(rows.map((r) => r.batch_id))
  return { at: Date.now(), token, rows: rows.length, batchIds: [...ids], done: false }
}

/** The rows of the earliest day (partition) in a body of stored rows, as one Native block. */
function firstDay(body: Uint8Array): { body: Uint8Array; rows: number } {
  const rows = readStoredRows(body)
  const day = (ns: string) => Number(BigInt(ns) / 86_400_000_000_000n)
  const first = Math.min(...rows.map((r) => day(r.timestamp)))
  const kept = rows.filter((r) => day(r.timestamp) === first)
  return { body: encodeRows(kept), rows: kept.length }
}

export interface LoaderProcessOptions {
  servers: string[]
  store: LogStore
  /** Stream settings as the running api created them (a Broker applies its own at start). */
  streamMaxBytes: number
  duplicateWindowMs: number
  replicas: number
  loader?: LoaderOptions
  name: string
}

export class LoaderProcess {
  readonly name: string
  readonly broker: Broker
  readonly loader: Loader
  readonly #store: TrappedStore
  /** Every insert this loader made. */
  get inserts(): readonly InsertRecord[] {
    return this.#store.inserts
  }

  /** Resolves with the rows the dying insert wrote, once the loader is dead. */
  died: Promise<number> | null = null

  constructor(o: LoaderProcessOptions) {
    this.name = o.name
    this.broker = new Broker({ servers: o.servers, maxBytes: o.streamMaxBytes, duplicateWindowMs: o.duplicateWindowMs, replicas: o.replicas, name: o.name })
    this.#store = new TrappedStore(o.store)
    this.loader = new Loader(this.broker, this.#store, { flushMs: 100, ...o.loader })
  }

  async start(): Promise<void> {
    await this.broker.start()
    await this.loader.start()
  }

  /** Dies during its next insert, as set by `mode`; its connections close as a dead process's would. */
  dieOnNextInsert(mode: DeathMode): void {
    this.died = new Promise<number>((resolve) => {
      this.#store.arm(mode, (rows) => {
        const killed = this.loader.kill()
        void killed.then(() => this.broker.close()).then(() => resolve(rows))
      })
    })
  }

  async stop(): Promise<void> {
    await this.loader.stop()
    await this.broker.close()
  }
}

/** A loader process on the test Lookout's NATS server and store. */
export function loaderProcessFor(lk: TestLookout, name: string, servers = [lk.lookout.nats?.url ?? '']): LoaderProcess {
  const c = lk.lookout.config
  return new LoaderProcess({
    name, servers, store: lk.lookout.store,
    streamMaxBytes: c.streamMaxBytes, duplicateWindowMs: c.duplicateWindowMs, replicas: c.natsReplicas,
  })
}

/** Waits until the stream holds `pending` messages, delivered or not (0: all acknowledged). */
export async function waitBacklog(lk: TestLookout, pending: number, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (Date.now() < deadline) {
    const b = await lk.lookout.broker.backlog()
    if (b.pending + b.ackPending === pending) return
    await sleep(50)
  }
  throw new Error('backlog did not reach ' + pending)
}
