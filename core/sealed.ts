// Whether the store holds secrets sealed with a key (core/secret-box.ts):
// SSH private keys always are, webhook signing secrets when a key was set.
// The launcher refuses to invent a new key while such secrets exist.
import type { Sql } from './db/index.ts'

export async function sealedSecretsPresent(db: Sql): Promise<boolean> {
  const r = await db.query<{ present: boolean }>(
    `SELECT EXISTS (SELECT 1 FROM resource_ssh_keys)
         OR EXISTS (SELECT 1 FROM webhook_subscriptions WHERE secret_key_id IS NOT NULL)
         OR EXISTS (SELECT 1 FROM portal_connection) AS present`)
  return r.rows[0]?.present === true
}
