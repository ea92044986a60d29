// Leases in PostgreSQL. Each monitor process holds one lease (a monitor_workers
// row it renews with a single-row UPDATE, however many checks it runs); each
// check names its holder in lease_owner. A check is free when it has no holder
// or its holder's lease has expired; claiming bumps the check's lease_epoch,
// which fences off results probed under an earlier claim. Claims use
// FOR UPDATE SKIP LOCKED and re-check the holder they saw, so two processes
// never take the same check.
import type { Sql } from '../core/index.ts'
import { SERVED_LOCATIONS } from './kinds.ts'
import { CHECK_COLUMNS, type CheckRow } from './rows.ts'

const noWait = async (): Promise<void> => undefined

const iso = (n: number) => new Date(n).toISOString()

export async function registerWorker(db: Sql, worker: string, now: number, until: number): Promise<void> {
  await db.query(
    `INSERT INTO monitor_workers (id, started_at, lease_until) VALUES ($1, $2, $3) ON CONFLICT (id) DO UPDATE SET lease_until = EXCLUDED.lease_until`,
    [worker, iso(now), iso(until)])
}

/** Extends the process lease; false when it had already expired (its checks may belong to others now). */
export async function renewWorker(db: Sql, worker: string, now: number, until: number): Promise<boolean> {
  const r = await db.query('UPDATE monitor_workers SET lease_until = $3 WHERE id = $1 AND lease_until > $2 RETURNING id', [worker, iso(now), iso(until)])
  return r.rows.length === 1
}

export async function removeWorker(db: Sql, worker: string): Promise<void> {
  await db.query('DELETE FROM monitor_workers WHERE id = $1', [worker])
}

/**
 * Forgets processes whose lease ended before `before` (crashed, killed): without it every
 * restart would leave a row behind. Safe at any time: a missing worker owns nothing
 * (its checks count as free) and cannot write, and if it comes back it rejoins under a new id.
 */
export async function purgeWorkers(db: Sql, before: number): Promise<number> {
  const r = await db.query('DELETE FROM monitor_workers WHERE lease_until < $1', [iso(before)])
  return r.rowCount
}

/**
 * What the fair share depends on, in one cheap read: the live processes and the last change
 * number handed out (every create, edit and action takes one). While both stay the same no check
 * was added, moved or freed by a process that died or left, so the counts below need not be redone.
 */
export async function shareSignature(db: Sql, now: number): Promise<string> {
  const r = await db.query<{ sig: string }>(
    `SELECT (SELECT last_value::text || ':' || is_called::text FROM monitor_change_seq) || '/' ||
            COALESCE((SELECT string_agg(id, ',' ORDER BY id) FROM monitor_workers WHERE lease_until > $1), '') AS sig`,
    [iso(now)])
  return r.rows[0]?.sig ?? ''
}

/**
 * Live processes, the checks they share, and how many this worker holds. On a server, one
 * statement per count. On the embedded database each statement runs on the event loop and a
 * count over 50,000 checks takes about 100 ms there: both counts are taken in one pass over
 * the checks in `page`-row slices by id, `between` (a yield) after each.
 */
export async function shareOf(
  db: Sql, worker: string, now: number, between: () => Promise<void> = noWait, page = 0,
): Promise<{ workers: number; total: number; mine: number }> {
  const w = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_workers WHERE lease_until > $1', [iso(now)])
  const workers = Math.max(1, w.rows[0]?.n ?? 1)
  await between()
  if (page > 0) return { workers, ...await countsInSlices(db, worker, page, between) }
  const t = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_checks WHERE location = ANY($1::text[])', [SERVED_LOCATIONS])
  await between()
  const m = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_checks WHERE lease_owner = $1', [worker])
  return { workers, total: t.rows[0]?.n ?? 0, mine: m.rows[0]?.n ?? 0 }
}

interface SliceCounts {
  n: number
  total: number
  mine: number
  last: string | null
}

