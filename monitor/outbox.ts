// Draining the monitor's durable outbox (one row per incident opening or
// closing; writer.ts fills it): the alert dispatcher claims a batch and marks
// it processed in its own transaction, so a row is dispatched exactly once.
import type { Sql } from '../core/index.ts'
import type { OutboxPayload } from './writer.ts'

export interface OutboxEntry {
  id: string
  event_id: string
  type: 'incident.opened' | 'incident.closed'
  payload: OutboxPayload
  occurred_at: Date
}

/** The oldest unprocessed rows, locked for the caller's transaction (rows another transaction holds are skipped). */
export async function claimOutbox(tx: Sql, limit: number): Promise<OutboxEntry[]> {
  const r = await tx.query<OutboxEntry>(
    `SELECT id::text AS id, event_id, type, payload, occurred_at FROM monitor_outbox
     WHERE processed_at IS NULL ORDER BY id LIMIT $1 FOR UPDATE SKIP LOCKED`, [limit])
  return r.rows
}

/** Marks claimed rows processed by this worker at this time (ISO). */
export async function markOutboxProcessed(tx: Sql, ids: readonly string[], at: string, worker: string): Promise<void> {
  if (ids.length === 0) return
  await tx.query(`UPDATE monitor_outbox SET processed_at = $2, claimed_by = $3, claimed_until = $2 WHERE id = ANY($1::bigint[])`, [[...ids], at, worker])
}
