// PostgreSQL schema of services, their time entries, staff members and the
// resource ↔ service associations.
import type { MigrationSet } from '../../core/index.ts'

export const SERVICES_MIGRATIONS: MigrationSet = {
  stage: 'services',
  migrations: [
    {
      version: 1,
      name: 'staff, services, time entries, idempotency, resource associations',
      sql: `
        CREATE TABLE staff_members (
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          staff_id integer NOT NULL CHECK (staff_id > 0),
          name text NOT NULL DEFAULT '',
          active boolean NOT NULL DEFAULT true,
          can_manage_services boolean NOT NULL DEFAULT true,
          can_log_time boolean NOT NULL DEFAULT true,
          can_read_request_history boolean NOT NULL DEFAULT false,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (workspace_id, staff_id)
        );
        CREATE TABLE services (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          name text NOT NULL,
          kind text NOT NULL,
          lifecycle text NOT NULL,
          owner_id integer,
          modules text[] NOT NULL,
          description text NOT NULL,
          public_url text NOT NULL,
          active boolean NOT NULL,
          created_by_staff_id integer,
          revision integer NOT NULL DEFAULT 1,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX services_page ON services (workspace_id, created_at, id);
        CREATE TABLE service_time_entries (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL,
          service_id uuid NOT NULL REFERENCES services(id),
          revision integer NOT NULL DEFAULT 1,
          state text NOT NULL,
          occurred_at timestamptz NOT NULL,
          minutes integer NOT NULL CHECK (minutes > 0 AND minutes <= 6000000),
          description text NOT NULL,
          internal_notes text NOT NULL,
          task_id uuid,
          staff_id integer,
          chargeable boolean NOT NULL,
          created_by_staff_id integer,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          voided_at timestamptz,
          void_reason text
        );
        CREATE INDEX service_time_page ON service_time_entries (service_id, occurred_at DESC, id DESC);
        CREATE TABLE service_time_history (
          entry_id uuid NOT NULL REFERENCES service_time_entries(id),
          revision integer NOT NULL,
          action text NOT NULL,
          reason text,
          changed text[] NOT NULL,
          snapshot jsonb NOT NULL,
          actor_staff_id integer,
          actor_key_id text NOT NULL,
          at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (entry_id, revision)
        );
        CREATE TABLE service_operations (
          workspace_id uuid NOT NULL,
          idempotency_key uuid NOT NULL,
          operation text NOT NULL,
          request_hash text NOT NULL,
          status_code integer,
          response jsonb,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (workspace_id, idempotency_key)
        );
        CREATE TABLE resource_services (
          workspace_id uuid NOT NULL,
          resource_id uuid NOT NULL REFERENCES resources(id),
          service_id uuid NOT NULL REFERENCES services(id),
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (resource_id, service_id)
        );
        CREATE INDEX resource_services_service ON resource_services (service_id);
      `,
    },
    {
      version: 2,
      name: 'agent profiles',
      // A profile (staff id) that is an agent: assignment webhooks name its kind droid.
      sql: 'ALTER TABLE staff_members ADD COLUMN agent boolean NOT NULL DEFAULT false',
    },
    {
      version: 3,
      name: 'the kind of an assignee, for other stages: staff_kind()',
      // The assignment webhooks (alerting) fix each delivery's assignee kind in the statement that queues it:
      // this function is how they ask, without naming staff_members (one lookup per queued row, as before).
      // PL/pgSQL keeps its query's plan for the session; a SQL function with a sub-select is planned per statement.
      sql: `
        CREATE OR REPLACE FUNCTION staff_kind(ws uuid, staff integer) RETURNS text LANGUAGE plpgsql STABLE AS $$
        BEGIN
          IF staff IS NULL THEN RETURN NULL; END IF;
          IF EXISTS (SELECT 1 FROM staff_members m WHERE m.workspace_id = ws AND m.staff_id = staff AND m.agent) THEN RETURN 'droid'; END IF;
          RETURN 'user';
        END $$;
      `,
    },
  ],
}
