// PostgreSQL schema of the assignment webhooks (alerting/webhooks/README.md).
import type { MigrationSet } from '../../core/index.ts'

export const WEBHOOK_MIGRATIONS: MigrationSet = {
  stage: 'webhooks',
  migrations: [
    {
      version: 1,
      name: 'subscriptions, deliveries, attempts',
      sql: `
        CREATE TABLE webhook_subscriptions (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          url text NOT NULL,
          description text NOT NULL DEFAULT '',
          board_ids uuid[],
          assignee_ids integer[],
          events text[] NOT NULL,
          enabled boolean NOT NULL DEFAULT false,
          generation integer NOT NULL DEFAULT 1,
          secret bytea NOT NULL,
          secret_key_id text,
          secret_rotated_at timestamptz,
          enabled_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX webhook_subscriptions_ws ON webhook_subscriptions (workspace_id, created_at, id);

        CREATE TABLE webhook_deliveries (
          id uuid PRIMARY KEY,
          seq bigserial,
          workspace_id uuid NOT NULL,
          subscription_id uuid NOT NULL REFERENCES webhook_subscriptions(id) ON DELETE CASCADE,
          generation integer NOT NULL,
          event_id uuid NOT NULL,
          event_type text NOT NULL,
          occurred_at timestamptz NOT NULL,
          task_id uuid,
          board_id uuid,
          task_revision integer,
          previous_assignee integer,
          assignee integer,
          state text NOT NULL DEFAULT 'queued',
          attempts integer NOT NULL DEFAULT 0,
          next_attempt_at timestamptz NOT NULL,
          window_started_at timestamptz,
          claimed_by text,
          claimed_until timestamptz,
          last_attempt_at timestamptz,
          last_status integer,
          last_error text,
          delivered_at timestamptz,
          created_at timestamptz NOT NULL,
          UNIQUE (subscription_id, event_id)
        );
        CREATE INDEX webhook_deliveries_due ON webhook_deliveries (next_attempt_at) WHERE state = 'queued';
        CREATE INDEX webhook_deliveries_subscription ON webhook_deliveries (subscription_id, seq);
        CREATE INDEX webhook_deliveries_age ON webhook_deliveries (created_at);

        CREATE TABLE webhook_attempts (
          delivery_id uuid NOT NULL REFERENCES webhook_deliveries(id) ON DELETE CASCADE,
          attempt integer NOT NULL,
          at timestamptz NOT NULL,
          outcome text NOT NULL,
          status integer,
          error text,
          duration_ms double precision,
          retry_after_ms integer,
          PRIMARY KEY (delivery_id, attempt)
        );
      `,
    },
    {
      version: 2,
      name: 'assignee kinds',
      // Fixed when the event is queued (user or droid), so every attempt sends the same bytes.
      sql: 'ALTER TABLE webhook_deliveries ADD COLUMN previous_assignee_kind text, ADD COLUMN assignee_kind text',
    },
  ],
}
