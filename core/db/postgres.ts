// A PostgreSQL server through node-postgres' pool.
import pg from 'pg'
import type { Database, ListenHandlers, QueryOptions, Sql, SqlResult } from './sql.ts'
import { listenOnServer } from './pg-listener.ts'
import { statementName } from './prepared.ts'

/** node-postgres' query config: a named statement when asked for and the text has (or gets) a name. */
function config(text: string, params: unknown[] | undefined, options: QueryOptions | undefined): pg.QueryConfig {
  const name = options?.prepared === true ? statementName(text) : undefined
  return name === undefined ? { text, values: params } : { name, text, values: params }
}

export async function openPostgres(url: string, maxConnections = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: maxConnections })
  // An idle connection the server ends (restart, failover) is dropped from the pool and
  // the next query reconnects; without a listener the 'error' event would end the process.
  pool.on('error', () => undefined)
  await pool.query('SELECT 1')
  // Closing the database ends its listeners' connections too.
  const listeners = new Set<() => Promise<void>>()
  const query = async <T>(text: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<T>> => {
    const r = await pool.query(config(text, params, options))
    return { rows: r.rows as T[], rowCount: r.rowCount ?? r.rows.length }
  }
  return {
    embedded: false,
    query,
    async exec(text: string): Promise<void> {
      await pool.query(text)
    },
    async transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T> {
      const client = await pool.connect()
      const tx: Sql = {
        async exec(text: string): Promise<void> {
          await client.query(text)
        },
        async query<R>(text: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<R>> {
          const r = await client.query(config(text, params, options))
          return { rows: r.rows as R[], rowCount: r.rowCount ?? r.rows.length }
        },
      }
      try {
        await client.query('BEGIN')
        const out = await fn(tx)
        await client.query('COMMIT')
        return out
      } catch (err) {
        await client.query('ROLLBACK').catch(() => undefined)
        throw err
      } finally {
        client.release()
      }
    },
    async close(): Promise<void> {
      for (const stop of [...listeners]) await stop()
      await pool.end()
    },
    async listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
      const stop = await listenOnServer(url, channel, handlers)
      const once = async (): Promise<void> => {
        if (listeners.delete(once)) await stop()
      }
      listeners.add(once)
      return once
    },
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  }
}
