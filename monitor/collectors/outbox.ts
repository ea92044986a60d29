// Outbox rows for a collector's offline incident, so that alert routing sends it as it
// sends a check's: `incident.opened` when the collector is declared silent,
// `incident.closed` when it reports again or is revoked. Same table and payload schema
// as the writer's rows (insertOutbox), with `check` null and `source` set; written in the
// transaction that opens or closes the incident.
import { randomUUID } from 'node:crypto'
import type { Sql } from '../../core/index.ts'
import { PROBE_REASONS } from '../errors.ts'
import { iso } from '../rows.ts'
import { insertOutbox, type OutboxPayload } from '../writer.ts'

interface SourceIncident {
  id: string
  workspace_id: string
  resource_id: string
  source_id: string
  name: string
  closed_at: Date | null
  open_reason: string
  close_reason: string | null
}

/** Writes one outbox row of `type` for each of the collector incidents named. */
export async function writeSourceIncidentEvents(
  tx: Sql, type: 'incident.opened' | 'incident.closed', incidentIds: readonly string[], at: number,
): Promise<void> {
  if (incidentIds.length === 0) return
  const r = await tx.query<SourceIncident>(
    `SELECT i.id, i.workspace_id, i.resource_id, s.id AS source_id, s.name, i.closed_at, i.open_reason, i.close_reason
     FROM monitor_incidents i JOIN monitor_sources s ON s.id = i.source_id
     WHERE i.id = ANY($1::uuid[]) AND i.kind = 'collector_offline'`, [incidentIds])
  const opened = type === 'incident.opened'
  const occurredAt = new Date(at).toISOString()
  const payloads: OutboxPayload[] = r.rows.map((i) => ({
    schema_version: 1, event_id: randomUUID(), type, occurred_at: occurredAt,
    workspace_id: i.workspace_id, resource_id: i.resource_id, incident_id: i.id,
    check: null, source: { id: i.source_id, name: i.name },
    // The collector's reporting: silent is unknown, reporting again is healthy (its checks still need two observations each).
    health: opened ? 'unknown' : 'healthy', previous_health: opened ? 'healthy' : 'unknown',
    reason: opened ? i.open_reason : (i.close_reason ?? 'closed'), code: PROBE_REASONS.collectorSilent, latency_ms: null,
    // opened_at is set from the incident row by insertOutbox.
    opened_at: occurredAt, closed_at: iso(i.closed_at),
  }))
  if (payloads.length === 0) return
  await insertOutbox(tx, payloads)
  await tx.query(
    `UPDATE monitor_incidents SET ${opened ? 'notified_open' : 'notified_close'} = true WHERE id = ANY($1::uuid[])`,
    [payloads.map((p) => p.incident_id)])
}
