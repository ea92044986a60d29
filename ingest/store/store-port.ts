// The log store port, as its users and its two adapters see it: its own module,
// so the adapters (client-store.ts, embedded-store.ts) and the factory (store.ts) do not import each other.
import type { RowFormat } from '../rows/rows-read.ts'
import type { RowBody } from '../rows/row-body.ts'

export type QueryParams = Record<string, unknown>

export interface LogStore {
  readonly embedded: boolean
  readonly database: string
  /** Runs a statement that returns no rows. */
  command(sql: string, params?: QueryParams): Promise<void>
  /** Runs a query and returns its JSONEachRow rows, with the engine's read statistics. */
  query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>>
  /**
   * The same, able to run while another statement of this process runs (the
   * embedded engine otherwise takes one bound statement at a time): for a
   * statement started on speculation beside the one a caller waits for.
   * Absent in a store that cannot; callers then run one after the other.
   */
  queryBeside?<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>>
  /**
   * Inserts stored rows into a table: Native blocks (rows.ts, every column in table
   * order), or lines of the earlier formats (JSONCompactEachRow in ROW_COLUMNS order,
   * JSONEachRow objects); a repeated token is a no-op. Default format: JSONEachRow.
   */
  insertJsonRows(table: string, body: RowBody, dedupToken: string, format?: RowFormat): Promise<void>
  /**
   * Cluster name in the cluster layout (ReplicatedMergeTree `logs_local` on each
   * shard + Distributed `logs`), else null. A wrapper must pass it on: inserts
   * and the loader's checks (stored.ts) depend on it.
   */
  readonly cluster: string | null
  ping(): Promise<boolean>
  close(): Promise<void>
}

export interface QueryResult<T> {
  rows: T[]
  rowsRead: number
  bytesRead: number
  elapsedMs: number
}
