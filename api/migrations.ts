// PostgreSQL schema of the API stage.
import type { MigrationSet } from '../core/index.ts'
import { COLLECTOR_MIGRATIONS, MONITOR_MIGRATIONS } from '../monitor/index.ts'
import { PROJECT_MIGRATIONS } from '../workspace/index.ts'
import { SERVICES_MIGRATIONS } from '../workspace/index.ts'
import { SSH_MIGRATIONS } from '../workspace/index.ts'
import { USAGE_MIGRATIONS } from '../workspace/index.ts'
import { ALERT_MIGRATIONS } from '../alerting/index.ts'
import { NOTIFICATION_MIGRATIONS } from '../alerting/index.ts'
import { WEBHOOK_MIGRATIONS } from '../alerting/index.ts'
import { DESKTOP_MIGRATIONS } from '../desktop/index.ts'
import { CONSOLE_MIGRATIONS } from '../console/index.ts'
import { PORTAL_MIGRATIONS } from '../desktop/index.ts'
import { QUERY_MIGRATIONS } from '../query/index.ts'


export const API_MIGRATIONS: MigrationSet = {
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
        CREATE TABLE server_secrets (
          name text PRIMARY KEY,
          value bytea NOT NULL
        );
      `,
    },
    {
      version: 2,
      name: 'token change notifications',
      // Servers keep verified tokens in memory (auth/verifier.ts); every change
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
  ],
}

/**
 * Every stage's PostgreSQL migrations, in the order they are applied. Each area
 * adds its set here (a distinct stage name keeps their version numbers apart).
 */
export const PG_MIGRATIONS: readonly MigrationSet[] = [
  API_MIGRATIONS,
  PROJECT_MIGRATIONS,
  SERVICES_MIGRATIONS,
  SSH_MIGRATIONS,
  USAGE_MIGRATIONS,
  MONITOR_MIGRATIONS,
  COLLECTOR_MIGRATIONS,
  ALERT_MIGRATIONS, NOTIFICATION_MIGRATIONS, WEBHOOK_MIGRATIONS,
  DESKTOP_MIGRATIONS,
  CONSOLE_MIGRATIONS,
  PORTAL_MIGRATIONS,
  QUERY_MIGRATIONS,
]
