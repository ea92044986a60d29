// Deleting a check: its configuration and observations go; its incidents and
// transitions stay as history. An open incident is closed in the same
// transaction, with its incident.closed outbox row when its opening was
// notified (alert routing then stops reminding and escalating). The change
// number moves, so the monitor process holding the check sees its share
// change, re-reads what it holds and drops the check (lease-cycle.ts).
import { randomUUID } from 'node:crypto'
import type { Database } from '../core/index.ts'
import { PROBE_REASONS } from './errors.ts'
import { lockCheck } from './store.ts'
import { insertOutbox } from './writer.ts'
import type { Health } from './kinds.ts'

export interface Deleted { id: string; deleted: true; closed_incident_id: string | null }

const REASON = 'the check was deleted'

export async function deleteCheck(db: Database, workspaceId: string, resourceId: string, id: string, revision: number, now: number): Promise<Deleted> {
  return db.transaction(async (tx) => {
    const at = new Date(now).toISOString()
    const row = await lockCheck(tx, workspaceId, id, resourceId, revision)
    let closed: string | null = null
    if (row.open_incident_id !== null) {
      const r = await tx.query<{ id: string; notified_open: boolean }>(
        `UPDATE monitor_incidents SET closed_at = $2, close_reason = $3, notified_close = notified_open
         WHERE id = $1 AND closed_at IS NULL RETURNING id, notified_open`, [row.open_incident_id, at, REASON])
      const incident = r.rows[0]
      if (incident !== undefined) {
        closed = incident.id
        if (incident.notified_open) {
          await insertOutbox(tx, [{
            schema_version: 1, event_id: randomUUID(), type: 'incident.closed', occurred_at: at,
            workspace_id: row.workspace_id, resource_id: row.resource_id, incident_id: incident.id,
            check: { id: row.id, name: row.name, kind: row.kind, required: row.required },
            health: 'unknown', previous_health: row.health as Health, reason: REASON, code: PROBE_REASONS.checkDeleted,
            latency_ms: null, opened_at: at, closed_at: at,
          }])
        }
      }
    }
    await tx.query('DELETE FROM monitor_results WHERE check_id = $1', [id])
    await tx.query('DELETE FROM monitor_uptime_hours WHERE check_id = $1', [id])
    await tx.query('DELETE FROM monitor_checks WHERE id = $1', [id])
    await tx.query("SELECT nextval('monitor_change_seq')")
    return { id, deleted: true, closed_incident_id: closed }
  })
}
