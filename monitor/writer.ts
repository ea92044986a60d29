// Persists a batch of observations in one transaction. The state UPDATE is
// fenced: it only lands where the check still has the revision the probe ran
// with, this worker still holds it under the same epoch, and this worker's
// lease has not expired.
// Only accepted observations get their result row, transition, incident
// change and outbox row, so a fenced-off result changes nothing at all.
import { randomUUID } from 'node:crypto'
import type { Database, Sql } from '../core/index.ts'
import type { Health } from './kinds.ts'
import type { Outcome } from './probes/outcome.ts'
import type { LogEvidence } from './probes/log.ts'
import { recordUptime } from './uptime.ts'
import type { CheckState, Effects } from './state.ts'

export interface CheckIdentity {
  id: string
  workspaceId: string
  resourceId: string
  name: string
  kind: string
  required: boolean
}

export interface PendingResult {
  check: CheckIdentity
  revision: number
  epoch: number
  observedAt: number
  outcome: Outcome
  prev: CheckState
  next: CheckState
  effects: Effects
}

/** The outbox row's payload (schema_version 1; documented in monitor/README.md). */
export interface OutboxPayload {
  schema_version: 1
  event_id: string
  type: 'incident.opened' | 'incident.closed'
  occurred_at: string
  workspace_id: string
  resource_id: string
  incident_id: string
  /** What the incident is about: a check, or (kind collector_offline) a collector that went silent. */
  check: { id: string; name: string; kind: string; required: boolean } | null
  source?: { id: string; name: string }
  health: Health
  previous_health: Health
  reason: string
  code: string
  latency_ms: number | null
  opened_at: string
  closed_at: string | null
  /** Log checks: the count, window, sample lines and explorer link of the deciding observation. */
  log?: LogEvidence
}

const iso = (n: number) => new Date(n).toISOString()

/**
 * Most observations per statement. The embedded database runs each statement on the event loop:
 * a few hundred rows in one would hold up every probe for well over 50 ms, so a batch is written
 * as several statements in its one transaction, with a turn for timers and sockets between them.
 */
export const WRITE_CHUNK = 100
const yieldTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

export async function writeResults(db: Database, worker: string, now: number, batch: readonly PendingResult[]): Promise<Set<PendingResult>> {
  return db.transaction(async (tx) => {
    const ok = new Set<string>()
    for (let i = 0; i < batch.length; i += WRITE_CHUNK) {
      if (i > 0 && db.embedded) await yieldTurn()
      for (const k of await writeChunk(tx, worker, now, batch.slice(i, i + WRITE_CHUNK))) ok.add(k)
    }
    const accepted = new Set(batch.filter((p) => ok.has(`${p.check.id}/${p.revision}/${p.epoch}`)))
    if (accepted.size > 0) await recordUptime(tx, [...accepted].map((p) => ({ id: p.check.id, observed_at: iso(p.observedAt), status: p.outcome.status })))
    if (accepted.size > 0) {
      if (db.embedded) await yieldTurn()
      await insertEffects(tx, accepted)
    }
    return accepted
  })
}

/** The fenced state update and result rows of some observations; returns id/revision/epoch of those that landed. */
async function writeChunk(tx: Sql, worker: string, now: number, batch: readonly PendingResult[]): Promise<string[]> {
  const rows = batch.map((p) => ({
    id: p.check.id, revision: p.revision, epoch: p.epoch,
    health: p.next.health, health_since: iso(p.next.healthSince), candidate: p.next.candidate, streak: p.next.streak,
    status: p.outcome.status, code: p.outcome.code, reason: p.outcome.reason, latency: p.outcome.latencyMs,
    details: p.outcome.details, observed_at: iso(p.observedAt),
    incident: p.next.openIncidentId, notified: p.next.incidentNotified,
  }))
  // One statement: the fenced state update, and a result row for each update that landed.
  const r = await tx.query<{ id: string; revision: number; epoch: number }>(
    `WITH v AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, revision integer, epoch integer, health text, health_since timestamptz,
         candidate text, streak integer, status text, code text, reason text, latency double precision, details jsonb,
         observed_at timestamptz, incident uuid, notified boolean)),
     up AS (
       UPDATE monitor_checks c SET health = v.health, health_since = v.health_since, candidate = v.candidate, streak = v.streak,
         last_status = v.status, last_code = v.code, last_reason = v.reason, last_latency_ms = v.latency, last_details = v.details,
         last_observed_at = v.observed_at, open_incident_id = v.incident, incident_notified = v.notified
       FROM v
       WHERE c.id = v.id AND c.revision = v.revision AND c.lease_epoch = v.epoch AND c.lease_owner = $2
         AND EXISTS (SELECT 1 FROM monitor_workers w WHERE w.id = $2 AND w.lease_until > $3)
       RETURNING c.id, c.revision, c.lease_epoch AS epoch),
     res AS (
       INSERT INTO monitor_results (check_id, observed_at, revision, status, code, reason, latency_ms, details, worker)
       SELECT v.id, v.observed_at, v.revision, v.status, v.code, v.reason, v.latency, v.details, $2
       FROM v JOIN up ON up.id = v.id AND up.revision = v.revision AND up.epoch = v.epoch)
     SELECT id, revision, epoch FROM up`,
    [JSON.stringify(rows), worker, iso(now)])
  return r.rows.map((x) => `${x.id}/${x.revision}/${x.epoch}`)
}

