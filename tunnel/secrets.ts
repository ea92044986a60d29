// The managed runtime's secrets, as the monitor stage sees them: a port that
// the deploy stage fills with the api stage's sealed SSH key store. The monitor
// never imports the api stage; it only gets keys through this interface.

/** A resource's registered SSH key, opened for one connection. */
export interface SshEndpoint {
  workspaceId: string
  resourceId: string
  /** The key record's revision. */
  revision: number
  /** Names this exact stored key (a rotation, or a delete and a new PUT, gives a new one): pins and reports apply to it only. */
  generation: string
  host: string
  port: number
  username: string
  /** The private key, unencrypted, in OpenSSH format. Held in memory; written only to a 0600 file in a 0700 directory for the ssh client's lifetime. */
  privateKey: string
  /** Pinned host keys ("<type> <base64>"); empty until the first connection pins them. */
  hostKeys: readonly string[]
  /** A fingerprint (SHA256:…) the user gave: the host key must match it before it is pinned. */
  expectedFingerprint: string | null
}

export const SYNC_STATUS = { pending: 'pending', installed: 'installed', failed: 'failed' } as const
export type SyncStatus = (typeof SYNC_STATUS)[keyof typeof SYNC_STATUS]

export interface RuntimeSecrets {
  /** The resource's key, or null when it has none (or it cannot be opened on this server). */
  sshEndpoint(workspaceId: string, resourceId: string): Promise<SshEndpoint | null>
  /** Pins host keys if none are pinned for this revision yet; answers the keys pinned afterwards (another process may have won). */
  pinHostKeys(e: SshEndpoint, keys: readonly string[]): Promise<readonly string[]>
  /** Records whether the runtime could use the key of this revision (a newer revision is left alone). */
  report(e: SshEndpoint, status: SyncStatus, detail: string): Promise<void>
  /** Keys the runtime has not installed yet: pending, or failed longer ago than `retryMs`. */
  pending(limit: number, retryMs: number): Promise<{ workspaceId: string; resourceId: string }[]>
}
