// A Database view of an open transaction: its own transaction() is a SAVEPOINT,
// released when fn resolves and rolled back to when it throws, so code written
// for one transaction per operation (idempotent creations) can run many
// operations inside one commit while each still fails alone. PGlite pays its
// write-ahead log flush per commit; a batch of creations pays it once.
import type { Database, Sql } from './sql.ts'

let next = 0

export function savepointDatabase(tx: Sql, outer: Database): Database {
  return {
    embedded: outer.embedded,
    query: (text, params, options) => tx.query(text, params, options),
    exec: (text) => tx.exec(text),
    async transaction<T>(fn: (inner: Sql) => Promise<T>): Promise<T> {
      const name = `lookout_sp_${++next}`
      await tx.exec(`SAVEPOINT ${name}`)
      try {
        const out = await fn(tx)
        await tx.exec(`RELEASE SAVEPOINT ${name}`)
        return out
      } catch (err) {
        await tx.exec(`ROLLBACK TO SAVEPOINT ${name}`)
        throw err
      }
    },
    close: () => Promise.reject(new Error('a savepoint view cannot close its database')),
    listen: () => Promise.reject(new Error('a savepoint view cannot listen')),
  }
}
