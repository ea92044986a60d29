// Alert deliveries: queued once per (event, destination) by a unique dedupe
// key, so a replayed outbox row or timer never alerts twice; listed with
// every attempt in the monitoring `deliveries` view.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../core/index.ts'
import type { CursorCodec } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import { addressHint, type Channel } from './channels.ts'
import type { AlertEventType, AlertMessage, DeliveryReason } from './messages.ts'

export const DELIVERY_STATES = ['queued', 'delivered', 'failed', 'cancelled'] as const
export type DeliveryState = (typeof DELIVERY_STATES)[number]

export interface NewDelivery {
  workspaceId: string
  resourceId: string | null
  destinationId: string
  channel: Channel
  incidentId: string | null
  eventType: AlertEventType
  reason: DeliveryReason
  dedupeKey: string
  message: AlertMessage
  now: number
}

/** Queues a delivery; null when one with the same dedupe key exists already. */
export async function queueDelivery(tx: Sql, d: NewDelivery): Promise<string | null> {
  const at = new Date(d.now).toISOString()
  const r = await tx.query<{ id: string }>(
    `INSERT INTO alert_deliveries (id, workspace_id, resource_id, destination_id, incident_id, event_type, reason, dedupe_key, channel, message,
       next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10::jsonb, $11, $11) ON CONFLICT (dedupe_key) DO NOTHING RETURNING id`,
    [randomUUID(), d.workspaceId, d.resourceId, d.destinationId, d.incidentId, d.eventType, d.reason, d.dedupeKey, d.channel,
      JSON.stringify(d.message), at])
  return r.rows[0]?.id ?? null
}

/** Cancels queued deliveries matching a condition (a paused or removed destination, an acknowledged incident). */
export async function cancelQueued(tx: Sql, where: { destinationId?: string; incidentId?: string; reasons: readonly DeliveryReason[] }, why: string): Promise<number> {
  const r = await tx.query(
    `UPDATE alert_deliveries SET state = 'cancelled', last_error = $4, claimed_by = NULL, claimed_until = NULL
     WHERE state = 'queued' AND reason = ANY($3::text[])
       AND ($1::uuid IS NULL OR destination_id = $1) AND ($2::uuid IS NULL OR incident_id = $2)`,
    [where.destinationId ?? null, where.incidentId ?? null, [...where.reasons], why])
  return r.rowCount
}

export interface AttemptView {
  attempt: number
  at: string
  outcome: string
  status: number | null
  error: string | null
  duration_ms: number | null
}

/** What every delivery reports about its attempts: alert deliveries and project webhook deliveries alike. */
export interface DeliveryProgress {
  attempts: number
  next_attempt_at: string | null
  last_attempt_at: string | null
  last_status: number | null
  last_error: string | null
  delivered_at: string | null
  created_at: string
}

export interface AlertDeliveryView extends DeliveryProgress {
  id: string
  incident_id: string | null
  resource_id: string | null
  event_type: AlertEventType
  reason: DeliveryReason
  channel: Channel
  destination_id: string
  /** The address hint (never the address). */
  destination: string
  destination_label: string
  /** The level of an escalation alert; null for the others. */
  escalation_level: number | null
  state: DeliveryState
  attempt_history: AttemptView[]
}

interface Row {
  id: string
  seq: string
  incident_id: string | null
  resource_id: string | null
  event_type: AlertEventType
  reason: DeliveryReason
  channel: Channel
  destination_id: string
  address: string
  label: string
  escalation_level: number | null
  state: DeliveryState
  attempts: number
  next_attempt_at: Date
  last_attempt_at: Date | null
  last_status: number | null
  last_error: string | null
  delivered_at: Date | null
  created_at: Date
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString())
/** Attempts shown per delivery: the most recent ones. */
const HISTORY = 20

async function attemptsOf(db: Sql, ids: readonly string[]): Promise<Map<string, AttemptView[]>> {
  const out = new Map<string, AttemptView[]>()
  if (ids.length === 0) return out
  const r = await db.query<{ delivery_id: string; attempt: number; at: Date; outcome: string; status: number | null; error: string | null; duration_ms: number | null }>(
    `SELECT delivery_id, attempt, at, outcome, status, error, duration_ms FROM (
       SELECT a.*, row_number() OVER (PARTITION BY delivery_id ORDER BY attempt DESC) AS n FROM alert_delivery_attempts a WHERE delivery_id = ANY($1::uuid[])
     ) x WHERE n <= ${HISTORY} ORDER BY delivery_id, attempt`, [[...ids]])
  for (const a of r.rows) {
    const list = out.get(a.delivery_id) ?? []
    list.push({ attempt: a.attempt, at: iso(a.at) as string, outcome: a.outcome, status: a.status, error: a.error, duration_ms: a.duration_ms })
    out.set(a.delivery_id, list)
  }
  return out
}

