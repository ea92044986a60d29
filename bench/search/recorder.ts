// Every statement the routes run goes through lookout.store: the recorder wraps its
// query methods, so the raw baseline replays exactly the SQL (and parameters) a
// request ran. A statement run beside another (a search's whole range beside its first
// window) is replayed beside the ones after it, and timed to its end only where the
// request waited for it.
import type { LogStore, QueryParams, QueryResult } from '../../ingest/index.ts'

export interface Recorded {
  sql: string
  params?: QueryParams
  /** A statement run beside others: when it settled (ms from the request's start), and whether a query before it was still running when it started. */
  beside?: { settledAt: number; withPrevious: boolean }
}

export class StatementRecorder {
  readonly #store: LogStore
  readonly #query: LogStore['query']
  readonly #beside: LogStore['queryBeside']
  #recording: Recorded[] | null = null
  #start = 0
  #running = 0

  /** `beside: false`: the store runs without queryBeside, one statement after the other (an A/B). */
  constructor(store: LogStore, beside: boolean) {
    this.#store = store
    this.#query = store.query.bind(store)
    if (!beside) store.queryBeside = undefined
    this.#beside = store.queryBeside?.bind(store)
    store.query = (<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> => {
      this.#recording?.push({ sql, params })
      this.#running++
      const p = this.#query<T>(sql, params)
      const done = () => { this.#running-- }
      p.then(done, done)
      return p
    }) as LogStore['query']
    const aside = this.#beside
    if (aside === undefined) return
    store.queryBeside = (<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> => {
      const entry: Recorded = { sql, params, beside: { settledAt: Number.POSITIVE_INFINITY, withPrevious: this.#running > 0 } }
      this.#recording?.push(entry)
      const start = this.#start
      const settled = () => { if (entry.beside !== undefined) entry.beside.settledAt = performance.now() - start }
      const p = aside<T>(sql, params)
      p.then(settled, settled)
      return p
    }) as LogStore['queryBeside']
  }

  /** The store's own query, unrecorded. */
  get query(): LogStore['query'] {
    return this.#query
  }

  /** Records from now, for a request that starts now. */
  start(): void {
    this.#recording = []
    this.#start = performance.now()
  }

  stop(): Recorded[] {
    const r = this.#recording ?? []
    this.#recording = null
    return r
  }

  /** Replays `statements` as the request ran them (`took`: its time, ms); the time until the request's part of them ended. */
  async replay(statements: readonly Recorded[], took = Number.POSITIVE_INFINITY): Promise<number> {
    const t0 = performance.now()
    const aside: Promise<unknown>[] = []
    const waited: Promise<unknown>[] = []
    const besideOf = (s: Recorded): void => {
      if (s.beside === undefined || this.#beside === undefined) return
      (s.beside.settledAt <= took ? waited : aside).push(this.#beside(s.sql, s.params).catch(() => null))
    }
    for (let i = 0; i < statements.length; i++) {
      const s = statements[i] as Recorded
      if (s.beside !== undefined && this.#beside !== undefined) {
        besideOf(s)
        continue
      }
      const q = this.#query(s.sql, s.params)
      // Those the request started while this query ran start with it here too.
      while (statements[i + 1]?.beside?.withPrevious === true) besideOf(statements[++i] as Recorded)
      await q
    }
    await Promise.all(waited)
    const ms = performance.now() - t0
    await Promise.all(aside)
    return ms
  }

  /** The store's methods back as they were. */
  restore(): void {
    this.#store.query = this.#query
    if (this.#beside !== undefined) this.#store.queryBeside = this.#beside
  }
}
