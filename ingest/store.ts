// The log store port: ClickHouse, either in-process (chdb) or a server.
// One SQL dialect for both; only how bytes reach the engine differs.
import { Readable } from 'node:stream'
import { createClient, type ClickHouseClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import { Session } from 'chdb'
import { InvalidOptionError } from '../core/index.ts'
import { ROW_COLUMNS } from './row-model.ts'
import { ROW_FORMATS, type RowFormat } from './rows.ts'
import { engineArgs, type EngineMemoryOptions } from './engine-settings.ts'

export type QueryParams = Record<string, unknown>

export interface LogStore {
  readonly embedded: boolean
  readonly database: string
  /** Runs a statement that returns no rows. */
  command(sql: string, params?: QueryParams): Promise<void>
  /** Runs a query and returns its JSONEachRow rows, with the engine's read statistics. */
  query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>>
  /**
   * Inserts stored rows (rows.ts: JSONCompactEachRow in ROW_COLUMNS order (row-model.ts), or
   * JSONEachRow objects) into a table; a repeated token is a no-op. Default format: JSONEachRow.
   */
  insertJsonRows(table: string, body: Uint8Array, dedupToken: string, format?: RowFormat): Promise<void>
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

export interface LogStoreOptions {
  /** A ClickHouse server URL (http://user:pass@host:8123); absent means embedded chdb. */
  url?: string
  /** Data directory of the embedded engine. */
  path?: string
  database?: string
  /** 'single' (one MergeTree table) or 'cluster' (see schema.ts); default single. */
  layout?: 'single' | 'cluster'
  /** Cluster name (remote_servers) in the cluster layout; default lookout. */
  cluster?: string
  /** Memory ceiling of the embedded engine (engine-settings.ts). */
  engineMemory?: EngineMemoryOptions
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/

export function openLogStore(options: LogStoreOptions): LogStore {
  const database = options.database ?? 'lookout'
  if (!IDENTIFIER.test(database)) throw new InvalidOptionError('database', 'must be a plain identifier')
  let cluster: string | null = null
  if (options.layout === 'cluster') {
    cluster = options.cluster ?? 'lookout'
    if (!IDENTIFIER.test(cluster)) throw new InvalidOptionError('cluster', 'must be a plain identifier')
  }
  if (options.url !== undefined && options.url !== '') return new ServerStore(options.url, database, cluster)
  if (options.path === undefined) throw new InvalidOptionError('path', 'the embedded engine needs a data directory')
  return new ChdbStore(options.path, database, cluster, engineArgs(options.engineMemory))
}

/**
 * Insert settings of the cluster layout: the Distributed table forwards the
 * rows to the shards before the insert returns (never a local spool a node
 * could lose after the loader acknowledged), and each shard commits on a
 * majority of its replicas, so one lost replica loses no acknowledged row and
 * the redelivery checks find the rows on a live replica.
 */
export const CLUSTER_INSERT_SETTINGS = { insert_distributed_sync: 1, insert_quorum: 'auto', insert_quorum_parallel: 1 } as const

function summaryNumbers(summary: Record<string, string | undefined> | undefined): { rowsRead: number; bytesRead: number; elapsedMs: number } {
  return {
    rowsRead: Number(summary?.read_rows ?? 0),
    bytesRead: Number(summary?.read_bytes ?? 0),
    elapsedMs: Number(summary?.elapsed_ns ?? 0) / 1e6,
  }
}

abstract class ClientStore implements LogStore {
  abstract readonly embedded: boolean
  readonly database: string
  readonly cluster: string | null
  protected readonly client: ClickHouseClient

  constructor(client: ClickHouseClient, database: string, cluster: string | null) {
    this.client = client
    this.database = database
    this.cluster = cluster
  }

  /** Settings of an insert into `logs` in this layout. */
  protected insertSettings(dedupToken: string): Record<string, string | number> {
    return this.cluster === null
      ? { insert_deduplication_token: dedupToken }
      : { insert_deduplication_token: dedupToken, ...CLUSTER_INSERT_SETTINGS }
  }

  async command(sql: string, params?: QueryParams): Promise<void> {
    await this.client.command({ query: sql, query_params: params })
  }

  async query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    const rs = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow' })
    const rows = await rs.json<T>()
    const summary = (rs as unknown as { response_headers?: Record<string, string> }).response_headers?.['x-clickhouse-summary']
    const parsed = typeof summary === 'string' ? JSON.parse(summary) as Record<string, string> : undefined
    return { rows, ...summaryNumbers(parsed) }
  }

  abstract insertJsonRows(table: string, body: Uint8Array, dedupToken: string, format?: RowFormat): Promise<void>

  async ping(): Promise<boolean> {
    try {
      const r = await this.client.ping()
      return r.success
    } catch {
      return false
    }
  }

  async close(): Promise<void> {
    await this.client.close()
  }
}

class ServerStore extends ClientStore {
  readonly embedded = false

  constructor(url: string, database: string, cluster: string | null) {
    super(createClient({ url, request_timeout: 60_000, max_open_connections: 8 }), database, cluster)
  }

  async insertJsonRows(table: string, body: Uint8Array, dedupToken: string, format: RowFormat = ROW_FORMATS.objects): Promise<void> {
    await this.client.exec({
      query: `INSERT INTO ${this.database}.${table}${columnList(format)} FORMAT ${format}`,
      values: Readable.from([Buffer.from(body.buffer, body.byteOffset, body.byteLength)]),
      clickhouse_settings: { ...this.insertSettings(dedupToken), async_insert: 0 },
    })
  }
}

class ChdbStore extends ClientStore {
  readonly embedded = true
  readonly #conn: ReturnType<typeof createChdbConnection>
  /** Opened first so that the engine starts with our settings; connections at the same path share that engine. */
  readonly #settings: Session

  constructor(path: string, database: string, cluster: string | null, args: string[]) {
    const settings = new Session(path, { connectionArgs: args })
    let conn: ReturnType<typeof createChdbConnection>
    try {
      conn = createChdbConnection({ path })
    } catch (err) {
      settings.close()
      throw err
    }
    super(createClient({ connection: conn } as unknown as Parameters<typeof createClient>[0]), database, cluster)
    this.#conn = conn
    this.#settings = settings
  }

  override async close(): Promise<void> {
    try {
      await super.close()
    } finally {
      this.#settings.close()
    }
  }

  override async query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    // The embedded connection has no progress summary (its read count is the
    // result's row count), but the JSON format's own statistics are the engine's.
    const rs = await this.client.query({ query: sql, query_params: params, format: 'JSON' })
    const out = await rs.json<T>() as unknown as { data: T[]; statistics?: { rows_read?: number; bytes_read?: number; elapsed?: number } }
    const s = out.statistics
    return { rows: out.data, rowsRead: Number(s?.rows_read ?? 0), bytesRead: Number(s?.bytes_read ?? 0), elapsedMs: Number(s?.elapsed ?? 0) * 1000 }
  }

  async insertJsonRows(table: string, body: Uint8Array, dedupToken: string, format: RowFormat = ROW_FORMATS.objects): Promise<void> {
    // Zero-copy: the engine parses the bytes on its own threads.
    await this.#conn.chdb.rawInsert({
      table: `${this.database}.${table}`,
      format,
      ...(format === ROW_FORMATS.compact ? { columns: ROW_COLUMNS } : {}),
      values: body,
      settings: this.insertSettings(dedupToken),
    })
  }
}

/** The column list an insert of this format names (positional rows need it). */
function columnList(format: RowFormat): string {
  return format === ROW_FORMATS.compact ? ` (${ROW_COLUMNS.join(', ')})` : ''
}
