// PostgreSQL schema of the console: sessions and one-time sign-in codes, kept
// only as SHA-256 hashes (a database dump holds nothing a browser could replay).
// In PostgreSQL so every api process of a scale-out deployment knows every session.

import type { MigrationSet } from '../core/index.ts'

export const CONSOLE_MIGRATIONS: MigrationSet = {
  stage: 'console',
  migrations: [
    {
      version: 1,
      name: 'console sessions and sign-in codes',
      sql: `
        CREATE TABLE console_sessions (
          id_hash bytea PRIMARY KEY,
          token_id uuid NOT NULL REFERENCES tokens(id),
          created_at timestamptz NOT NULL DEFAULT now(),
          expires_at timestamptz NOT NULL
        );
        CREATE INDEX console_sessions_token ON console_sessions (token_id);
        CREATE INDEX console_sessions_expiry ON console_sessions (expires_at);
        CREATE TABLE console_signin_codes (
          code_hash bytea PRIMARY KEY,
          token_id uuid NOT NULL REFERENCES tokens(id),
          expires_at timestamptz NOT NULL
        );
      `,
    },
  ],
}
