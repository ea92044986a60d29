// PostgreSQL schema of identity: workspaces, tokens, resources and the server's own secrets.
import type { MigrationSet } from '../../core/index.ts'

export const IDENTITY_MIGRATIONS: MigrationSet = {
  // Recorded as 'api' in schema_migrations since these tables lived in the HTTP edge:
  // the key stays so existing data directories do not apply them twice.
  stage: 'api',
  migrations: [
    {
      version: 1,
      name: 'workspaces, tokens, resources',
      sql: `
        CREATE TABLE workspaces (
          id uuid PRIMARY KEY,
          name text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE tokens (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          name text NOT NULL DEFAULT '',
          kind text NOT NULL DEFAULT 'access',
          secret_hash bytea NOT NULL,
          scopes text[] NOT NULL,
          resource_ids uuid[],
          staff_id integer,
          created_at timestamptz NOT NULL DEFAULT now(),
          revoked_at timestamptz
        );
        CREATE INDEX tokens_workspace ON tokens (workspace_id);
        CREATE TABLE resources (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          external_id text NOT NULL,
          name text NOT NULL,
          kind text NOT NULL,
          status text NOT NULL,
          provider text NOT NULL,
          environment text NOT NULL,
          description text NOT NULL,
          public_url text NOT NULL,
          details jsonb NOT NULL,
          sticker text NOT NULL,
          tags text[] NOT NULL,
          revision integer NOT NULL DEFAULT 1,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          UNIQUE (workspace_id, external_id)
        );
        CREATE INDEX resources_page ON resources (workspace_id, created_at, id);
      `,
    },
    {
      version: 2,
      name: 'token change notifications',
      // Servers keep verified tokens in memory (workspace/identity/verifier.ts); every change
      // to a token row, by any path (a revocation, a workspace's cascade, an
      // operator's SQL), tells every listening server to forget that token.
      sql: `
        CREATE FUNCTION lookout_token_changed() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
          PERFORM pg_notify('lookout_token_changes', OLD.id::text);
          RETURN NULL;
        END $$;
        CREATE TRIGGER tokens_changed AFTER UPDATE OR DELETE ON tokens
          FOR EACH ROW EXECUTE FUNCTION lookout_token_changed();
      `,
    },
    {
      version: 3,
      name: 'shared workspace id',
      // A desktop workspace connected to a portal is presented under the portal's
      // workspace uuid (workspace/identity/shared-ids.ts); the local id stays the key.
      sql: `ALTER TABLE workspaces ADD COLUMN shared_id uuid UNIQUE;`,
    },
  ],
}
