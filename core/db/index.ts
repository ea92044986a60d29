export type { Database, ListenHandlers, QueryOptions, Sql, SqlResult } from './sql.ts'
export { executeText } from './pglite-prepared.ts'
export { migrate } from './migrate.ts'
export type { PgMigration, MigrationSet } from './migrate.ts'
import type { Database } from './sql.ts'
import type { PgliteOptions } from './pglite.ts'

// The engines load with their first store: a decoder worker or the remote
// collector imports core for its plumbing and never opens a database, so it
// need not carry PGlite's wasm and pg (about 20 MiB resident) either.
export async function openPglite(dataDir: string, options?: PgliteOptions): Promise<Database> {
  return (await import('./pglite.ts')).openPglite(dataDir, options)
}

export async function openPostgres(url: string, maxConnections?: number): Promise<Database> {
  return (await import('./postgres.ts')).openPostgres(url, maxConnections)
}
