// What both ClickHouse adapters share: the official client's command and query
// calls, the insert settings of each layout, and the column list of a positional insert.
import type { ClickHouseClient } from '@clickhouse/client'
import { LOG_COLUMNS, ROW_COLUMNS, type LogColumnName } from '../row-model.ts'
import { ROW_FORMATS, type RowFormat } from '../rows/rows-read.ts'
import type { LogStore, QueryParams, QueryResult } from './store-port.ts'
import type { RowBody } from '../rows/row-body.ts'

/**
 * Insert settings of the cluster layout: the Distributed table forwards the
 * rows to the shards before the insert returns (never a local spool a node
 * could lose after the loader acknowledged), and each shard commits on a
 * majority of its replicas, so one lost replica loses no acknowledged row and
 * the redelivery checks find the rows on a live replica.
 */
export const CLUSTER_INSERT_SETTINGS = { insert_distributed_sync: 1, insert_quorum: 'auto', insert_quorum_parallel: 1 } as const

/**
 * Settings of every read. A TTL drop of an expired part can leave an empty wide
 * part until the engine's cleanup removes it, and ClickHouse 26.7 then fails a
 * map key read turned into a subcolumn read (`attributes['k']`) on the whole
 * table (CANNOT_READ_ALL_DATA, "prefix of column attributes.key_…"). Reading
 * the map column itself costs about the same here (bench/search README,
 * 2026-11-27 22:00; test/query/retention-horizon.test.ts).
 */
export const READ_SETTINGS = { optimize_functions_to_subcolumns: 0 } as const

function summaryNumbers(summary: Record<string, string | undefined> | undefined): { rowsRead: number; bytesRead: number; elapsedMs: number } {
  return {
    rowsRead: Number(summary?.read_rows ?? 0),
    bytesRead: Number(summary?.read_bytes ?? 0),
    elapsedMs: Number(summary?.elapsed_ns ?? 0) / 1e6,
  }
}

export abstract class ClientStore implements LogStore {
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
    const rs = await this.client.query({ query: sql, query_params: params, format: 'JSONEachRow', clickhouse_settings: READ_SETTINGS })
    const rows = await rs.json<T>()
    const summary = (rs as unknown as { response_headers?: Record<string, string> }).response_headers?.['x-clickhouse-summary']
    const parsed = typeof summary === 'string' ? JSON.parse(summary) as Record<string, string> : undefined
    return { rows, ...summaryNumbers(parsed) }
  }

  /** A ClickHouse server runs each request beside the others already. */
  async queryBeside<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    return this.query<T>(sql, params)
  }

  /** Inserts stored rows of any ROW_FORMATS (see LogStore). */
  abstract insertJsonRows(table: string, body: RowBody, dedupToken: string, format?: RowFormat): Promise<void>

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

const TABLE_ORDER: readonly LogColumnName[] = LOG_COLUMNS.map((c) => c.name)

/** The columns an insert of this format names, in the order its rows hold them; null for rows that name their own. */
export function insertColumns(format: RowFormat): readonly LogColumnName[] | null {
  return format === ROW_FORMATS.compact ? ROW_COLUMNS : format === ROW_FORMATS.native ? TABLE_ORDER : null
}

/** The column list an insert of this format names (positional rows need it). */
export function columnList(format: RowFormat): string {
  const columns = insertColumns(format)
  return columns === null ? '' : ` (${columns.join(', ')})`
}
