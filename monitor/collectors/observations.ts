// Observations pushed by a collector, judged by the same confirmation state
// machine as the monitor's own probes (state.ts) and written with the same
// effects (writer.ts: transitions, incidents, outbox), in one transaction per batch.
// - Idempotent: every observation id is entered in a ledger first; a resend
//   (even one racing on another api process: the primary key makes it wait and
//   then conflict) is a duplicate and changes nothing.
// - Fenced: it counts only for the check's current revision, while the check is
//   enabled and still assigned to this source.
// - Stale (older than the check's freshness window when it arrives, e.g. sent
//   from the offline buffer) or out of order: recorded as a result row, never
//   applied to health.
import type { Database, Sql } from '../../core/index.ts'
import { staleAfterMs } from '../config.ts'
import type { ProbeReason } from '../errors.ts'
import { CHECK_COLUMNS, iso, ms, type CheckRow } from '../rows.ts'
import { stateOf } from '../scheduler.ts'
import { applyObservation, type CheckState } from '../state.ts'
import { insertEffects, type PendingResult } from '../writer.ts'
import { recordUptime } from '../uptime.ts'
import type { CollectorSource } from './store.ts'

export interface CollectorObservation {
  id: string
  check_id: string
  revision: number
  observed_at: string
  status: 'up' | 'down' | 'unknown'
  code: ProbeReason
  reason: string
  latency_ms: number | null
  details: Record<string, unknown> | null
}

export const OBSERVATION_OUTCOMES = {
  applied: 'applied',
  /** Stale or out of order: a result row, no effect on health. */
  recorded: 'recorded',
  revision: 'rejected_revision',
  paused: 'rejected_paused',
  unassigned: 'rejected_unassigned',
  tooOld: 'rejected_too_old',
  future: 'rejected_future',
} as const
export type ObservationOutcome = (typeof OBSERVATION_OUTCOMES)[keyof typeof OBSERVATION_OUTCOMES]

/** Most observations in one push. */
export const MAX_OBSERVATIONS_PER_PUSH = 1000
/** Older observations are refused (the collector's buffer keeps nothing longer; the ledger outlives it). */
export const MAX_OBSERVATION_AGE_MS = 24 * 3_600_000
/** How long observation ids are remembered for deduplication. */
export const LEDGER_RETENTION_MS = 2 * MAX_OBSERVATION_AGE_MS
/** Collector clocks may run this far ahead of the server's. */
export const FUTURE_TOLERANCE_MS = 60_000

export interface PushResult {
  applied: number
  recorded: number
  duplicates: number
  rejected: { id: string; reason: ObservationOutcome }[]
}

interface Judged {
  o: CollectorObservation
  at: number
  outcome: ObservationOutcome
}

export async function acceptObservations(db: Database, source: CollectorSource, batch: readonly CollectorObservation[], now: number): Promise<PushResult> {
  return db.transaction(async (tx) => {
    const ids = batch.map((o) => o.id)
    // The ledger first: a concurrent push of the same ids waits here and then conflicts.
    const fresh = await tx.query<{ id: string }>(
      `INSERT INTO monitor_collector_observations (id, source_id, check_id, outcome, received_at)
       SELECT v.id, $2, v.check_id, 'applied', $3 FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, check_id uuid)
       ON CONFLICT (id) DO NOTHING RETURNING id`,
      [JSON.stringify(batch.map((o) => ({ id: o.id, check_id: o.check_id }))), source.id, iso(new Date(now))])
    const isNew = new Set(fresh.rows.map((r) => r.id))
    const todo = batch.filter((o) => isNew.has(o.id))
    const rows = await lockChecks(tx, source, [...new Set(todo.map((o) => o.check_id))])
    const judged = judge(rows, todo, now)
    const applied = judged.pending
    await writeState(tx, applied)
    await insertResults(tx, source, judged.all.filter((j) => j.outcome === 'applied' || j.outcome === 'recorded'))
    if (applied.length > 0) await insertEffects(tx, new Set(applied))
    const rejected = judged.all.filter((j) => j.outcome !== 'applied' && j.outcome !== 'recorded')
    const notApplied = judged.all.filter((j) => j.outcome !== 'applied')
    if (notApplied.length > 0) {
      await tx.query(
        `UPDATE monitor_collector_observations l SET outcome = v.outcome FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, outcome text) WHERE l.id = v.id`,
        [JSON.stringify(notApplied.map((j) => ({ id: j.o.id, outcome: j.outcome })))])
    }
    return {
      applied: applied.length,
      recorded: judged.all.filter((j) => j.outcome === 'recorded').length,
      duplicates: batch.length - todo.length,
      rejected: rejected.map((j) => ({ id: j.o.id, reason: j.outcome })),
    }
  })
}

async function lockChecks(tx: Sql, source: CollectorSource, ids: string[]): Promise<Map<string, CheckRow>> {
  if (ids.length === 0) return new Map()
  // Sorted lock order: two pushes touching the same checks cannot deadlock.
  const r = await tx.query<CheckRow>(
    `SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE id = ANY($1::uuid[]) AND source_id = $2 AND location = 'collector'
       AND workspace_id = $3 ORDER BY id FOR UPDATE`, [ids, source.id, source.workspaceId])
  return new Map(r.rows.map((row) => [row.id, row]))
}

