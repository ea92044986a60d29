// Public surface of the api stage: the Fastify app, the PostgreSQL port and
// its migrations, credentials, and the coded errors.
export { buildApp } from './app.ts'
export type { AppOptions } from './app.ts'
export { openPglite, openPostgres, migrate } from './db/index.ts'
export type { Database, Sql, SqlResult, MigrationSet, PgMigration } from './db/index.ts'
export { API_MIGRATIONS, PG_MIGRATIONS } from './migrations.ts'
export {
  createWorkspace, listWorkspaces, createToken, revokeToken, listTokens, verifyToken, isUuid, TOKEN_KINDS,
} from './auth/tokens.ts'
export type { Principal, TokenInfo, NewToken, TokenKind } from './auth/tokens.ts'
export { SCOPES, ALL_SCOPES, isScope } from './scopes.ts'
export type { Scope } from './scopes.ts'
export { API_ERROR_CODES } from './errors.ts'
export type { ApiErrorCode } from './errors.ts'
export type { ReadinessCheck } from './health.ts'
export { registerResource, getResource } from './resources/store.ts'
export type { Resource, ResourceInput } from './resources/store.ts'
export { ownerResolver, OWNER_TOKEN_ID } from './auth/owner.ts'
