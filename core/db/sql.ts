// The PostgreSQL port: PGlite in-process by default, a server with DATABASE_URL.
// Every stage that keeps transactional state talks to this interface only.

export interface SqlResult<T> {
  rows: T[]
  rowCount: number
}

export interface QueryOptions {
  /**
   * Run as a named prepared statement (a server parses and plans the text once per
   * connection; PGlite through PREPARE and EXECUTE). For hot statements whose text
   * comes from a small set; the port bounds how many texts it names.
   */
  prepared?: boolean
}

export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<T>>
  /** Runs one or more statements without parameters (migrations). */
  exec(text: string): Promise<void>
}

export interface Database extends Sql {
  readonly embedded: boolean
  /** Runs fn in one transaction; it commits when fn resolves and rolls back when it throws. */
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>
  close(): Promise<void>
  /**
   * Delivers the payloads of NOTIFY on a channel until the returned function is
   * called. Resolves once listening. A server connection can break: onLost then
   * says notifications may be missed, onListening that they flow again.
   */
  listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>>
  /** Connection pool counts (server only; PGlite has one in-process connection). */
  poolStats?(): PoolStats
  /**
   * PGlite only: a gzipped tarball of the data directory, taken between two
   * statements after a checkpoint (a consistent copy; a restore replays its WAL).
   */
  dumpDataDir?(): Promise<Buffer>
}

export interface PoolStats {
  total: number
  idle: number
  waiting: number
}

export interface ListenHandlers {
  onPayload(payload: string): void
  /** The subscription broke: notifications sent from now on may be missed. */
  onLost(): void
  /** Listening (again, after onLost). */
  onListening(): void
}
