// PostgreSQL schema of alert routing (alerting/alerts/README.md).
import type { MigrationSet } from '../../core/index.ts'

export const ALERT_MIGRATIONS: MigrationSet = {
  stage: 'alerts',
  migrations: [
    {
      version: 1,
      name: 'destinations, routes, policies, incident alert state, deliveries, attempts, operations',
      sql: `
        CREATE TABLE alert_destinations (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          owner text NOT NULL,
          shared boolean NOT NULL DEFAULT false,
          label text NOT NULL DEFAULT '',
          channel text NOT NULL,
          address text NOT NULL,
          consent_at timestamptz,
          verified_at timestamptz,
          paused boolean NOT NULL DEFAULT false,
          removed_at timestamptz,
          code_hash bytea,
          code_expires_at timestamptz,
          code_attempts integer NOT NULL DEFAULT 0,
          codes_window_start timestamptz,
          codes_sent integer NOT NULL DEFAULT 0,
          revision integer NOT NULL DEFAULT 1,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX alert_destinations_ws ON alert_destinations (workspace_id, created_at, id) WHERE removed_at IS NULL;

        CREATE TABLE alert_routes (
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL REFERENCES resources(id),
          destination_id uuid NOT NULL REFERENCES alert_destinations(id),
          paused boolean NOT NULL DEFAULT false,
          revision integer NOT NULL DEFAULT 1,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (resource_id, destination_id)
        );
        CREATE INDEX alert_routes_destination ON alert_routes (destination_id);

        CREATE TABLE alert_policies (
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL REFERENCES resources(id),
          enabled boolean NOT NULL DEFAULT true,
          configuration jsonb NOT NULL,
          revision integer NOT NULL DEFAULT 1,
          updated_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (resource_id)
        );

        -- Per incident: acknowledgement and the repeat / escalation clock.
        CREATE TABLE alert_incidents (
          incident_id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL,
          severity text NOT NULL DEFAULT 'critical',
          -- The opening outbox payload, for reminder and escalation messages.
          payload jsonb,
          opened_at timestamptz,
          closed_at timestamptz,
          acknowledged_at timestamptz,
          acknowledged_by text,
          repeats integer NOT NULL DEFAULT 0,
          next_repeat_at timestamptz,
          escalation_level integer NOT NULL DEFAULT 0,
          next_escalation_at timestamptz
        );
        CREATE INDEX alert_incidents_due_repeat ON alert_incidents (next_repeat_at) WHERE next_repeat_at IS NOT NULL;
        CREATE INDEX alert_incidents_due_escalation ON alert_incidents (next_escalation_at) WHERE next_escalation_at IS NOT NULL;

        CREATE TABLE alert_deliveries (
          id uuid PRIMARY KEY,
          seq bigserial,
          workspace_id uuid NOT NULL,
          resource_id uuid,
          destination_id uuid NOT NULL,
          incident_id uuid,
          event_type text NOT NULL,
          reason text NOT NULL,
          dedupe_key text NOT NULL UNIQUE,
          channel text NOT NULL,
          message jsonb NOT NULL,
          state text NOT NULL DEFAULT 'queued',
          attempts integer NOT NULL DEFAULT 0,
          rounds integer NOT NULL DEFAULT 0,
          next_attempt_at timestamptz NOT NULL,
          claimed_by text,
          claimed_until timestamptz,
          last_attempt_at timestamptz,
          last_status integer,
          last_error text,
          delivered_at timestamptz,
          created_at timestamptz NOT NULL
        );
        CREATE INDEX alert_deliveries_due ON alert_deliveries (next_attempt_at) WHERE state = 'queued';
        CREATE INDEX alert_deliveries_resource ON alert_deliveries (workspace_id, resource_id, seq);

        CREATE TABLE alert_delivery_attempts (
          delivery_id uuid NOT NULL REFERENCES alert_deliveries(id) ON DELETE CASCADE,
          attempt integer NOT NULL,
          at timestamptz NOT NULL,
          outcome text NOT NULL,
          status integer,
          error text,
          duration_ms double precision,
          PRIMARY KEY (delivery_id, attempt)
        );

        CREATE TABLE alert_operations (
          workspace_id uuid NOT NULL,
          operation_id uuid NOT NULL,
          resource_id uuid NOT NULL,
          operation text NOT NULL,
          request_hash text NOT NULL,
          status integer NOT NULL DEFAULT 200,
          response jsonb,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (workspace_id, operation_id)
        );
        CREATE INDEX alert_operations_age ON alert_operations (created_at);
      `,
    },
    {
      version: 2,
      name: 'acknowledge links of alert messages',
      sql: `
        CREATE TABLE alert_ack_links (
          id text PRIMARY KEY,
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL,
          incident_id uuid NOT NULL,
          destination_id uuid NOT NULL,
          acknowledger text NOT NULL,
          created_at timestamptz NOT NULL,
          used_at timestamptz,
          UNIQUE (incident_id, destination_id)
        );
        CREATE INDEX alert_ack_links_age ON alert_ack_links (created_at);
      `,
    },
  ],
}
