// PostgreSQL schema of request recording: one row per request (metadata only)
// and per-day totals per key.
import type { MigrationSet } from '../../core/index.ts'

export const USAGE_MIGRATIONS: MigrationSet = {
  stage: 'usage',
  migrations: [
    {
      version: 1,
      name: 'api requests and daily totals',
      sql: `
        CREATE TABLE api_requests (
          id bigserial PRIMARY KEY,
          at timestamptz NOT NULL,
          workspace_id uuid,
          key_id text NOT NULL,
          request_id text NOT NULL,
          method text NOT NULL,
          route text NOT NULL,
          status integer NOT NULL,
          duration_ms real NOT NULL
        );
        CREATE INDEX api_requests_page ON api_requests (workspace_id, at DESC, id DESC);
        CREATE INDEX api_requests_at ON api_requests (at);
        CREATE TABLE api_usage_daily (
          workspace_id uuid NOT NULL,
          day date NOT NULL,
          key_id text NOT NULL,
          requests bigint NOT NULL,
          client_errors bigint NOT NULL,
          server_errors bigint NOT NULL,
          PRIMARY KEY (workspace_id, day, key_id)
        );
      `,
    },
  ],
}
