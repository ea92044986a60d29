// Resource SSH keys: the private key and passphrase sealed in one box, the
// rest (alias, destination, fingerprint, synchronization) readable.
import type { Sql } from '../db/index.ts'
import { ConflictError, NotFoundError } from '../errors.ts'
import type { KeyFacts } from './key.ts'
import type { SecretBox } from './secret-box.ts'

export interface SshKeyInput {
  alias: string
  host: string
  port: number
  username: string
  private_key: string
  passphrase: string
}

export interface SshKeyView {
  resource_id: string
  alias: string
  destination: string
  host: string
  port: number
  username: string
  fingerprint: string
  key_type: string
  key_bits: number
  synchronization: { status: string; detail: string; updated_at: string }
  revision: number
  created_at: string
  updated_at: string
}

/**
 * There is no managed runtime to install keys into: a stored key is kept
 * sealed and reported as such, so a caller never believes it was deployed.
 */
export const SYNC = {
  status: 'stored',
  detail: 'stored encrypted at rest; this server has no managed runtime, so the key is not installed on any host',
} as const

interface Row {
  resource_id: string
  alias: string
  host: string
  port: number
  username: string
  key_type: string
  key_bits: number
  fingerprint: string
  sync_status: string
  sync_detail: string
  revision: number
  created_at: Date
  updated_at: Date
}

const VIEW_COLUMNS = 'resource_id, alias, host, port, username, key_type, key_bits, fingerprint, sync_status, sync_detail, revision, created_at, updated_at'

export function destinationOf(username: string, host: string, port: number): string {
  return `${username}@${host.includes(':') ? `[${host}]` : host}:${port}`
}

function toView(r: Row): SshKeyView {
  const updated = new Date(r.updated_at).toISOString()
  return {
    resource_id: r.resource_id,
    alias: r.alias,
    destination: destinationOf(r.username, r.host, r.port),
    host: r.host,
    port: r.port,
    username: r.username,
    fingerprint: r.fingerprint,
    key_type: r.key_type,
    key_bits: r.key_bits,
    synchronization: { status: r.sync_status, detail: r.sync_detail, updated_at: updated },
    revision: r.revision,
    created_at: new Date(r.created_at).toISOString(),
    updated_at: updated,
  }
}

/** Associated data of a box: it opens only on the record it was sealed for. */
export function boxContext(workspaceId: string, resourceId: string): string {
  return `lookout:ssh-key:v1:${workspaceId}:${resourceId}`
}

export async function getSshKey(db: Sql, workspaceId: string, resourceId: string): Promise<SshKeyView> {
  const r = await db.query<Row>(`SELECT ${VIEW_COLUMNS} FROM resource_ssh_keys WHERE workspace_id = $1 AND resource_id = $2`, [workspaceId, resourceId])
  if (r.rows[0] === undefined) throw new NotFoundError('ssh key')
  return toView(r.rows[0])
}

/** Installs or rotates the resource's key (one row per resource; the alias is unique in the workspace). */
export async function putSshKey(db: Sql, box: SecretBox, workspaceId: string, resourceId: string, input: SshKeyInput, facts: KeyFacts): Promise<SshKeyView> {
  const taken = await db.query('SELECT 1 FROM resource_ssh_keys WHERE workspace_id = $1 AND alias = $2 AND resource_id <> $3', [workspaceId, input.alias, resourceId])
  if (taken.rows.length > 0) throw new ConflictError(`alias ${input.alias} is used by another resource of this workspace`)
  const sealed = box.seal(Buffer.from(JSON.stringify({ private_key: input.private_key, passphrase: input.passphrase })), boxContext(workspaceId, resourceId))
  try {
    const r = await db.query<Row>(
      `INSERT INTO resource_ssh_keys (resource_id, workspace_id, alias, host, port, username, key_type, key_bits, fingerprint, sealed, sealed_with, sync_status, sync_detail)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)
       ON CONFLICT (resource_id) DO UPDATE SET alias = EXCLUDED.alias, host = EXCLUDED.host, port = EXCLUDED.port,
         username = EXCLUDED.username, key_type = EXCLUDED.key_type, key_bits = EXCLUDED.key_bits, fingerprint = EXCLUDED.fingerprint,
         sealed = EXCLUDED.sealed, sealed_with = EXCLUDED.sealed_with, sync_status = EXCLUDED.sync_status, sync_detail = EXCLUDED.sync_detail,
         revision = resource_ssh_keys.revision + 1, updated_at = now()
       RETURNING ${VIEW_COLUMNS}`,
      [resourceId, workspaceId, input.alias, input.host, input.port, input.username, facts.type, facts.bits, facts.fingerprint,
        sealed, box.keyId, SYNC.status, SYNC.detail])
    return toView(r.rows[0] as Row)
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new ConflictError(`alias ${input.alias} is used by another resource of this workspace`)
    throw err
  }
}

/** Removes the alias, the sealed key and the destination with it. */
export async function deleteSshKey(db: Sql, workspaceId: string, resourceId: string): Promise<SshKeyView> {
  const r = await db.query<Row>(`DELETE FROM resource_ssh_keys WHERE workspace_id = $1 AND resource_id = $2 RETURNING ${VIEW_COLUMNS}`, [workspaceId, resourceId])
  if (r.rows[0] === undefined) throw new NotFoundError('ssh key')
  return toView(r.rows[0])
}

/** The sealed secret of a key, opened (for a future runtime installer and for tests of the box). */
export async function openSshKey(db: Sql, box: SecretBox, workspaceId: string, resourceId: string): Promise<{ private_key: string; passphrase: string }> {
  const r = await db.query<{ sealed: Uint8Array }>('SELECT sealed FROM resource_ssh_keys WHERE workspace_id = $1 AND resource_id = $2', [workspaceId, resourceId])
  if (r.rows[0] === undefined) throw new NotFoundError('ssh key')
  return JSON.parse(box.open(Buffer.from(r.rows[0].sealed), boxContext(workspaceId, resourceId)).toString('utf8')) as { private_key: string; passphrase: string }
}
