// PostgreSQL schema of resource SSH keys: metadata in clear, the private key
// and passphrase only as an AES-256-GCM box.
import type { MigrationSet } from '../../core/index.ts'

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
    {
      version: 2,
      name: 'managed runtime: pinned host keys and install status',
      // The monitor role is the managed runtime: it pins the SSH server's host key on first use (or
      // checks the fingerprint the user gave) and reports per key revision whether it could use the key.
      sql: `
        ALTER TABLE resource_ssh_keys
          ADD COLUMN host_keys text[] NOT NULL DEFAULT '{}',
          ADD COLUMN expected_fingerprint text,
          ADD COLUMN pinned_at timestamptz,
          ADD COLUMN sync_at timestamptz;
        UPDATE resource_ssh_keys SET sync_status = 'pending',
          sync_detail = 'waiting for the managed runtime (the monitor role) to connect with this key';
        CREATE INDEX resource_ssh_keys_pending ON resource_ssh_keys (sync_status) WHERE sync_status <> 'installed';
      `,
    },
  ],
}
