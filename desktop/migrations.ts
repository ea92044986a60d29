// PostgreSQL schema of the desktop service (desktop/README.md): its
// settings (one row) and the bounded queue of log batches to forward.
import type { MigrationSet } from '../core/index.ts'

export const DESKTOP_MIGRATIONS: MigrationSet = {
  stage: 'desktop',
  migrations: [
    {
      version: 1,
      name: 'desktop settings, forwarding queue',
      sql: `
        CREATE TABLE desktop_settings (
          id integer PRIMARY KEY CHECK (id = 1),
          revision integer NOT NULL DEFAULT 1,
          loopback_enabled boolean NOT NULL DEFAULT false,
          loopback_port integer NOT NULL DEFAULT 47800,
          retention_days integer NOT NULL DEFAULT 7,
          retention_bytes bigint NOT NULL DEFAULT 1073741824,
          forward_enabled boolean NOT NULL DEFAULT false,
          forward_url text NOT NULL DEFAULT '',
          forward_workspace_id uuid,
          forward_token text NOT NULL DEFAULT '',
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        INSERT INTO desktop_settings (id) VALUES (1);
        CREATE TABLE desktop_forward_queue (
          id bigserial PRIMARY KEY,
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL,
          events integer NOT NULL,
          bytes integer NOT NULL,
          rows bytea NOT NULL,
          attempts integer NOT NULL DEFAULT 0,
          next_attempt_at timestamptz NOT NULL DEFAULT now(),
          last_error text,
          enqueued_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE desktop_forward_state (
          id integer PRIMARY KEY CHECK (id = 1),
          queued_bytes bigint NOT NULL DEFAULT 0,
          queued_batches integer NOT NULL DEFAULT 0,
          dropped_batches bigint NOT NULL DEFAULT 0,
          dropped_events bigint NOT NULL DEFAULT 0,
          forwarded_batches bigint NOT NULL DEFAULT 0,
          forwarded_events bigint NOT NULL DEFAULT 0,
          rejected_batches bigint NOT NULL DEFAULT 0,
          rejected_events bigint NOT NULL DEFAULT 0,
          last_error text,
          last_error_at timestamptz,
          last_success_at timestamptz
        );
        INSERT INTO desktop_forward_state (id) VALUES (1);
      `,
    },
  ],
}
