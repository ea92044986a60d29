// A PostgreSQL server through node-postgres' pool.
import pg from 'pg'
import type { Database, Sql, SqlResult } from './sql.ts'

export async function openPostgres(url: string, maxConnections = 10): Promise<Database> {
  const pool = new pg.Pool({ connectionString: url, max: maxConnections })
  // An idle connection the server ends (restart, failover) is dropped from the pool and
  // the next query reconnects; without a listener the 'error' event would end the process.
  pool.on('error', () => undefined)
  await pool.query('SELECT 1')
  const query = async <T>(text: string, params?: unknown[]): Promise<SqlResult<T>> => {
    const r = await pool.query(text, params)
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
        async query<R>(text: string, params?: unknown[]): Promise<SqlResult<R>> {
          const r = await client.query(text, params)
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
    close: () => pool.end(),
    poolStats: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
  }
}
