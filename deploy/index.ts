// Public surface of the deploy stage: configuration, the launcher and the CLI.
export { loadConfig } from './config.ts'
export { startLookout } from './runtime.ts'
export type { Lookout, Role, StartOptions } from './runtime.ts'
export { ManagedNats, findNatsServer } from './nats-server.ts'
export { parseNatsServerVersion, hasSyncInterval, jetstreamSyncLines, detectNatsServerVersion } from './nats-sync.ts'

export { secretKeyPath } from './secret-key.ts'
export { DEPLOY_ERROR_CODES } from './errors.ts'
export { adminSocketPath, callAdmin } from './admin.ts'
export { restartLean, countBuffersInHeapLimit } from './lean-runtime.ts'
export { startDesktop, checkPrivateDir, ensurePrivateDir } from './desktop.ts'
export type { Desktop, DesktopOptions } from './desktop.ts'
export { StoreLogSource } from './roles/log-source.ts'
