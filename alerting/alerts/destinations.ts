// Alert destinations: where alerts go (a channel and an address), who may see
// them (shared with the workspace, or personal to the subscriber who saved
// them), and whether they may be used (verified, not paused, not removed).
import type { Sql } from '../../core/index.ts'
import { addressHint, type Channel } from './channels.ts'

export interface DestinationRow {
  id: string
  workspace_id: string
  owner: string
  shared: boolean
  label: string
  channel: Channel
  address: string
  consent_at: Date | null
  verified_at: Date | null
  paused: boolean
  removed_at: Date | null
  code_hash: Uint8Array | null
  code_expires_at: Date | null
  code_attempts: number
  codes_window_start: Date | null
  codes_sent: number
  revision: number
  created_at: Date
  updated_at: Date
}

export interface DestinationView {
  id: string
  label: string
  channel: Channel
  /** A partial form of the address: the address itself is write-only. */
  address_hint: string
  shared: boolean
  mine: boolean
  state: 'unverified' | 'verified' | 'paused'
  verified: boolean
  verified_at: string | null
  paused: boolean
  consent: boolean
  verification: { pending: boolean; expires_at: string | null; attempts_left: number }
  revision: number
  created_at: string
  updated_at: string
}

export const CODE_ATTEMPTS = 5
const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString())

export function destinationView(d: DestinationRow, actor: string, now: number): DestinationView {
  const pending = d.code_hash !== null && d.code_expires_at !== null && new Date(d.code_expires_at).getTime() > now && d.code_attempts < CODE_ATTEMPTS
  return {
    id: d.id, label: d.label, channel: d.channel, address_hint: addressHint(d.channel, d.address), shared: d.shared, mine: d.owner === actor,
    state: d.verified_at === null ? 'unverified' : d.paused ? 'paused' : 'verified',
    verified: d.verified_at !== null, verified_at: iso(d.verified_at), paused: d.paused, consent: d.consent_at !== null,
    verification: { pending, expires_at: pending ? iso(d.code_expires_at) : null, attempts_left: pending ? CODE_ATTEMPTS - d.code_attempts : 0 },
    revision: d.revision, created_at: iso(d.created_at) as string, updated_at: iso(d.updated_at) as string,
  }
}

/** Shared destinations are the workspace's; personal ones only their owner's. */
export function visibleTo(d: DestinationRow, actor: string): boolean {
  return d.shared || d.owner === actor
}

/** The destination, locked for the transaction; undefined when missing, removed or not visible to the actor. */
export async function lockDestination(tx: Sql, ws: string, id: string, actor: string): Promise<DestinationRow | undefined> {
  const r = await tx.query<DestinationRow>('SELECT * FROM alert_destinations WHERE id = $1 AND workspace_id = $2 FOR UPDATE', [id, ws])
  const d = r.rows[0]
  if (d === undefined || d.removed_at !== null || !visibleTo(d, actor)) return undefined
  return d
}

export async function listDestinations(db: Sql, ws: string, actor: string): Promise<DestinationRow[]> {
  const r = await db.query<DestinationRow>(
    `SELECT * FROM alert_destinations WHERE workspace_id = $1 AND removed_at IS NULL AND (shared OR owner = $2)
     ORDER BY created_at, id LIMIT 500`, [ws, actor])
  return r.rows
}

/** Who an alert subscription or personal destination belongs to: the staff member behind the token, else the token (same rule as the monitoring subscription). */
export function subscriberOf(p: { staffId: number | null; tokenId: string }): string {
  return p.staffId !== null ? `staff:${p.staffId}` : `token:${p.tokenId}`
}
