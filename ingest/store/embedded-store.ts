// The embedded engine behind the log store port, started when it is first needed.
// Importing chdb maps and initialises libchdb, and its session starts ClickHouse's
// caches and pools: about 200 MiB resident before any query (bench/memory). So
// chdb is imported on the first call, not when Lookout starts, and with
// `openOnFirstUse` and an empty data directory (a service that never had logs) the
// engine waits for the first log operation: an insert, a search, a schema change
// someone needs. Until then a ping answers true (nothing can be wrong with an
// engine that holds nothing), size caps have nothing to cap, and migrations are kept
// and run first thing when it starts.
import { readdirSync } from 'node:fs'
import type { RowFormat } from '../rows/rows-read.ts'
import type { RowBody } from '../rows/row-body.ts'
import type { LogStore, QueryParams, QueryResult } from './store-port.ts'

type Preparation = (store: LogStore) => Promise<unknown>

function isEmptyDir(path: string): boolean {
  try {
    return readdirSync(path).length === 0
  } catch {
    return true
  }
}

export class EmbeddedStore implements LogStore {
  readonly embedded = true
  readonly database: string
  readonly cluster: string | null
  readonly #path: string
  readonly #args: string[]
  #engine: LogStore | null = null
  #starting: Promise<LogStore> | null = null
  #waiting: boolean
  #prepare: Preparation | null = null
  #closed = false

  constructor(path: string, database: string, cluster: string | null, args: string[], openOnFirstUse: boolean) {
    this.database = database
    this.cluster = cluster
    this.#path = path
    this.#args = args
    this.#waiting = openOnFirstUse && isEmptyDir(path)
  }

  /** True while the engine has not been needed yet (openOnFirstUse and no data). */
  get waiting(): boolean {
    return this.#waiting && this.#starting === null && this.#engine === null
  }

  /** Runs `prepare` when the engine starts (the latest one asked for wins); only while waiting. */
  deferPreparation(prepare: Preparation): void {
    this.#prepare = prepare
  }

  /** Starts the engine now (the first log operation does it anyway). */
  start(): Promise<LogStore> {
    if (this.#engine !== null) return Promise.resolve(this.#engine)
    if (this.#closed) return Promise.reject(new Error('the log store is closed'))
    this.#starting ??= this.#open().then(
      (engine) => {
        this.#engine = engine
        return engine
      },
      (err: unknown) => {
        // The next call tries again (the loader retries its inserts with backoff).
        this.#starting = null
        throw err
      },
    )
    return this.#starting
  }

  async #open(): Promise<LogStore> {
    const { ChdbStore } = await import('./chdb-store.ts')
    const engine = new ChdbStore(this.#path, this.database, this.cluster, this.#args)
    const prepare = this.#prepare
    this.#prepare = null
    try {
      if (prepare !== null) await prepare(engine)
    } catch (err) {
      this.#prepare = prepare
      await engine.close()
      throw err
    }
    return engine
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    await (this.#engine ?? await this.start()).command(sql, params)
  }

  async query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    return (this.#engine ?? await this.start()).query<T>(sql, params)
  }

  async queryBeside<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    const engine = this.#engine ?? await this.start()
    // The engine here is always a ChdbStore, which has it.
    return engine.queryBeside === undefined ? engine.query<T>(sql, params) : engine.queryBeside<T>(sql, params)
  }

  async insertJsonRows(table: string, body: RowBody, dedupToken: string, format?: RowFormat): Promise<void> {
    await (this.#engine ?? await this.start()).insertJsonRows(table, body, dedupToken, format)
  }

  async ping(): Promise<boolean> {
    if (this.waiting) return true
    try {
      return await (this.#engine ?? await this.start()).ping()
    } catch {
      return false
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    const engine = this.#engine ?? (this.#starting === null ? null : await this.#starting.catch(() => null))
    this.#engine = null
    if (engine !== null) await engine.close()
  }
}

/** True when `store` is an embedded engine still waiting for its first use. */
export function isWaiting(store: LogStore): store is EmbeddedStore {
  return store instanceof EmbeddedStore && store.waiting
}
