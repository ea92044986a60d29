// PostgreSQL schema of the local notification inbox (alerting/notifications/README.md).
import type { MigrationSet } from '../../core/index.ts'

export const NOTIFICATION_MIGRATIONS: MigrationSet = {
  stage: 'notifications',
  migrations: [
    {
      version: 1,
      name: 'notifications, toast claims, settings',
      sql: `
        CREATE TABLE notifications (
          id uuid PRIMARY KEY,
          seq bigserial,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          source_event_id uuid UNIQUE,
          kind text NOT NULL,
          severity text NOT NULL,
          resource_id uuid,
          incident_id uuid,
          title text NOT NULL,
          body text NOT NULL,
          read_at timestamptz,
          archived_at timestamptz,
          toast_claimed_at timestamptz,
          toast_state text,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX notifications_inbox ON notifications (workspace_id, seq DESC);
        CREATE INDEX notifications_toast ON notifications (seq) WHERE toast_claimed_at IS NULL;
        CREATE INDEX notifications_age ON notifications (created_at);

        CREATE TABLE notification_settings (
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          key text NOT NULL,
          value jsonb NOT NULL,
          updated_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (workspace_id, key)
        );
      `,
    },
    {
      version: 2,
      name: 'per-reader read marks of the cloud inbox',
      sql: `
        CREATE TABLE notification_reads (
          notification_id uuid NOT NULL REFERENCES notifications(id) ON DELETE CASCADE,
          reader text NOT NULL,
          read_at timestamptz NOT NULL,
          PRIMARY KEY (notification_id, reader)
        );
      `,
    },
    {
      version: 3,
      name: 'source of an inbox entry (local or a cached portal entry), portal incident state',
      // Made by the portal's migration 2 before version 3 existed: a data directory that ran it finds nothing to add.
      sql: `
        ALTER TABLE notifications ADD COLUMN IF NOT EXISTS source text NOT NULL DEFAULT 'local';
        ALTER TABLE notifications ADD COLUMN IF NOT EXISTS portal_incident_state text;
      `,
    },
  ],
}
