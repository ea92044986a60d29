// PostgreSQL schema of the query stage: saved searches, shared in a workspace.
import type { MigrationSet } from '../core/index.ts'

export const QUERY_MIGRATIONS: MigrationSet = {
  stage: 'query',
  migrations: [
    {
      version: 1,
      name: 'saved searches',
      sql: `
        CREATE TABLE saved_searches (
          id uuid PRIMARY KEY,
          workspace_id uuid NOT NULL,
          name text NOT NULL,
          resource_id uuid,
          query jsonb NOT NULL,
          created_by integer,
          revision integer NOT NULL DEFAULT 1,
          created_at timestamptz NOT NULL DEFAULT now(),
          updated_at timestamptz NOT NULL DEFAULT now()
        );
        CREATE INDEX saved_searches_list ON saved_searches (workspace_id, name, id);
      `,
    },
  ],
}
