// Public surface of the console stage: the web console (built from console/src
// with esbuild), its HTTP plugin, and console sessions.
export { consolePlugin, sessionPrincipal, checkSameOrigin, CSRF_HEADER, SECURITY_HEADERS } from './plugin.ts'
export type { ConsolePluginOptions, ConsoleToken } from './plugin.ts'
export { ConsoleSessions, SESSION_COOKIE, SESSION_TTL_MS, CODE_TTL_MS, cookieValue } from './sessions.ts'
export type { ConsoleSql } from './sessions.ts'
export { CONSOLE_MIGRATIONS } from './migrations.ts'
export { buildConsole, ensureBuilt, readManifest, firstLoadBytes, DIST_DIR } from './build.ts'
export type { Manifest, AssetInfo } from './build.ts'
export { CONSOLE_ERROR_CODES } from './errors.ts'
export type { ConsoleErrorCode } from './errors.ts'
