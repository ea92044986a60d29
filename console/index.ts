// Public surface of the console stage: the web console (built from console/src
// with esbuild), its HTTP plugin, and console sessions.
export { consolePlugin, sessionPrincipal } from './plugin.ts'
export { ConsoleSessions, CODE_TTL_MS } from './sessions.ts'
export { CONSOLE_MIGRATIONS } from './migrations.ts'
export { CONSOLE_ERROR_CODES } from './errors.ts'
