// Resource SSH keys: the private key and passphrase sealed in one box, the
// rest (alias, destination, fingerprint, synchronization) readable.
import { fingerprintOf as hostKeyFingerprint } from '../../tunnel/index.ts'
import type { Sql } from '../../core/index.ts'
import { ConflictError, NotFoundError } from '../../core/index.ts'
import type { KeyFacts } from './key.ts'
import type { SecretBox } from '../../core/index.ts'

export interface SshKeyInput {
  alias: string
  host: string
  port: number
  username: string
  private_key: string
  passphrase: string
  /** Lookout extension: the host key fingerprint to trust (else trust on first use). */
  host_fingerprint?: string
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
  synchronization: { status: string; detail: string; updated_at: string; host_fingerprints: string[] }
  /** How the SSH server's host key is trusted: pinned on first use, or checked against a fingerprint the user gave. */
  host_trust: { mode: 'first_use' | 'given'; expected_fingerprint: string | null; pinned_fingerprints: string[]; pinned_at: string | null }
  revision: number
  created_at: string
  updated_at: string
}

/**
 * A stored or rotated key waits for the managed runtime (the monitor role) to
 * connect with it; the runtime then reports installed or failed for that revision.
 */
export const SYNC = {
  status: 'pending',
  detail: 'waiting for the managed runtime (the monitor role) to connect with this key',
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
  sync_at: Date | null
  host_keys: string[]
  expected_fingerprint: string | null
  pinned_at: Date | null
  revision: number
  created_at: Date
  updated_at: Date
}

const VIEW_COLUMNS = `resource_id, alias, host, port, username, key_type, key_bits, fingerprint, sync_status, sync_detail, sync_at,
  host_keys, expected_fingerprint, pinned_at, revision, created_at, updated_at`

export function destinationOf(username: string, host: string, port: number): string {
  return `${username}@${host.includes(':') ? `[${host}]` : host}:${port}`
}

function toView(r: Row): SshKeyView {
  const updated = new Date(r.updated_at).toISOString()
  const pinned = r.host_keys.map(hostKeyFingerprint)
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
    synchronization: {
      status: r.sync_status, detail: r.sync_detail, updated_at: r.sync_at === null ? updated : new Date(r.sync_at).toISOString(), host_fingerprints: pinned,
    },
    host_trust: {
      mode: r.expected_fingerprint === null ? 'first_use' : 'given', expected_fingerprint: r.expected_fingerprint, pinned_fingerprints: pinned,
      pinned_at: r.pinned_at === null ? null : new Date(r.pinned_at).toISOString(),
    },
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

/**
 * Installs or rotates the resource's key (one row per resource; the alias is unique in the workspace).
 * Host trust survives a rotation to the same host and port; another host or port, or a given
 * fingerprint that no pinned key matches, clears the pin so the runtime pins (or checks) anew.
 */
export async function putSshKey(db: Sql, box: SecretBox, workspaceId: string, resourceId: string, input: SshKeyInput, facts: KeyFacts): Promise<SshKeyView> {
  const taken = await db.query('SELECT 1 FROM resource_ssh_keys WHERE workspace_id = $1 AND alias = $2 AND resource_id <> $3', [workspaceId, input.alias, resourceId])
  if (taken.rows.length > 0) throw new ConflictError(`alias ${input.alias} is used by another resource of this workspace`)
  const sealed = box.seal(Buffer.from(JSON.stringify({ private_key: input.private_key, passphrase: input.passphrase })), boxContext(workspaceId, resourceId))
  const given = input.host_fingerprint ?? null
  try {
    const r = await db.query<Row>(
      `INSERT INTO resource_ssh_keys (resource_id, workspace_id, alias, host, port, username, key_type, key_bits, fingerprint, sealed, sealed_with, sync_status, sync_detail,
         expected_fingerprint)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (resource_id) DO UPDATE SET alias = EXCLUDED.alias, host = EXCLUDED.host, port = EXCLUDED.port,
         username = EXCLUDED.username, key_type = EXCLUDED.key_type, key_bits = EXCLUDED.key_bits, fingerprint = EXCLUDED.fingerprint,
         sealed = EXCLUDED.sealed, sealed_with = EXCLUDED.sealed_with, sync_status = EXCLUDED.sync_status, sync_detail = EXCLUDED.sync_detail,
         sync_at = NULL,
         expected_fingerprint = CASE WHEN $14::text IS NOT NULL THEN $14::text
           WHEN resource_ssh_keys.host = EXCLUDED.host AND resource_ssh_keys.port = EXCLUDED.port THEN resource_ssh_keys.expected_fingerprint END,
         host_keys = CASE WHEN resource_ssh_keys.host = EXCLUDED.host AND resource_ssh_keys.port = EXCLUDED.port AND ($14::text IS NULL OR $14::text = ANY($15::text[]))
           THEN resource_ssh_keys.host_keys ELSE '{}' END,
         pinned_at = CASE WHEN resource_ssh_keys.host = EXCLUDED.host AND resource_ssh_keys.port = EXCLUDED.port AND ($14::text IS NULL OR $14::text = ANY($15::text[]))
           THEN resource_ssh_keys.pinned_at END,
         revision = resource_ssh_keys.revision + 1, updated_at = now()
       RETURNING ${VIEW_COLUMNS}`,
      [resourceId, workspaceId, input.alias, input.host, input.port, input.username, facts.type, facts.bits, facts.fingerprint,
        sealed, box.keyId, SYNC.status, SYNC.detail, given, await pinnedFingerprints(db, resourceId)])
    return toView(r.rows[0] as Row)
  } catch (err) {
    if ((err as { code?: string }).code === '23505') throw new ConflictError(`alias ${input.alias} is used by another resource of this workspace`)
    throw err
  }
}

async function pinnedFingerprints(db: Sql, resourceId: string): Promise<string[]> {
  const r = await db.query<{ host_keys: string[] }>('SELECT host_keys FROM resource_ssh_keys WHERE resource_id = $1', [resourceId])
  return (r.rows[0]?.host_keys ?? []).map(hostKeyFingerprint)
}

/** Removes the alias, the sealed key and the destination with it. */
export async function deleteSshKey(db: Sql, workspaceId: string, resourceId: string): Promise<SshKeyView> {
  const r = await db.query<Row>(`DELETE FROM resource_ssh_keys WHERE workspace_id = $1 AND resource_id = $2 RETURNING ${VIEW_COLUMNS}`, [workspaceId, resourceId])
  if (r.rows[0] === undefined) throw new NotFoundError('ssh key')
  return toView(r.rows[0])
}

/** The sealed secret of a key, opened (the managed runtime's use, workspace/ssh/runtime.ts, and tests of the box). */
export async function openSshKey(db: Sql, box: SecretBox, workspaceId: string, resourceId: string): Promise<{ private_key: string; passphrase: string }> {
  const r = await db.query<{ sealed: Uint8Array }>('SELECT sealed FROM resource_ssh_keys WHERE workspace_id = $1 AND resource_id = $2', [workspaceId, resourceId])
  if (r.rows[0] === undefined) throw new NotFoundError('ssh key')
  return JSON.parse(box.open(Buffer.from(r.rows[0].sealed), boxContext(workspaceId, resourceId)).toString('utf8')) as { private_key: string; passphrase: string }
}

/** Whether any SSH private key is sealed in the store (the launcher then refuses to invent a new sealing key). */
export async function sshKeysSealed(db: Sql): Promise<boolean> {
  const r = await db.query<{ present: boolean }>('SELECT EXISTS (SELECT 1 FROM resource_ssh_keys) AS present')
  return r.rows[0]?.present === true
}