/** Each check's observations in time order through the state machine; the fence decides first. */
function judge(rows: Map<string, CheckRow>, todo: readonly CollectorObservation[], now: number): { all: Judged[]; pending: PendingResult[] } {
  const all: Judged[] = todo.map((o) => ({ o, at: Date.parse(o.observed_at), outcome: OBSERVATION_OUTCOMES.applied }))
  all.sort((a, b) => (a.o.check_id < b.o.check_id ? -1 : a.o.check_id > b.o.check_id ? 1 : a.at - b.at))
  const pending: PendingResult[] = []
  const states = new Map<string, CheckState>()
  for (const j of all) {
    const row = rows.get(j.o.check_id)
    if (row === undefined) j.outcome = OBSERVATION_OUTCOMES.unassigned
    else if (!row.enabled) j.outcome = OBSERVATION_OUTCOMES.paused
    else if (j.o.revision !== row.revision) j.outcome = OBSERVATION_OUTCOMES.revision
    else if (j.at > now + FUTURE_TOLERANCE_MS) j.outcome = OBSERVATION_OUTCOMES.future
    else if (j.at < now - MAX_OBSERVATION_AGE_MS) j.outcome = OBSERVATION_OUTCOMES.tooOld
    if (row === undefined || j.outcome !== OBSERVATION_OUTCOMES.applied) continue
    const prev = states.get(row.id) ?? stateOf(row)
    const window = staleAfterMs(row.interval_ms, row.timeout_ms, row.grace_ms)
    // Evidence from too long ago (or older than what was already judged) vouches for nothing now.
    if (now - j.at > window || (prev.lastObservedAt !== null && j.at <= prev.lastObservedAt)) {
      j.outcome = OBSERVATION_OUTCOMES.recorded
      continue
    }
    const { next, effects } = applyObservation(prev, j.o.status, {
      at: j.at, required: row.required, inMaintenance: (ms(row.maintenance_until) ?? 0) > j.at, staleAfterMs: window, missingCounts: false,
    })
    states.set(row.id, next)
    pending.push({
      check: { id: row.id, workspaceId: row.workspace_id, resourceId: row.resource_id, name: row.name, kind: row.kind, required: row.required },
      revision: row.revision, epoch: row.lease_epoch, observedAt: j.at,
      outcome: { status: j.o.status, code: j.o.code, reason: j.o.reason, latencyMs: j.o.latency_ms, details: j.o.details },
      prev, next, effects,
    })
  }
  return { all, pending }
}

/** The last applied observation of each check becomes its state (rows are locked, so no fence is needed beyond it). */
async function writeState(tx: Sql, applied: readonly PendingResult[]): Promise<void> {
  const last = new Map<string, PendingResult>()
  for (const p of applied) last.set(p.check.id, p)
  if (last.size === 0) return
  const rows = [...last.values()].map((p) => ({
    id: p.check.id, revision: p.revision, health: p.next.health, health_since: iso(new Date(p.next.healthSince)), candidate: p.next.candidate,
    streak: p.next.streak, status: p.outcome.status, code: p.outcome.code, reason: p.outcome.reason, latency: p.outcome.latencyMs,
    details: p.outcome.details, observed_at: iso(new Date(p.observedAt)), incident: p.next.openIncidentId, notified: p.next.incidentNotified,
  }))
  await tx.query(
    `UPDATE monitor_checks c SET health = v.health, health_since = v.health_since, candidate = v.candidate, streak = v.streak,
       last_status = v.status, last_code = v.code, last_reason = v.reason, last_latency_ms = v.latency, last_details = v.details,
       last_observed_at = v.observed_at, open_incident_id = v.incident, incident_notified = v.notified
     FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, revision integer, health text, health_since timestamptz, candidate text, streak integer,
       status text, code text, reason text, latency double precision, details jsonb, observed_at timestamptz, incident uuid, notified boolean)
     WHERE c.id = v.id AND c.revision = v.revision`, [JSON.stringify(rows)])
}

async function insertResults(tx: Sql, source: CollectorSource, judged: readonly Judged[]): Promise<void> {
  if (judged.length === 0) return
  const rows = judged.map((j) => ({
    id: j.o.check_id, observed_at: j.o.observed_at, revision: j.o.revision, status: j.o.status, code: j.o.code, reason: j.o.reason,
    latency: j.o.latency_ms,
    details: j.outcome === 'recorded' ? { ...(j.o.details ?? {}), applied: false } : j.o.details,
  }))
  await tx.query(
    `INSERT INTO monitor_results (check_id, observed_at, revision, status, code, reason, latency_ms, details, worker)
     SELECT v.id, v.observed_at, v.revision, v.status, v.code, v.reason, v.latency, v.details, $2
     FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, observed_at timestamptz, revision integer, status text, code text, reason text,
       latency double precision, details jsonb)`, [JSON.stringify(rows), `collector:${source.id}`])
  await recordUptime(tx, rows)
}

/** Forgets observation ids older than the ledger's retention (chunked like result pruning). */
export async function pruneObservationLedger(db: Sql, now: number, limit: number): Promise<number> {
  const r = await db.query(
    `DELETE FROM monitor_collector_observations WHERE ctid IN (
       SELECT ctid FROM monitor_collector_observations WHERE received_at < $1 LIMIT $2)`, [iso(new Date(now - LEDGER_RETENTION_MS)), limit])
  return r.rowCount
}
