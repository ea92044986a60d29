// SSH tunnels of the managed runtime: the monitor's probes dial through them, the
// repository mirrors fetch through them, and the runtime installs keys with them.
// A stage of its own so that neither borrows it from the other.
export { SshTunnels, NO_KEY } from './tunnels.ts'
export type { Opened } from './tunnels.ts'
export { KeyInstaller } from './installer.ts'
export type { RuntimeSecrets, SshEndpoint, SyncStatus } from './secrets.ts'
export { fingerprintOf, sshCommand, TUNNEL_FAILURES } from './ssh.ts'
export type { SshCommand } from './ssh.ts'
