// The portal connection of a desktop workspace: one row, its token sealed with
// the service's secret box (never returned), the portal's workspace UUID (the
// shared workspace id), the features it offers and the sync's last outcome.
import type { Sql } from '../../core/index.ts'
import type { SecretBox } from '../../core/index.ts'
import { dropLocalNumbers, forgetSharedIds, markPortalShared, setSharedId, unmarkPortalShared } from '../../workspace/index.ts'
import { ConflictError } from '../../core/index.ts'

export const PORTAL_STATES = { connected: 'connected', offline: 'offline', error: 'error', disconnected: 'disconnected' } as const
export type PortalState = (typeof PORTAL_STATES)[keyof typeof PORTAL_STATES]

export interface ConnectionRow {
  workspace_id: string
  url: string
  portal_workspace_id: string
  token_box: Buffer
  token_key_id: string
  scopes: string[]
  features: string[]
  state: PortalState
  last_error: string | null
  last_error_at: string | null
  last_sync_at: string | null
  last_attempt_at: string | null
  pull_cursor: string | null
  connected_at: string
}

const iso = (c: string) => `to_char(${c} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS ${c}`
const COLS = `workspace_id, url, portal_workspace_id, token_box, token_key_id, scopes, features, state, last_error,
  ${iso('last_error_at')}, ${iso('last_sync_at')}, ${iso('last_attempt_at')}, pull_cursor, ${iso('connected_at')}`

const context = (workspaceId: string) => `portal-connection:${workspaceId}`

export async function readConnection(db: Sql, workspaceId: string): Promise<ConnectionRow | undefined> {
  const r = await db.query<ConnectionRow>(`SELECT ${COLS} FROM portal_connection WHERE workspace_id = $1`, [workspaceId])
  return r.rows[0]
}

export async function listConnections(db: Sql): Promise<ConnectionRow[]> {
  return (await db.query<ConnectionRow>(`SELECT ${COLS} FROM portal_connection ORDER BY connected_at`)).rows
}

export function openToken(box: SecretBox, row: ConnectionRow): string {
  return box.open(Buffer.from(row.token_box), context(row.workspace_id)).toString('utf8')
}

export interface NewConnection {
  url: string
  token: string
  portalWorkspaceId: string
  scopes: string[]
  features: string[]
}

/**
 * Saves the connection and marks the workspace shared. Tasks that never reached
 * the portal lose their local numbers: the portal supplies numbers from now on
 * (spec: an unsynced shared task has number null until the portal supplies it).
 */
export async function saveConnection(tx: Sql, box: SecretBox, workspaceId: string, c: NewConnection): Promise<void> {
  const sealed = box.seal(Buffer.from(c.token, 'utf8'), context(workspaceId))
  await tx.query(
    `INSERT INTO portal_connection (workspace_id, url, portal_workspace_id, token_box, token_key_id, scopes, features, state)
     VALUES ($1, $2, $3, $4, $5, $6, $7, 'connected')
     ON CONFLICT (workspace_id) DO UPDATE SET url = EXCLUDED.url, portal_workspace_id = EXCLUDED.portal_workspace_id,
       token_box = EXCLUDED.token_box, token_key_id = EXCLUDED.token_key_id, scopes = EXCLUDED.scopes, features = EXCLUDED.features,
       state = 'connected', last_error = NULL, last_error_at = NULL, connected_at = now()`,
    [workspaceId, c.url, c.portalWorkspaceId, sealed, box.keyId, c.scopes, c.features])
  await markPortalShared(tx, workspaceId)
  // From now on the workspace is named and shown by the portal's uuid (the shared workspace id).
  await setSharedId(tx, workspaceId, c.portalWorkspaceId)
  const synced = await tx.query<{ local_id: string }>('SELECT local_id FROM portal_items WHERE workspace_id = $1 AND portal_id IS NOT NULL', [workspaceId])
  await dropLocalNumbers(tx, workspaceId, synced.rows.map((r) => r.local_id))
}

/**
 * Forgets the connection and its token. The id map, the synced items and the
 * outbox stay, so reconnecting to the same portal workspace carries on; local
 * numbering resumes after the highest number the workspace holds.
 */
export async function deleteConnection(tx: Sql, workspaceId: string): Promise<boolean> {
  const r = await tx.query('DELETE FROM portal_connection WHERE workspace_id = $1 RETURNING 1', [workspaceId])
  await setSharedId(tx, workspaceId, null)
  await unmarkPortalShared(tx, workspaceId)
  return r.rows.length > 0
}

/** The outcome of an attempt to reach the portal (a round, or a portal read): the status shows the last attempt. */
export async function recordOutcome(db: Sql, workspaceId: string, state: PortalState, error: string | null, roundDone = false): Promise<void> {
  if (error === null) {
    // Reached: a stale error goes; a finished round is the last sync.
    await db.query(
      `UPDATE portal_connection SET state = $2, last_attempt_at = now(), last_error = NULL, last_error_at = NULL,
         last_sync_at = CASE WHEN $3::boolean THEN now() ELSE last_sync_at END WHERE workspace_id = $1`, [workspaceId, state, roundDone])
  } else {
    await db.query(`UPDATE portal_connection SET state = $2, last_error = $3, last_error_at = now(), last_attempt_at = now() WHERE workspace_id = $1`,
      [workspaceId, state, error])
  }
}

/**
 * Connections saved by a version that kept the shared id only here: their
 * workspaces are presented under it from this start on (idempotent).
 */
export async function presentSharedIds(db: Sql): Promise<void> {
  const r = await db.query<{ workspace_id: string; portal_workspace_id: string }>('SELECT workspace_id, portal_workspace_id FROM portal_connection')
  for (const c of r.rows) {
    // Two local workspaces on one portal workspace (never made by this version): the first keeps the shared id.
    await setSharedId(db, c.workspace_id, c.portal_workspace_id).catch((err: unknown) => {
      if (!(err instanceof ConflictError)) throw err
    })
  }
  forgetSharedIds(db)
}

/** Whether a portal connection (its token sealed) is stored (the launcher then refuses to invent a new sealing key). */
export async function portalTokenSealed(db: Sql): Promise<boolean> {
  const r = await db.query<{ present: boolean }>('SELECT EXISTS (SELECT 1 FROM portal_connection) AS present')
  return r.rows[0]?.present === true
}

/** Whether the workspace is connected to a portal (its project area is shared). */
export async function portalConnected(db: Sql, workspaceId: string): Promise<boolean> {
  const r = await db.query('SELECT 1 FROM portal_connection WHERE workspace_id = $1', [workspaceId])
  return r.rows.length > 0
}
