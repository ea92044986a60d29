// PostgreSQL schema for remote collectors, a migration set of its own (stage
// 'monitor-collectors') so its versions never collide with the monitor stage's.
import type { MigrationSet } from '../../core/index.ts'

export const COLLECTOR_MIGRATIONS: MigrationSet = {
  stage: 'monitor-collectors',
  migrations: [
    {
      version: 1,
      name: 'collector contact, offline incidents, observation ledger',
      sql: `
        ALTER TABLE monitor_sources ADD COLUMN last_contact_at timestamptz;
        ALTER TABLE monitor_sources ADD COLUMN version text;
        ALTER TABLE monitor_sources ADD COLUMN address text;
        ALTER TABLE monitor_sources ADD COLUMN offline_since timestamptz;
        CREATE INDEX monitor_sources_token ON monitor_sources (token_id);

        -- An incident is about a check (kind 'check') or about a source that went
        -- silent (kind 'collector_offline', check_id null): at most one open per source.
        ALTER TABLE monitor_incidents ADD COLUMN kind text NOT NULL DEFAULT 'check';
        ALTER TABLE monitor_incidents ADD COLUMN source_id uuid;
        ALTER TABLE monitor_incidents ALTER COLUMN check_id DROP NOT NULL;
        CREATE UNIQUE INDEX monitor_incidents_one_open_source ON monitor_incidents (source_id)
          WHERE closed_at IS NULL AND kind = 'collector_offline';

        CREATE INDEX monitor_checks_source ON monitor_checks (source_id) WHERE location = 'collector';

        -- Every observation id a collector sent and the server judged (accepted or
        -- fenced off): a resend is answered as a duplicate and changes nothing.
        CREATE TABLE monitor_collector_observations (
          id uuid PRIMARY KEY,
          source_id uuid NOT NULL,
          check_id uuid NOT NULL,
          outcome text NOT NULL,
          received_at timestamptz NOT NULL
        );
        CREATE INDEX monitor_collector_observations_age ON monitor_collector_observations (received_at);
      `,
    },
    {
      version: 2,
      name: 'outbox rows for collector offline incidents',
      // Alert routing sends a silent collector as it sends a failing check: its outbox rows have no check.
      sql: `ALTER TABLE monitor_outbox ALTER COLUMN check_id DROP NOT NULL;`,
    },
  ],
}
