// The managed runtime's view of the resource SSH keys (monitor/tunnel's
// RuntimeSecrets port, wired by deploy/runtime.ts into the monitor role):
// keys opened from their sealed boxes, host keys pinned per key revision, and
// the install status reported back where GET …/ssh-key reads it.
import type { RuntimeSecrets, SshEndpoint, SyncStatus } from '../../tunnel/index.ts'
import type { Sql } from '../../core/index.ts'
import { exportPrivateKey } from './key.ts'
import { SecretBox } from '../../core/index.ts'
import { boxContext } from './store.ts'

interface EndpointRow {
  host: string
  port: number
  username: string
  revision: number
  generation: string
  sealed: Uint8Array
  host_keys: string[]
  expected_fingerprint: string | null
}

/** Opened keys kept in memory per stored key: decrypting runs bcrypt-pbkdf in a worker, not on every probe. */
const CACHE_MAX = 1_000

export class SshKeyRuntime implements RuntimeSecrets {
  readonly #db: Sql
  readonly #box: SecretBox
  readonly #opened = new Map<string, string>()

  constructor(db: Sql, secretKey: Buffer) {
    this.#db = db
    this.#box = new SecretBox(secretKey)
  }

  async sshEndpoint(workspaceId: string, resourceId: string): Promise<SshEndpoint | null> {
    // generation: a hash of the sealed box, new with every PUT (random nonce), so nothing outlives its key.
    const r = await this.#db.query<EndpointRow>(
      `SELECT host, port, username, revision, encode(sha256(sealed), 'hex') AS generation, sealed, host_keys, expected_fingerprint
       FROM resource_ssh_keys WHERE workspace_id = $1 AND resource_id = $2`,
      [workspaceId, resourceId])
    const row = r.rows[0]
    if (row === undefined) return null
    const id = `${resourceId}:${row.generation}`
    let privateKey = this.#opened.get(id)
    if (privateKey === undefined) {
      let secret: { private_key: string; passphrase: string }
      try {
        secret = JSON.parse(this.#box.open(Buffer.from(row.sealed), boxContext(workspaceId, resourceId)).toString('utf8')) as typeof secret
      } catch {
        // Sealed with another LOOKOUT_SECRET_KEY: this server cannot use it.
        return null
      }
      privateKey = await exportPrivateKey(secret.private_key, secret.passphrase)
      if (this.#opened.size >= CACHE_MAX) this.#opened.clear()
      this.#opened.set(id, privateKey)
    }
    return {
      workspaceId, resourceId, revision: row.revision, generation: row.generation, host: row.host, port: row.port, username: row.username,
      privateKey, hostKeys: row.host_keys, expectedFingerprint: row.expected_fingerprint,
    }
  }

  async pinHostKeys(e: SshEndpoint, keys: readonly string[]): Promise<readonly string[]> {
    await this.#db.query(
      `UPDATE resource_ssh_keys SET host_keys = $4::text[], pinned_at = now()
       WHERE workspace_id = $1 AND resource_id = $2 AND encode(sha256(sealed), 'hex') = $3 AND host_keys = '{}'`,
      [e.workspaceId, e.resourceId, e.generation, [...keys]])
    const r = await this.#db.query<{ host_keys: string[] }>('SELECT host_keys FROM resource_ssh_keys WHERE workspace_id = $1 AND resource_id = $2',
      [e.workspaceId, e.resourceId])
    return r.rows[0]?.host_keys ?? []
  }

  async report(e: SshEndpoint, status: SyncStatus, detail: string): Promise<void> {
    await this.#db.query(
      `UPDATE resource_ssh_keys SET sync_status = $4, sync_detail = $5, sync_at = now()
       WHERE workspace_id = $1 AND resource_id = $2 AND encode(sha256(sealed), 'hex') = $3`,
      [e.workspaceId, e.resourceId, e.generation, status, detail.slice(0, 500)])
  }

  async pending(limit: number, retryMs: number): Promise<{ workspaceId: string; resourceId: string }[]> {
    const r = await this.#db.query<{ workspace_id: string; resource_id: string }>(
      `SELECT workspace_id, resource_id FROM resource_ssh_keys
       WHERE sync_status = 'pending' OR (sync_status = 'failed' AND sync_at < now() - make_interval(secs => $2::double precision / 1000))
       ORDER BY updated_at LIMIT $1`, [limit, retryMs])
    return r.rows.map((x) => ({ workspaceId: x.workspace_id, resourceId: x.resource_id }))
  }
}