function transitionReason(p: PendingResult): string {
  return p.effects.stale ? `no observation for too long: confirmation starts over (${p.outcome.reason})` : p.outcome.reason
}

/** Transitions, incidents and outbox rows of accepted observations (also used for collector observations). */
export async function insertEffects(tx: Sql, accepted: ReadonlySet<PendingResult>): Promise<void> {
  const transitions: unknown[] = []
  const opens: unknown[] = []
  const closes: unknown[] = []
  const notifiedLate: string[] = []
  const outbox: OutboxPayload[] = []
  for (const p of accepted) {
    const at = iso(p.observedAt)
    const e = p.effects
    if (e.transition !== null) {
      transitions.push({ ws: p.check.workspaceId, rid: p.check.resourceId, cid: p.check.id, f: e.transition.from, t: e.transition.to, reason: transitionReason(p), at })
    }
    if (e.openIncident !== null) {
      opens.push({ id: e.openIncident, ws: p.check.workspaceId, rid: p.check.resourceId, cid: p.check.id, at, reason: p.outcome.reason, notified: p.next.incidentNotified, log: p.outcome.details?.log ?? null })
    }
    if (e.closeIncident !== null) closes.push({ id: e.closeIncident, at, reason: p.outcome.reason, notified: e.notify === 'incident.closed' })
    if (e.notify === 'incident.opened' && e.openIncident === null && p.next.openIncidentId !== null) notifiedLate.push(p.next.openIncidentId)
    if (e.notify !== null) {
      const incidentId = (e.notify === 'incident.opened' ? p.next.openIncidentId : e.closeIncident) as string
      const payload: OutboxPayload = {
        schema_version: 1, event_id: randomUUID(), type: e.notify, occurred_at: at,
        workspace_id: p.check.workspaceId, resource_id: p.check.resourceId, incident_id: incidentId,
        check: { id: p.check.id, name: p.check.name, kind: p.check.kind, required: p.check.required },
        health: p.next.health, previous_health: p.prev.health, reason: p.outcome.reason, code: p.outcome.code,
        // opened_at is filled from the incident row below (a deferred or closing notice is later than the opening).
        latency_ms: p.outcome.latencyMs, opened_at: at, closed_at: e.notify === 'incident.closed' ? at : null,
        ...(p.outcome.details?.log !== undefined ? { log: p.outcome.details.log as LogEvidence } : {}),
      }
      outbox.push(payload)
    }
  }
  if (transitions.length > 0) {
    await tx.query(
      `INSERT INTO monitor_transitions (workspace_id, resource_id, check_id, from_health, to_health, reason, at)
       SELECT v.ws, v.rid, v.cid, v.f, v.t, v.reason, v.at
       FROM jsonb_to_recordset($1::jsonb) AS v(ws uuid, rid uuid, cid uuid, f text, t text, reason text, at timestamptz)`,
      [JSON.stringify(transitions)])
  }
  if (opens.length > 0) {
    await tx.query(
      `INSERT INTO monitor_incidents (id, workspace_id, resource_id, check_id, opened_at, open_reason, notified_open, open_log)
       SELECT v.id, v.ws, v.rid, v.cid, v.at, v.reason, v.notified, v.log
       FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, ws uuid, rid uuid, cid uuid, at timestamptz, reason text, notified boolean, log jsonb)`,
      [JSON.stringify(opens)])
  }
  if (closes.length > 0) {
    await tx.query(
      `UPDATE monitor_incidents i SET closed_at = v.at, close_reason = v.reason, notified_close = v.notified
       FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, at timestamptz, reason text, notified boolean)
       WHERE i.id = v.id AND i.closed_at IS NULL`, [JSON.stringify(closes)])
  }
  if (notifiedLate.length > 0) {
    await tx.query('UPDATE monitor_incidents SET notified_open = true WHERE id = ANY($1::uuid[])', [notifiedLate])
  }
  await insertOutbox(tx, outbox)
}

/**
 * Outbox rows of a check's or a collector's incidents (check_id null for a collector's).
 * One row per incident and type, whatever happens: the unique key makes a replay a no-op.
 * `opened_at` comes from the incident row (a deferred or closing notice is later than the opening).
 */
export async function insertOutbox(tx: Sql, payloads: readonly OutboxPayload[]): Promise<void> {
  if (payloads.length === 0) return
  await tx.query(
    `INSERT INTO monitor_outbox (event_id, type, workspace_id, resource_id, check_id, incident_id, occurred_at, payload)
     SELECT (v.p->>'event_id')::uuid, v.p->>'type', (v.p->>'workspace_id')::uuid, (v.p->>'resource_id')::uuid,
            (v.p->'check'->>'id')::uuid, (v.p->>'incident_id')::uuid, (v.p->>'occurred_at')::timestamptz,
            v.p || jsonb_build_object('opened_at', to_char(i.opened_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
     FROM jsonb_array_elements($1::jsonb) AS v(p) JOIN monitor_incidents i ON i.id = (v.p->>'incident_id')::uuid
     ON CONFLICT (incident_id, type) DO NOTHING`, [JSON.stringify(payloads)])
}
