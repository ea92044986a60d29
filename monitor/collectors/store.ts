// What the collector routes read and write besides observations: the source a
// collector credential stands for, its contact record (last contact, version,
// address), and the checks assigned to it with a change tag for long polls.
import type { Database, Sql } from '../../core/index.ts'
import type { CredentialRef } from '../credentials.ts'
import type { Kind } from '../kinds.ts'
import { iso } from '../rows.ts'
import { writeSourceIncidentEvents } from './outbox.ts'

export interface CollectorSource {
  id: string
  workspaceId: string
  resourceId: string
  name: string
}

/** A check as the collector needs it: configuration and the credential *reference* (resolved on the collector). */
export interface CollectorCheck {
  id: string
  name: string
  kind: Kind
  revision: number
  configuration: Record<string, unknown>
  credential: CredentialRef | null
  interval_ms: number
  timeout_ms: number
  run_requested_at: string | null
}

/** The enrolled, unrevoked collector source whose credential is this token, or null. */
export async function sourceOfToken(db: Sql, tokenId: string): Promise<CollectorSource | null> {
  const r = await db.query<{ id: string; workspace_id: string; resource_id: string; name: string }>(
    `SELECT id, workspace_id, resource_id, name FROM monitor_sources WHERE token_id = $1 AND kind = 'collector' AND revoked_at IS NULL`, [tokenId])
  const s = r.rows[0]
  return s === undefined ? null : { id: s.id, workspaceId: s.workspace_id, resourceId: s.resource_id, name: s.name }
}

/**
 * Records a contact. A source that had been declared offline is back: its
 * "collector offline" incident closes in the same transaction (at most one
 * process sees offline_since set, so it closes once).
 */
export async function recordContact(db: Database, sourceId: string, version: string, address: string, now: number): Promise<void> {
  await db.transaction(async (tx) => {
    const r = await tx.query<{ was: Date | null }>(
      `UPDATE monitor_sources s SET last_contact_at = GREATEST(COALESCE(s.last_contact_at, $2::timestamptz), $2::timestamptz),
         version = $3, address = $4, offline_since = NULL
       FROM (SELECT id, offline_since AS was FROM monitor_sources WHERE id = $1 FOR UPDATE) old
       WHERE s.id = old.id RETURNING old.was`, [sourceId, iso(new Date(now)), version.slice(0, 100), address.slice(0, 100)])
    if (r.rows[0]?.was != null) {
      const closed = await tx.query<{ id: string }>(
        `UPDATE monitor_incidents SET closed_at = $2, close_reason = 'the collector is reporting again'
         WHERE source_id = $1 AND kind = 'collector_offline' AND closed_at IS NULL RETURNING id`, [sourceId, iso(new Date(now))])
      await writeSourceIncidentEvents(tx, 'incident.closed', closed.rows.map((x) => x.id), now)
    }
  })
}

/** A tag that changes whenever the set of the source's checks or any of them changes (change_seq only grows). */
export async function checksTag(db: Sql, sourceId: string): Promise<string> {
  const r = await db.query<{ n: number; seq: number | null }>(
    `SELECT count(*)::int AS n, max(change_seq)::float8 AS seq FROM monitor_checks
     WHERE source_id = $1 AND location = 'collector' AND enabled`, [sourceId])
  const row = r.rows[0] ?? { n: 0, seq: null }
  return `W/"${row.n}-${row.seq ?? 0}"`
}

/** The enabled checks assigned to the source (paused and moved checks are absent: the collector stops them). */
export async function checksOfSource(db: Sql, sourceId: string): Promise<CollectorCheck[]> {
  const r = await db.query<{
    id: string; name: string; kind: Kind; revision: number; configuration: Record<string, unknown>; credential: CredentialRef | null;
    interval_ms: number; timeout_ms: number; run_requested_at: Date | null
  }>(
    `SELECT id, name, kind, revision, configuration, credential, interval_ms, timeout_ms, run_requested_at FROM monitor_checks
     WHERE source_id = $1 AND location = 'collector' AND enabled ORDER BY id`, [sourceId])
  return r.rows.map((c) => ({ ...c, run_requested_at: iso(c.run_requested_at) }))
}