async function countsInSlices(db: Sql, worker: string, page: number, between: () => Promise<void>): Promise<{ total: number; mine: number }> {
  let total = 0
  let mine = 0
  let after: string | null = null
  for (;;) {
    // Lowercase uuid text sorts as the uuid does, so max(id::text) is the slice's last id.
    const r: { rows: SliceCounts[] } = await db.query<SliceCounts>(
      `SELECT count(*)::int AS n, (count(*) FILTER (WHERE location = ANY($1::text[])))::int AS total,
              (count(*) FILTER (WHERE lease_owner = $2))::int AS mine, max(id::text) AS last
       FROM (SELECT id, location, lease_owner FROM monitor_checks WHERE $3::uuid IS NULL OR id > $3::uuid ORDER BY id LIMIT $4) s`,
      [SERVED_LOCATIONS, worker, after, page])
    const row: SliceCounts | undefined = r.rows[0]
    total += row?.total ?? 0
    mine += row?.mine ?? 0
    if ((row?.n ?? 0) < page || row?.last == null) return { total, mine }
    after = row.last
    await between()
  }
}

export async function claimChecks(db: Sql, worker: string, now: number, limit: number): Promise<CheckRow[]> {
  if (limit <= 0) return []
  const r = await db.query<CheckRow>(
    `UPDATE monitor_checks c SET lease_owner = $1, lease_epoch = c.lease_epoch + 1
     FROM (
       SELECT f.id, f.lease_owner AS seen FROM monitor_checks f
       WHERE f.location = ANY($4::text[]) AND (f.lease_owner IS NULL OR NOT EXISTS (
         SELECT 1 FROM monitor_workers w WHERE w.id = f.lease_owner AND w.lease_until > $2))
       ORDER BY f.id LIMIT $3 FOR UPDATE OF f SKIP LOCKED) free
     WHERE c.id = free.id AND c.lease_owner IS NOT DISTINCT FROM free.seen
     RETURNING ${CHECK_COLUMNS.split(',').map((col) => `c.${col.trim()}`).join(', ')}`,
    [worker, iso(now), limit, SERVED_LOCATIONS])
  return r.rows
}

/**
 * Gives leases back: these ids, or (null) every lease of the worker. `page`
 * rows per statement (0: one statement), with `between` after each: on the
 * embedded database a 50,000-row update is seconds on the event loop.
 */
export async function releaseLeases(db: Sql, worker: string, ids: readonly string[] | null, page = 0, between: () => Promise<void> = noWait): Promise<void> {
  if (ids === null) {
    if (page <= 0) {
      await db.query('UPDATE monitor_checks SET lease_owner = NULL WHERE lease_owner = $1', [worker])
      return
    }
    for (;;) {
      const r = await db.query(
        'UPDATE monitor_checks SET lease_owner = NULL WHERE id IN (SELECT id FROM monitor_checks WHERE lease_owner = $1 LIMIT $2)', [worker, page])
      if (r.rowCount < page) return
      await between()
    }
  }
  const step = page <= 0 ? ids.length : page
  for (let at = 0; at < ids.length; at += step) {
    if (at > 0) await between()
    await db.query('UPDATE monitor_checks SET lease_owner = NULL WHERE lease_owner = $1 AND id = ANY($2::uuid[])', [worker, ids.slice(at, at + step)])
  }
}


/** Every check this worker holds (reconciliation when the count disagrees with memory). */
export async function heldChecks(db: Sql, worker: string): Promise<{ id: string; epoch: number }[]> {
  const r = await db.query<{ id: string; epoch: number }>('SELECT id, lease_epoch AS epoch FROM monitor_checks WHERE lease_owner = $1', [worker])
  return r.rows
}

/** Checks of this worker changed by the API since `after` (edits, actions, run requests). */
export async function changedChecks(db: Sql, worker: string, after: number, limit: number): Promise<CheckRow[]> {
  const r = await db.query<CheckRow>(
    `SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE lease_owner = $1 AND change_seq > $2 ORDER BY change_seq LIMIT $3`,
    [worker, after, limit])
  return r.rows
}

export async function checksById(db: Sql, worker: string, ids: readonly string[]): Promise<CheckRow[]> {
  if (ids.length === 0) return []
  const r = await db.query<CheckRow>(`SELECT ${CHECK_COLUMNS} FROM monitor_checks WHERE lease_owner = $1 AND id = ANY($2::uuid[])`, [worker, ids])
  return r.rows
}

/** Deletes at most `limit` result rows older than `before` (small steps keep an embedded database responsive). */
export async function pruneResults(db: Sql, before: number, limit: number): Promise<number> {
  const r = await db.query(
    'DELETE FROM monitor_results WHERE ctid IN (SELECT ctid FROM monitor_results WHERE observed_at < $1 LIMIT $2)', [iso(before), limit])
  return r.rowCount
}
