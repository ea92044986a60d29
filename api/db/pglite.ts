// PGlite: PostgreSQL compiled to WebAssembly, in this process, on a data directory.
import { PGlite } from '@electric-sql/pglite'
import type { Database, ListenHandlers, Sql, SqlResult } from './sql.ts'

function wrap(q: { query: PGlite['query']; exec: PGlite['exec'] }): Sql {
  return {
    async exec(text: string): Promise<void> {
      await q.exec(text)
    },
    async query<T>(text: string, params?: unknown[]): Promise<SqlResult<T>> {
      const r = await q.query<T>(text, params as unknown[])
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length }
    },
  }
}

export async function openPglite(dataDir: string): Promise<Database> {
  const db = await PGlite.create(dataDir)
  const base = wrap(db)
  return {
    embedded: true,
    query: base.query,
    exec: base.exec,
    transaction: <T>(fn: (tx: Sql) => Promise<T>) => db.transaction((tx) => fn(wrap(tx))),
    close: () => db.close(),
    // In this process: a notification cannot be lost between the engine and us.
    async listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
      const stop = await db.listen(channel, (payload) => handlers.onPayload(payload))
      handlers.onListening()
      return () => stop()
    },
  }
}
