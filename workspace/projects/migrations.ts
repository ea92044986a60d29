// PostgreSQL schema of the project area. Tasks, notes and deliverables share one
// table (`project_items`, discriminated by item_type) so revision checks, soft
// deletes, activity and the desktop's mixed item listing are one code path.
import type { MigrationSet } from '../../core/index.ts'
import { LIST_DOC_SQL } from './store/list-doc.ts'

export const PROJECT_MIGRATIONS: MigrationSet = {
  stage: 'projects',
  migrations: [
    {
      version: 1,
      name: 'boards, statuses, taxonomy, items, comments, edges, activity, idempotency, events outbox',
      sql: `
        CREATE TABLE project_workspaces (
          workspace_id uuid PRIMARY KEY REFERENCES workspaces(id),
          default_board_id uuid NOT NULL,
          next_number integer NOT NULL DEFAULT 1,
          taxonomy_token text NOT NULL,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE project_boards (
          id uuid PRIMARY KEY,
          seq bigint GENERATED ALWAYS AS IDENTITY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          name text NOT NULL,
          revision integer NOT NULL DEFAULT 1,
          statuses_token text NOT NULL,
          archived_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX project_boards_page ON project_boards (workspace_id, seq);
        CREATE TABLE project_statuses (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          board_id uuid NOT NULL REFERENCES project_boards(id),
          name text NOT NULL,
          category text NOT NULL,
          color text NOT NULL,
          position integer NOT NULL,
          is_default boolean NOT NULL DEFAULT false,
          retired_at timestamptz,
          replacement_id uuid,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX project_statuses_board ON project_statuses (board_id, position);
        CREATE TABLE project_taxonomy (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          kind text NOT NULL,
          name text NOT NULL,
          icon text,
          position integer NOT NULL,
          is_default boolean NOT NULL DEFAULT false,
          archived_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX project_taxonomy_ws ON project_taxonomy (workspace_id, kind, position);
        CREATE TABLE project_items (
          id uuid PRIMARY KEY,
          seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          item_type text NOT NULL,
          kind text NOT NULL DEFAULT 'task',
          board_id uuid NOT NULL REFERENCES project_boards(id),
          number integer,
          title text NOT NULL DEFAULT '',
          description text NOT NULL DEFAULT '',
          acceptance text NOT NULL DEFAULT '',
          body text NOT NULL DEFAULT '',
          color text,
          visibility text,
          type_id uuid,
          label_ids uuid[] NOT NULL DEFAULT '{}',
          status_id uuid,
          service uuid,
          deliverable uuid REFERENCES project_items(id),
          source_ticket uuid,
          priority text,
          assignee integer,
          reviewer integer,
          owner integer,
          starts_on date,
          due_on date,
          state text,
          blocked_reason text NOT NULL DEFAULT '',
          origin text NOT NULL DEFAULT 'local',
          revision integer NOT NULL DEFAULT 1,
          assignment_revision integer NOT NULL DEFAULT 1,
          created_by integer,
          archived_at timestamptz,
          deleted_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now(),
          UNIQUE (workspace_id, number)
        );
        CREATE INDEX project_items_live ON project_items (workspace_id, item_type, seq DESC) WHERE deleted_at IS NULL AND archived_at IS NULL;
        CREATE INDEX project_items_all ON project_items (workspace_id, item_type, seq DESC);
        CREATE INDEX project_items_status ON project_items (status_id, seq DESC);
        CREATE INDEX project_items_assignee ON project_items (workspace_id, assignee, seq DESC) WHERE assignee IS NOT NULL;
        CREATE INDEX project_items_board ON project_items (board_id, item_type, seq DESC);
        CREATE INDEX project_items_deliverable ON project_items (deliverable, seq DESC) WHERE deliverable IS NOT NULL;
        CREATE INDEX project_items_labels ON project_items USING gin (label_ids);
        CREATE INDEX project_items_due ON project_items (workspace_id, due_on) WHERE due_on IS NOT NULL;
        CREATE TABLE project_comments (
          id uuid PRIMARY KEY,
          seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          item_id uuid NOT NULL REFERENCES project_items(id),
          body text NOT NULL,
          visibility text NOT NULL,
          author integer,
          revision integer NOT NULL DEFAULT 1,
          deleted_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX project_comments_item ON project_comments (item_id, seq);
        CREATE TABLE project_edges (
          id uuid PRIMARY KEY,
          seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          from_id uuid NOT NULL REFERENCES project_items(id),
          to_id uuid NOT NULL REFERENCES project_items(id),
          relation text NOT NULL,
          revision integer NOT NULL DEFAULT 1,
          deleted_at timestamptz,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE UNIQUE INDEX project_edges_live ON project_edges (workspace_id, from_id, to_id, relation) WHERE deleted_at IS NULL;
        CREATE INDEX project_edges_page ON project_edges (workspace_id, seq);
        CREATE TABLE project_activity (
          seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          id uuid NOT NULL UNIQUE,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          board_id uuid,
          item_id uuid,
          entity text NOT NULL,
          action text NOT NULL,
          summary text NOT NULL,
          actor jsonb NOT NULL,
          before jsonb,
          after jsonb,
          note text NOT NULL DEFAULT '',
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX project_activity_ws ON project_activity (workspace_id, seq DESC);
        CREATE INDEX project_activity_item ON project_activity (item_id, seq DESC) WHERE item_id IS NOT NULL;
        CREATE TABLE project_idempotency (
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          key text NOT NULL,
          scope text NOT NULL,
          request_hash text NOT NULL,
          status integer NOT NULL DEFAULT 0,
          response text,
          created_at timestamptz NOT NULL DEFAULT now(),
          PRIMARY KEY (workspace_id, key)
        );
        CREATE TABLE project_events (
          seq bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
          id uuid NOT NULL UNIQUE,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          type text NOT NULL,
          task_id uuid NOT NULL,
          board_id uuid NOT NULL,
          task_number integer,
          task_revision integer NOT NULL,
          assignment_revision integer NOT NULL,
          previous_assignee integer,
          assignee integer,
          origin text NOT NULL,
          actor jsonb NOT NULL,
          occurred_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX project_events_ws ON project_events (workspace_id, seq);
      `,
    },
    {
      version: 2,
      name: 'tickets list index',
      // Tickets are a small share of tasks: without it, a tickets page scans the newest tasks until it finds 50.
      sql: `
        CREATE INDEX project_items_tickets ON project_items (workspace_id, seq DESC)
          WHERE kind = 'service_ticket' AND deleted_at IS NULL AND archived_at IS NULL;
      `,
    },
    {
      version: 3,
      name: 'tickets and their replies',
      // A ticket shares its id with its work task (kind service_ticket, source_ticket = that id): the
      // tickets list shows tasks, and GET P/tickets/{id} takes the id the list gives.
      sql: `
        CREATE TABLE project_tickets (
          id uuid PRIMARY KEY REFERENCES project_items(id),
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          subject text NOT NULL,
          body text NOT NULL,
          category text NOT NULL,
          resource uuid REFERENCES resources(id),
          service uuid,
          created_by integer,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE TABLE project_ticket_replies (
          id uuid PRIMARY KEY,
          seq bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
          workspace_id uuid NOT NULL REFERENCES workspaces(id),
          ticket_id uuid NOT NULL REFERENCES project_tickets(id),
          body text NOT NULL,
          visibility text NOT NULL,
          author integer,
          created_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX project_ticket_replies_ticket ON project_ticket_replies (ticket_id, seq);
      `,
    },
    {
      version: 4,
      name: 'list documents kept on write, list indexes',
      sql: LIST_DOC_SQL,
    },
    {
      version: 5,
      name: 'shared (portal-numbered) workspaces; ids taken over from the portal carry their references',
      // Made by the portal's migration 1 before version 5 existed: a data directory that ran it finds nothing to add.
      sql: `
        -- A shared workspace numbers no task itself: the portal supplies the number.
        ALTER TABLE project_workspaces ADD COLUMN IF NOT EXISTS portal_shared boolean NOT NULL DEFAULT false;
        -- Adopting a canonical id rewrites the primary key; references follow it.
        ALTER TABLE project_comments DROP CONSTRAINT project_comments_item_id_fkey,
          ADD CONSTRAINT project_comments_item_id_fkey FOREIGN KEY (item_id) REFERENCES project_items(id) ON UPDATE CASCADE;
        ALTER TABLE project_edges DROP CONSTRAINT project_edges_from_id_fkey,
          ADD CONSTRAINT project_edges_from_id_fkey FOREIGN KEY (from_id) REFERENCES project_items(id) ON UPDATE CASCADE;
        ALTER TABLE project_edges DROP CONSTRAINT project_edges_to_id_fkey,
          ADD CONSTRAINT project_edges_to_id_fkey FOREIGN KEY (to_id) REFERENCES project_items(id) ON UPDATE CASCADE;
        ALTER TABLE project_items DROP CONSTRAINT project_items_deliverable_fkey,
          ADD CONSTRAINT project_items_deliverable_fkey FOREIGN KEY (deliverable) REFERENCES project_items(id) ON UPDATE CASCADE;
        ALTER TABLE project_items DROP CONSTRAINT project_items_board_id_fkey,
          ADD CONSTRAINT project_items_board_id_fkey FOREIGN KEY (board_id) REFERENCES project_boards(id) ON UPDATE CASCADE;
        ALTER TABLE project_statuses DROP CONSTRAINT project_statuses_board_id_fkey,
          ADD CONSTRAINT project_statuses_board_id_fkey FOREIGN KEY (board_id) REFERENCES project_boards(id) ON UPDATE CASCADE;
      `,
    },
    {
      version: 6,
      name: 'an inserted item may bring its list document',
      // The task batch builds each row's list document itself (the route's JSON of the row it
      // writes), so its insert runs no per-row trigger (bench/portal README, "The batch's tasks
      // bring their list documents"). Every other insert, and every update, still has it built here.
      sql: `
        DROP TRIGGER project_items_list_doc ON project_items;
        CREATE TRIGGER project_items_list_doc BEFORE INSERT ON project_items
          FOR EACH ROW WHEN (NEW.list_doc IS NULL) EXECUTE FUNCTION project_items_list_doc();
        CREATE TRIGGER project_items_list_doc_update BEFORE UPDATE ON project_items
          FOR EACH ROW EXECUTE FUNCTION project_items_list_doc();
      `,
    },
    {
      version: 7,
      name: 'edges found by either end',
      // An adopted id (the desktop rewrites a task's primary key to the portal's) cascades to the
      // edges of both ends: without these, each rewritten row scanned the whole edges table twice
      // (the live unique index leads with workspace_id and skips tombstones). 250 adoptions with
      // 2,000 edges: 115-180 -> 28-46 ms of CPU (bench/portal README, 2026-11-27 evening).
      sql: `
        CREATE INDEX project_edges_from ON project_edges (from_id);
        CREATE INDEX project_edges_to ON project_edges (to_id);
      `,
    },
  ],
}
