// Versioned PostgreSQL migrations, one list per stage, applied once each under
// an advisory lock so several processes starting together do not race.
import type { Database } from './sql.ts'

export interface PgMigration {
  version: number
  name: string
  sql: string
}

export interface MigrationSet {
  stage: string
  migrations: readonly PgMigration[]
}

const LOCK_KEY = 4_242_001

export async function migrate(db: Database, sets: readonly MigrationSet[]): Promise<number> {
  await db.query(`CREATE TABLE IF NOT EXISTS schema_migrations (
    stage text NOT NULL, version int NOT NULL, name text NOT NULL,
    applied_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (stage, version))`)
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [LOCK_KEY])
    const done = await tx.query<{ stage: string; version: number }>('SELECT stage, version FROM schema_migrations')
    const seen = new Set(done.rows.map((r) => `${r.stage}:${r.version}`))
    let applied = 0
    for (const set of sets) {
      for (const m of set.migrations) {
        if (seen.has(`${set.stage}:${m.version}`)) continue
        await tx.exec(m.sql)
        await tx.query('INSERT INTO schema_migrations (stage, version, name) VALUES ($1, $2, $3)', [set.stage, m.version, m.name])
        applied++
      }
    }
    return applied
  })
}
