// PostgreSQL schema of the monitor stage (assembled into PG_MIGRATIONS by deploy/migrations.ts).
import type { MigrationSet } from '../core/index.ts'

export const MONITOR_MIGRATIONS: MigrationSet = {
  stage: 'monitor',
  migrations: [
    {
      version: 1,
      name: 'checks, results, transitions, incidents, outbox, leases, sources, subscriptions',
      sql: `
        CREATE SEQUENCE monitor_change_seq;
        CREATE TABLE monitor_checks (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          resource_id uuid NOT NULL REFERENCES resources(id),
          name text NOT NULL,
          kind text NOT NULL,
          location text NOT NULL,
          configuration jsonb NOT NULL,
          credential jsonb,
          source_id uuid,
          enabled boolean NOT NULL DEFAULT true,
          required boolean NOT NULL DEFAULT true,
          maintenance_until timestamptz,
          interval_ms integer NOT NULL,
          timeout_ms integer NOT NULL,
          grace_ms integer NOT NULL DEFAULT 0,
          revision integer NOT NULL DEFAULT 1,
          change_seq bigint NOT NULL DEFAULT nextval('monitor_change_seq'),
          run_requested_at timestamptz,
          active_since timestamptz NOT NULL,
          health text NOT NULL DEFAULT 'unknown',
          health_since timestamptz NOT NULL,
          candidate text,
          streak integer NOT NULL DEFAULT 0,
          last_status text,
          last_code text,
          last_reason text,
          last_latency_ms double precision,
          last_details jsonb,
          last_observed_at timestamptz,
          last_beat_at timestamptz,
          open_incident_id uuid,
          incident_notified boolean NOT NULL DEFAULT false,
          lease_owner text,
          lease_epoch integer NOT NULL DEFAULT 0,
          created_at timestamptz NOT NULL,
          updated_at timestamptz NOT NULL
        );
        CREATE INDEX monitor_checks_resource ON monitor_checks (workspace_id, resource_id, created_at, id);
        CREATE INDEX monitor_checks_change ON monitor_checks (lease_owner, change_seq);

        CREATE TABLE monitor_results (
          check_id uuid NOT NULL,
          observed_at timestamptz NOT NULL,
          revision integer NOT NULL,
          status text NOT NULL,
          code text NOT NULL,
          reason text NOT NULL,
          latency_ms double precision,
          details jsonb,
          worker text NOT NULL
        );
        CREATE INDEX monitor_results_check ON monitor_results (check_id, observed_at);
        CREATE INDEX monitor_results_age ON monitor_results (observed_at);

        CREATE TABLE monitor_transitions (
          id bigserial PRIMARY KEY,
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL,
          check_id uuid NOT NULL,
          from_health text NOT NULL,
          to_health text NOT NULL,
          reason text NOT NULL,
          at timestamptz NOT NULL
        );
        CREATE INDEX monitor_transitions_resource ON monitor_transitions (workspace_id, resource_id, id);

        CREATE TABLE monitor_incidents (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL,
          check_id uuid NOT NULL,
          opened_at timestamptz NOT NULL,
          open_reason text NOT NULL,
          closed_at timestamptz,
          close_reason text,
          notified_open boolean NOT NULL,
          notified_close boolean NOT NULL DEFAULT false,
          seq bigserial
        );
        CREATE UNIQUE INDEX monitor_incidents_one_open ON monitor_incidents (check_id) WHERE closed_at IS NULL;
        CREATE INDEX monitor_incidents_resource ON monitor_incidents (workspace_id, resource_id, seq);

        CREATE TABLE monitor_outbox (
          id bigserial PRIMARY KEY,
          event_id uuid NOT NULL UNIQUE,
          type text NOT NULL,
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL,
          check_id uuid NOT NULL,
          incident_id uuid NOT NULL,
          occurred_at timestamptz NOT NULL,
          payload jsonb NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          claimed_by text,
          claimed_until timestamptz,
          processed_at timestamptz,
          UNIQUE (incident_id, type)
        );
        CREATE INDEX monitor_outbox_pending ON monitor_outbox (id) WHERE processed_at IS NULL;

        -- One lease per monitor process; a check is held by the process named in
        -- lease_owner for as long as that process's lease is unexpired.
        CREATE TABLE monitor_workers (
          id text PRIMARY KEY,
          started_at timestamptz NOT NULL,
          lease_until timestamptz NOT NULL
        );

        CREATE TABLE monitor_sources (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL,
          name text NOT NULL,
          kind text NOT NULL,
          token_id uuid NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now(),
          revoked_at timestamptz
        );
        CREATE INDEX monitor_sources_resource ON monitor_sources (workspace_id, resource_id, created_at, id);
      `,
    },
    {
      version: 2,
      name: 'hourly uptime counts per check',
      sql: `
        CREATE TABLE monitor_uptime_hours (
          check_id uuid NOT NULL,
          hour timestamptz NOT NULL,
          up integer NOT NULL DEFAULT 0,
          down integer NOT NULL DEFAULT 0,
          PRIMARY KEY (check_id, hour)
        );
        CREATE INDEX monitor_uptime_hours_age ON monitor_uptime_hours (hour);
      `,
    },
    {
      version: 3,
      name: 'a log check incident keeps the evidence it opened with',
      // The incident page shows the lines of the observation that opened it; result rows are pruned
      // after a day and a confirmed incident's later observations carry no lines.
      sql: 'ALTER TABLE monitor_incidents ADD COLUMN open_log jsonb;',
    },
  ],
}
