// PostgreSQL schema of the desktop's portal connection and project sync
// (deploy/PORTAL.md): the connection (token sealed), the id mapping, each
// synced item's agreed state, the outbox, conflicts and catalogue reviews.
import type { MigrationSet } from '../../core/index.ts'

export const PORTAL_MIGRATIONS: MigrationSet = {
  stage: 'portal',
  migrations: [
    // Version 1 and 2 also added the columns and cascading references of workspace's and alerting's
    // tables the sync relies on, until these moved to their owners (projects 5, notifications 3).
    {
      version: 1,
      name: 'portal connection, id map, synced items, outbox, catalogue reviews',
      sql: `
        CREATE TABLE portal_connection (
          workspace_id uuid PRIMARY KEY REFERENCES workspaces(id),
          url text NOT NULL,
          portal_workspace_id uuid NOT NULL,
          token_box bytea NOT NULL,
          token_key_id text NOT NULL,
          scopes text[] NOT NULL DEFAULT '{}',
          features text[] NOT NULL DEFAULT '{}',
          state text NOT NULL DEFAULT 'connected',
          last_error text,
          last_error_at timestamptz,
          last_sync_at timestamptz,
          pull_cursor text,
          connected_at timestamptz NOT NULL DEFAULT now()
        );
        -- Every id this desktop ever used for a record that now has another (canonical) one.
        CREATE TABLE portal_id_map (
          workspace_id uuid NOT NULL,
          kind text NOT NULL,
          old_id uuid NOT NULL,
          canonical_id uuid NOT NULL,
          mapped_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (workspace_id, old_id)
        );
        -- One row per task known to the sync: its agreed portal state and what the outbox already holds.
        CREATE TABLE portal_items (
          workspace_id uuid NOT NULL,
          item_key uuid NOT NULL,
          local_id uuid NOT NULL,
          portal_id uuid,
          portal_revision integer,
          captured jsonb NOT NULL,
          captured_revision integer NOT NULL,
          PRIMARY KEY (workspace_id, item_key),
          UNIQUE (workspace_id, local_id)
        );
        CREATE TABLE portal_outbox (
          seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          workspace_id uuid NOT NULL,
          item_key uuid NOT NULL,
          op text NOT NULL,
          payload jsonb NOT NULL,
          idempotency_key uuid NOT NULL,
          state text NOT NULL DEFAULT 'pending',
          attempts integer NOT NULL DEFAULT 0,
          last_error text,
          created_at timestamptz NOT NULL DEFAULT now(),
          settled_at timestamptz
        );
        CREATE INDEX portal_outbox_pending ON portal_outbox (workspace_id, seq) WHERE state = 'pending';
        -- Catalogue entries as last agreed with the portal, the base of the three-way comparison.
        CREATE TABLE portal_catalogue_base (
          workspace_id uuid NOT NULL,
          kind text NOT NULL,
          id uuid NOT NULL,
          value jsonb NOT NULL,
          PRIMARY KEY (workspace_id, id)
        );
        CREATE TABLE portal_reviews (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL,
          kind text NOT NULL,
          entry_id uuid NOT NULL,
          local_value jsonb NOT NULL,
          portal_value jsonb NOT NULL,
          state text NOT NULL DEFAULT 'open',
          created_at timestamptz NOT NULL DEFAULT now(),
          resolved_at timestamptz
        );
        CREATE UNIQUE INDEX portal_reviews_open ON portal_reviews (workspace_id, entry_id) WHERE state = 'open';
      `,
    },
    {
      version: 2,
      name: 'portal notification cache: source of an inbox entry, portal incident state, refresh time',
      sql: `
        ALTER TABLE portal_connection ADD COLUMN notifications_refreshed_at timestamptz;
      `,
    },
    {
      version: 3,
      name: 'id map and synced items looked up by their canonical and portal ids; synced notes',
      sql: `
        CREATE INDEX portal_id_map_canonical ON portal_id_map (workspace_id, canonical_id);
        -- Desktop project requests are rewritten by old id alone (rewriteOldIds).
        CREATE INDEX portal_id_map_old ON portal_id_map (old_id);
        CREATE INDEX portal_items_portal ON portal_items (workspace_id, portal_id);
        ALTER TABLE portal_items ADD COLUMN item_type text NOT NULL DEFAULT 'task';
      `,
    },
    {
      version: 4,
      name: 'three-way merge: the last agreed version of each synced item; retried conflicts sent as the owner decided; last attempt',
      sql: `
        ALTER TABLE portal_items ADD COLUMN base jsonb;
        -- The best known agreed version; the work state was never captured before, so the next capture sends it.
        UPDATE portal_items SET base = captured WHERE portal_id IS NOT NULL;
        ALTER TABLE portal_outbox ADD COLUMN forced boolean NOT NULL DEFAULT false;
        -- The status reflects the last attempt to reach the portal, not only the last finished round.
        ALTER TABLE portal_connection ADD COLUMN last_attempt_at timestamptz;
      `,
    },
    {
      version: 5,
      name: 'synced comments and edges: their agreed portal state; outbox operations of every record kind',
      sql: `
        -- One row per comment or edge known to the sync (portal_items' twin for records that are not project items).
        CREATE TABLE portal_records (
          workspace_id uuid NOT NULL,
          record_key uuid NOT NULL,
          kind text NOT NULL,
          local_id uuid NOT NULL,
          portal_id uuid,
          portal_revision integer,
          captured jsonb NOT NULL,
          captured_revision integer NOT NULL,
          base jsonb,
          PRIMARY KEY (workspace_id, record_key),
          UNIQUE (workspace_id, local_id)
        );
        CREATE INDEX portal_records_portal ON portal_records (workspace_id, portal_id);
        -- item: a task or note (portal_items); comment, edge: portal_records.
        ALTER TABLE portal_outbox ADD COLUMN kind text NOT NULL DEFAULT 'item';
      `,
    },
  ],
}
