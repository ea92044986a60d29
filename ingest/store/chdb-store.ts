// The embedded engine (chdb). Loaded on first use by embedded-store.ts: importing
// chdb maps and initialises libchdb (~150 MiB resident before any query).
import { createClient } from '@clickhouse/client'
import { createChdbConnection } from 'chdb/connection'
import { Session } from 'chdb'
import { join } from 'node:path'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { ROW_FORMATS, type RowFormat } from '../rows/rows-read.ts'
import { ClientStore, READ_SETTINGS, columnList } from './client-store.ts'
import { InsertSpool, sqlString } from './insert-spool.ts'
import { inlineParams } from './inline-params.ts'
import type { RowBody } from '../rows/row-body.ts'
import type { QueryParams, QueryResult } from './store.ts'

/** The spool's folder in the engine's data directory. */
const SPOOL_DIR = 'insert-spool'

/** How every result of the JSON format begins (a string value never holds a raw newline or tab). */
const JSON_RESULT_START = '{\n\t"meta"'

/**
 * The result in `text`, without what a failed query left in front of it. libchdb
 * (26.7.3, chdb 3.4.0) keeps the partial output of a query that failed while it
 * ran and hands it out ahead of the connection's next result, so one failed
 * search would otherwise fail the next, unrelated query (test/ingest/chdb-failed-query.test.ts).
 */
export function lastJsonDocument(text: string): string {
  const at = text.lastIndexOf(JSON_RESULT_START)
  return at > 0 ? text.slice(at) : text
}

/**
 * The spool in the data directory; where the engine would read a pattern
 * character in that path as a glob, a folder of the store's own in the
 * temporary folder (libchdb's in-memory insert takes no Native rows).
 */
function openSpool(path: string): { spool: InsertSpool; privateDir: string | null } {
  const inData = InsertSpool.open(join(path, SPOOL_DIR))
  if (inData !== null) return { spool: inData, privateDir: null }
  const privateDir = mkdtempSync(join(tmpdir(), 'lookout-insert-spool-'))
  const spool = InsertSpool.open(privateDir)
  if (spool !== null) return { spool, privateDir }
  rmSync(privateDir, { recursive: true, force: true })
  throw new Error(`no insert spool: both ${path} and ${tmpdir()} hold a pattern character (*?{})`)
}

type Client = ReturnType<typeof createClient>

function clientOf(conn: ReturnType<typeof createChdbConnection>): Client {
  return createClient({ connection: conn } as unknown as Parameters<typeof createClient>[0])
}

/**
 * One statement's rows. The embedded connection has no progress summary (its read
 * count is the result's row count), but the JSON format's own statistics are the engine's.
 */
async function read<T>(client: Client, sql: string, params: QueryParams | undefined): Promise<QueryResult<T>> {
  const rs = await client.query({ query: sql, query_params: params, format: 'JSON', clickhouse_settings: READ_SETTINGS })
  const out = JSON.parse(lastJsonDocument(await rs.text())) as { data: T[]; statistics?: { rows_read?: number; bytes_read?: number; elapsed?: number } }
  const s = out.statistics
  return { rows: out.data, rowsRead: Number(s?.rows_read ?? 0), bytesRead: Number(s?.bytes_read ?? 0), elapsedMs: Number(s?.elapsed ?? 0) * 1000 }
}

export class ChdbStore extends ClientStore {
  readonly embedded = true
  readonly #conn: ReturnType<typeof createChdbConnection>
  /**
   * A second connection for statements beside another: libchdb runs one statement
   * at a time per connection, and chdb's binding one bound statement at a time per
   * process, so these go here without bound parameters (queryBeside).
   */
  readonly #beside: Client
  /** A third for inserts: on the query connection a search waited for the insert before it (400 ms p50 under a steady load). */
  readonly #inserts: Client
  /** Opened first so that the engine starts with our settings; connections at the same path share that engine. */
  readonly #settings: Session
  /** Where rows wait for the engine to read them (insert-spool.ts). */
  readonly #spool: InsertSpool
  /** A spool folder of this store's own in the temporary folder (removed at close), when the data directory cannot hold one. */
  readonly #privateSpool: string | null

  constructor(path: string, database: string, cluster: string | null, args: string[]) {
    const spool = openSpool(path)
    const settings = new Session(path, { connectionArgs: args })
    let conn: ReturnType<typeof createChdbConnection>
    let beside: ReturnType<typeof createChdbConnection>
    let inserts: ReturnType<typeof createChdbConnection>
    try {
      conn = createChdbConnection({ path })
      beside = createChdbConnection({ path })
      inserts = createChdbConnection({ path })
    } catch (err) {
      settings.close()
      throw err
    }
    super(clientOf(conn), database, cluster)
    this.#conn = conn
    this.#beside = clientOf(beside)
    this.#inserts = clientOf(inserts)
    this.#settings = settings
    this.#spool = spool.spool
    this.#privateSpool = spool.privateDir
  }

  override async close(): Promise<void> {
    try {
      await super.close()
      await this.#beside.close()
      await this.#inserts.close()
    } finally {
      this.#settings.close()
      if (this.#privateSpool !== null) rmSync(this.#privateSpool, { recursive: true, force: true })
    }
  }

  override async query<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    return read<T>(this.client, sql, params)
  }

  /** On the second connection, the parameters written into the text (inline-params.ts): it runs beside a bound statement. */
  override async queryBeside<T>(sql: string, params?: QueryParams): Promise<QueryResult<T>> {
    return read<T>(this.#beside, inlineParams(sql, params), undefined)
  }

  async insertJsonRows(table: string, body: RowBody, dedupToken: string, format: RowFormat = ROW_FORMATS.objects): Promise<void> {
    return this.#insertThroughFile(this.#spool, table, body, dedupToken, format)
  }

  async #insertThroughFile(spool: InsertSpool, table: string, body: RowBody, dedupToken: string, format: RowFormat): Promise<void> {
    const path = await spool.write(body)
    try {
      // The file takes the columns' types from the table (use_structure_from_insertion_table_in_table_functions).
      const settings = Object.entries(this.insertSettings(dedupToken)).map(([k, v]) => `${k} = ${typeof v === 'number' ? v : `'${sqlString(v)}'`}`).join(', ')
      await this.#inserts.command({ query: `INSERT INTO ${this.database}.${table}${columnList(format)} SELECT * FROM file('${sqlString(path)}', ${format}) SETTINGS ${settings}` })
    } finally {
      await spool.remove(path)
    }
  }
}
