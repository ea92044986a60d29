// Acknowledge links in alert messages: one per incident and destination,
// signed (HMAC with a server secret, so a forged link is refused before any
// lookup), single use (the row's used_at, set in the acknowledging
// transaction), and valid only while the incident is open. Confirming one
// acknowledges the incident as the person the alert was routed to: the
// destination's owner, or the shared destination itself.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Database, Sql } from '../../core/index.ts'
import { serverSecret } from '../../core/index.ts'
import { acknowledgeIncident } from './acknowledge.ts'

export const ACK_PATH = '/v1/acknowledge'
const SECRET_NAME = 'ack-links'
const ID_BYTES = 18
const MAC_BYTES = 18

export async function ackLinkKey(db: Sql): Promise<Buffer> {
  return serverSecret(db, SECRET_NAME)
}

const mac = (key: Buffer, id: string) => createHmac('sha256', key).update(`ack:${id}`).digest().subarray(0, MAC_BYTES).toString('base64url')

export interface NewAckLink {
  workspaceId: string
  resourceId: string
  incidentId: string
  destinationId: string
  acknowledger: string
  now: number
}

/** Stores a link and returns its token (`<id>.<mac>`); one per incident and destination (a repeat reuses it). */
export async function createAckLink(tx: Sql, key: Buffer, l: NewAckLink): Promise<string> {
  const id = randomBytes(ID_BYTES).toString('base64url')
  const r = await tx.query<{ id: string }>(
    `INSERT INTO alert_ack_links (id, workspace_id, resource_id, incident_id, destination_id, acknowledger, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7)
     ON CONFLICT (incident_id, destination_id) DO UPDATE SET acknowledger = alert_ack_links.acknowledger RETURNING id`,
    [id, l.workspaceId, l.resourceId, l.incidentId, l.destinationId, l.acknowledger, new Date(l.now).toISOString()])
  const stored = (r.rows[0] as { id: string }).id
  return `${stored}.${mac(key, stored)}`
}

export type AckLinkView =
  | { state: 'forged' }
  | { state: 'expired' }
  | { state: 'used'; used_at: string; acknowledged_by: string | null }
  | { state: 'valid'; incident_id: string; resource_name: string; reason: string; opened_at: string; acknowledger: string; acknowledged_by: string | null }

interface LinkRow {
  id: string; workspace_id: string; resource_id: string; incident_id: string; acknowledger: string; used_at: Date | null
  opened_at: Date | null; open_reason: string | null; closed_at: Date | null; resource_name: string | null; acknowledged_by: string | null
}

/** The id of a well-signed token, else null. */
function verified(key: Buffer, token: string): string | null {
  const dot = token.indexOf('.')
  if (dot <= 0 || token.length > 200) return null
  const id = token.slice(0, dot)
  const given = Buffer.from(token.slice(dot + 1))
  const want = Buffer.from(mac(key, id))
  return given.length === want.length && timingSafeEqual(given, want) ? id : null
}

async function lookup(db: Sql, id: string, lock: boolean): Promise<LinkRow | undefined> {
  const r = await db.query<LinkRow>(
    `SELECT l.id, l.workspace_id, l.resource_id, l.incident_id, l.acknowledger, l.used_at, mi.opened_at, mi.open_reason, mi.closed_at,
       r.name AS resource_name, ai.acknowledged_by
     FROM alert_ack_links l LEFT JOIN monitor_incidents mi ON mi.id = l.incident_id LEFT JOIN resources r ON r.id = l.resource_id
       LEFT JOIN alert_incidents ai ON ai.incident_id = l.incident_id
     WHERE l.id = $1${lock ? ' FOR UPDATE OF l' : ''}`, [id])
  return r.rows[0]
}

function viewOf(row: LinkRow | undefined): AckLinkView {
  if (row === undefined) return { state: 'expired' }
  if (row.used_at !== null) return { state: 'used', used_at: new Date(row.used_at).toISOString(), acknowledged_by: row.acknowledged_by }
  if (row.opened_at === null || row.closed_at !== null) return { state: 'expired' }
  return {
    state: 'valid', incident_id: row.incident_id, resource_name: row.resource_name ?? row.resource_id, reason: row.open_reason ?? '',
    opened_at: new Date(row.opened_at).toISOString(), acknowledger: row.acknowledger, acknowledged_by: row.acknowledged_by,
  }
}

/** What a link would do (the confirm page): never changes anything. */
export async function readAckLink(db: Sql, key: Buffer, token: string): Promise<AckLinkView> {
  const id = verified(key, token)
  return id === null ? { state: 'forged' } : viewOf(await lookup(db, id, false))
}

/** Confirms a link: acknowledges the incident as the link's person and uses the link up, in one transaction. */
export async function confirmAckLink(db: Database, key: Buffer, token: string, now: number): Promise<AckLinkView | { state: 'acknowledged'; incident_id: string; acknowledged_at: string; acknowledged_by: string }> {
  const id = verified(key, token)
  if (id === null) return { state: 'forged' }
  return db.transaction(async (tx) => {
    const row = await lookup(tx, id, true)
    const view = viewOf(row)
    if (view.state !== 'valid' || row === undefined) return view
    const r = await acknowledgeIncident(tx, row.workspace_id, row.resource_id, row.incident_id, row.acknowledger, now)
    if (r === 'missing' || r === 'closed') return { state: 'expired' as const }
    await tx.query('UPDATE alert_ack_links SET used_at = $2 WHERE id = $1', [id, new Date(now).toISOString()])
    return { state: 'acknowledged' as const, incident_id: row.incident_id, acknowledged_at: r.acknowledged_at, acknowledged_by: r.acknowledged_by }
  })
}
