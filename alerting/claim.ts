// Both delivery queues (alert deliveries, assignment webhook deliveries) hand out
// due rows the same way: a lease, taken by one statement that skips rows another
// worker holds, so several workers (and a crashed one's expired claims) share a queue.
import type { Sql } from '../core/index.ts'

export interface ClaimOptions {
  /** The queue's table: both have state, next_attempt_at, claimed_by and claimed_until. */
  table: 'alert_deliveries' | 'webhook_deliveries'
  /** The order due rows are taken in (the webhook queue keeps its events' sequence). */
  order: 'next_attempt_at' | 'next_attempt_at, seq'
  workerId: string
  /** ISO times: now, and the end of the lease. */
  now: string
  leaseUntil: string
  batch: number
}

/** Leases up to `batch` due, unclaimed (or lease-expired) queued rows; their ids. */
export async function claimDue(db: Sql, o: ClaimOptions): Promise<string[]> {
  const r = await db.query<{ id: string }>(
    `UPDATE ${o.table} d SET claimed_by = $1, claimed_until = $2
     FROM (SELECT id FROM ${o.table} WHERE state = 'queued' AND next_attempt_at <= $3 AND (claimed_until IS NULL OR claimed_until < $3)
           ORDER BY ${o.order} LIMIT $4 FOR UPDATE SKIP LOCKED) c
     WHERE d.id = c.id RETURNING d.id`, [o.workerId, o.leaseUntil, o.now, o.batch])
  return r.rows.map((x) => x.id)
}