/** A page of a resource's alert deliveries, newest first. */
export async function listDeliveries(db: Sql, ws: string, rid: string, limit: number, beforeSeq: number | null): Promise<{ items: AlertDeliveryView[]; last: number | null }> {
  return selectDeliveries(db, 'd.resource_id = $2 AND ($3::bigint IS NULL OR d.seq < $3::bigint)', [ws, rid, beforeSeq === null ? null : String(beforeSeq)], limit)
}

/** The newest alert deliveries of incidents on the granted resources (null: all), for the overview. */
export async function recentIncidentDeliveries(db: Sql, ws: string, grant: readonly string[] | null, limit: number): Promise<{ items: AlertDeliveryView[]; more: boolean }> {
  const page = await selectDeliveries(db, 'd.incident_id IS NOT NULL AND ($2::uuid[] IS NULL OR d.resource_id = ANY($2::uuid[]))',
    [ws, grant === null ? null : [...grant]], limit)
  return { items: page.items, more: page.last !== null }
}

/** Every delivery of one incident, oldest first (its timeline). */
export async function deliveriesOfIncident(db: Sql, ws: string, incidentId: string, limit: number): Promise<AlertDeliveryView[]> {
  return (await selectDeliveries(db, 'd.incident_id = $2', [ws, incidentId], limit, 'ASC')).items
}

/** `where` uses $1 = workspace and its own parameters after it. */
async function selectDeliveries(db: Sql, where: string, params: unknown[], limit: number, order: 'ASC' | 'DESC' = 'DESC'): Promise<{ items: AlertDeliveryView[]; last: number | null }> {
  const r = await db.query<Row>(
    `SELECT d.id, d.seq::text AS seq, d.incident_id, d.resource_id, d.event_type, d.reason, d.channel, d.destination_id, dest.address, dest.label,
       (d.message->'event'->>'escalation_level')::int AS escalation_level,
       d.state, d.attempts, d.next_attempt_at, d.last_attempt_at, d.last_status, d.last_error, d.delivered_at, d.created_at
     FROM alert_deliveries d JOIN alert_destinations dest ON dest.id = d.destination_id
     WHERE d.workspace_id = $1 AND ${where}
     ORDER BY d.seq ${order} LIMIT $${params.length + 1}`, [...params, limit + 1])
  const rows = r.rows.slice(0, limit)
  const history = await attemptsOf(db, rows.map((x) => x.id))
  const items = rows.map((d): AlertDeliveryView => ({
    id: d.id, incident_id: d.incident_id, resource_id: d.resource_id, event_type: d.event_type, reason: d.reason, channel: d.channel,
    destination_id: d.destination_id, destination: addressHint(d.channel, d.address), destination_label: d.label, escalation_level: d.escalation_level, state: d.state, attempts: d.attempts,
    next_attempt_at: d.state === 'queued' ? iso(d.next_attempt_at) : null, last_attempt_at: iso(d.last_attempt_at),
    last_status: d.last_status, last_error: d.last_error, delivered_at: iso(d.delivered_at), created_at: iso(d.created_at) as string,
    attempt_history: history.get(d.id) ?? [],
  }))
  const last = rows[rows.length - 1]
  return { items, last: r.rows.length > limit && last !== undefined ? Number(last.seq) : null }
}

const CURSOR_KIND = 'monitor-deliveries'

/**
 * The body of GET P/resources/{id}/monitoring?view=deliveries (the monitoring
 * route calls this): every alert delivery of the resource with its attempts.
 */
export async function alertDeliveriesView(db: Sql, cursors: CursorCodec, ws: string, rid: string, limit: number, cursor: string | undefined) {
  let before: number | null = null
  if (cursor !== undefined) {
    const v = cursors.decode(CURSOR_KIND, cursor)
    if (v === null || v.length !== 1 || typeof v[0] !== 'number') throw new RequestInvalid([detail(['query', 'cursor'], 'Invalid cursor', 'value_error')])
    before = v[0]
  }
  const page = await listDeliveries(db, ws, rid, limit, before)
  return { view: 'deliveries' as const, resource_id: rid, items: page.items, next_cursor: page.last === null ? null : cursors.encode(CURSOR_KIND, [page.last]) }
}
