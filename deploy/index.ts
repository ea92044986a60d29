// Public surface of the deploy stage: configuration, the launcher and the CLI.
export { loadConfig, ConfigError } from './config.ts'
export type { LookoutConfig } from './config.ts'
export { startLookout, ROLES, ALL_ROLES } from './runtime.ts'
export type { Lookout, Role, StartOptions } from './runtime.ts'
export { ManagedNats, findNatsServer } from './nats-server.ts'
export { main } from './cli.ts'
export { adminSocketPath, callAdmin } from './admin.ts'
