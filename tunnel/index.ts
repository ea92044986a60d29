// SSH tunnels of the managed runtime: the monitor's probes dial through them, the
// repository mirrors fetch through them, and the runtime installs keys with them.
// A stage of its own so that neither borrows it from the other.
export { SshTunnels, NO_KEY } from './tunnels.ts'
export type { Opened, TunnelRequest } from './tunnels.ts'
export { KeyInstaller } from './installer.ts'
export type { InstallerOptions } from './installer.ts'
export { SYNC_STATUS } from './secrets.ts'
export type { RuntimeSecrets, SshEndpoint, SyncStatus } from './secrets.ts'
export { fingerprintOf, scanHostKeys, sshCommand, SSH_BIN, SSH_KEYSCAN_BIN, TUNNEL_FAILURES } from './ssh.ts'
export type { SshCommand, TunnelFailure } from './ssh.ts'
