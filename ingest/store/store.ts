// The log store port: ClickHouse, either in-process (chdb) or a server.
// One SQL dialect for both; only how bytes reach the engine differs.
import { Readable } from 'node:stream'
import { createClient } from '@clickhouse/client'
import { InvalidOptionError } from '../../core/index.ts'
import { ROW_FORMATS, type RowFormat } from '../rows/rows-read.ts'
import { engineArgs, type EngineMemoryOptions } from './engine-settings.ts'
import { ClientStore, columnList } from './client-store.ts'
import { EmbeddedStore } from './embedded-store.ts'
import { rowBodyPieces, type RowBody } from '../rows/row-body.ts'
export { CLUSTER_INSERT_SETTINGS } from './client-store.ts'

export type { LogStore, QueryParams, QueryResult } from './store-port.ts'
import type { LogStore } from './store-port.ts'

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
  /**
   * Embedded engine with an empty data directory: start it at the first log operation
   * instead of at the first call, and keep migrations asked before then for that moment
   * (embedded-store.ts), so a service that has no logs yet does not carry the engine.
   */
  openOnFirstUse?: boolean
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
  return new EmbeddedStore(options.path, database, cluster, engineArgs(options.engineMemory), options.openOnFirstUse === true)
}

class ServerStore extends ClientStore {
  readonly embedded = false

  constructor(url: string, database: string, cluster: string | null) {
    super(createClient({ url, request_timeout: 60_000, max_open_connections: 8 }), database, cluster)
  }

  async insertJsonRows(table: string, body: RowBody, dedupToken: string, format: RowFormat = ROW_FORMATS.objects): Promise<void> {
    const { stream } = await this.client.exec({
      query: `INSERT INTO ${this.database}.${table}${columnList(format)} FORMAT ${format}`,
      values: Readable.from(rowBodyPieces(body)),
      clickhouse_settings: { ...this.insertSettings(dedupToken), async_insert: 0 },
    })
    // The answer has no rows, but it is read to its end: a response left unread holds its socket.
    for await (const _ of stream) void _
  }
}

