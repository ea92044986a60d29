// Per-deployment secrets kept in PostgreSQL (the cursor key, the installation's
// instance id): core owns the table, so every stage reaches it through these.
import { randomBytes } from 'node:crypto'
import type { MigrationSet, Sql } from './db/index.ts'

export const SERVER_SECRET_MIGRATIONS: MigrationSet = {
  stage: 'core',
  migrations: [{
    version: 1,
    name: 'server secrets',
    // IF NOT EXISTS: data directories from before kept this table in the identity set.
    sql: 'CREATE TABLE IF NOT EXISTS server_secrets (name text PRIMARY KEY, value bytea NOT NULL);',
  }],
}

/** The secret called `name`, created on first use. */
export async function serverSecret(db: Sql, name: string): Promise<Buffer> {
  await db.query('INSERT INTO server_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, randomBytes(32)])
  const r = await db.query<{ value: Uint8Array }>('SELECT value FROM server_secrets WHERE name = $1', [name])
  return Buffer.from((r.rows[0] as { value: Uint8Array }).value)
}

/** Replaces the secret called `name` with a new random one (a restore's fresh source identity). */
export async function rotateServerSecret(db: Sql, name: string): Promise<void> {
  await db.query('UPDATE server_secrets SET value = $1 WHERE name = $2', [randomBytes(32), name])
}
