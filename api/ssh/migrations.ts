// PostgreSQL schema of resource SSH keys: metadata in clear, the private key
// and passphrase only as an AES-256-GCM box.
import type { MigrationSet } from '../db/index.ts'

export const SSH_MIGRATIONS: MigrationSet = {
  stage: 'ssh',
  migrations: [
    {
      version: 1,
      name: 'resource ssh keys',
      sql: `
        CREATE TABLE resource_ssh_keys (
          resource_id uuid PRIMARY KEY REFERENCES resources(id),
          workspace_id uuid NOT NULL,
          alias text NOT NULL,
          host text NOT NULL,
          port integer NOT NULL,
          username text NOT NULL,
          key_type text NOT NULL,
          key_bits integer NOT NULL,
          fingerprint text NOT NULL,
          sealed bytea NOT NULL,
          sealed_with text NOT NULL,
          sync_status text NOT NULL,
          sync_detail text NOT NULL,
          revision integer NOT NULL DEFAULT 1,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE UNIQUE INDEX resource_ssh_keys_alias ON resource_ssh_keys (workspace_id, alias);
      `,
    },
  ],
}
