// The PostgreSQL port this stage needs. Structurally the same as the api
// stage's Sql/Database (api/db/sql.ts), declared here so monitor never imports api.

export interface SqlResult<T> {
  rows: T[]
  rowCount: number
}

export interface Sql {
  query<T = Record<string, unknown>>(text: string, params?: unknown[]): Promise<SqlResult<T>>
  exec(text: string): Promise<void>
}

export interface Database extends Sql {
  readonly embedded: boolean
  transaction<T>(fn: (tx: Sql) => Promise<T>): Promise<T>
  close(): Promise<void>
}

/** The shape of a stage's migrations (api/db/migrate.ts MigrationSet). */
export interface MigrationSet {
  stage: string
  migrations: readonly { version: number; name: string; sql: string }[]
}
