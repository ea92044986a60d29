// SSH tunnels of the managed runtime (the monitor role): what the probes and the scheduler use.
export { SshTunnels, tunnelOutcome } from './tunnels.ts'
export type { Opened, TunnelRequest } from './tunnels.ts'
export { KeyInstaller } from './installer.ts'
export type { InstallerOptions } from './installer.ts'
export { SYNC_STATUS } from './secrets.ts'
export type { RuntimeSecrets, SshEndpoint, SyncStatus } from './secrets.ts'
export { fingerprintOf, scanHostKeys, sshCommand, SSH_BIN, SSH_KEYSCAN_BIN } from './ssh.ts'
export type { SshCommand } from './ssh.ts'
