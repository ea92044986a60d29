// Uptime over 24 h, 7 d and 30 d: per-check hourly counts of up and down
// observations (unknown ones are no evidence either way and not counted),
// written with the results they summarize and kept 31 days, because the
// results themselves are kept only a day.
import type { Sql } from '../core/index.ts'

export interface Uptime {
  /** Percent of up among up + down/missing observations; null without any. */
  h24: number | null
  d7: number | null
  d30: number | null
}

export const UPTIME_RETENTION_MS = 31 * 86_400_000
const HOUR_MS = 3_600_000

/** Adds observations to their hour buckets (one statement; the rows are grouped before the upsert). */
export async function recordUptime(tx: Sql, rows: readonly { id: string; observed_at: string; status: string }[]): Promise<void> {
  if (rows.length === 0) return
  await tx.query(
    `INSERT INTO monitor_uptime_hours (check_id, hour, up, down)
     SELECT v.id, date_trunc('hour', v.observed_at, 'UTC'), count(*) FILTER (WHERE v.status = 'up'), count(*) FILTER (WHERE v.status IN ('down', 'missing'))
     FROM jsonb_to_recordset($1::jsonb) AS v(id uuid, observed_at timestamptz, status text)
     WHERE v.status <> 'unknown' GROUP BY 1, 2
     ON CONFLICT (check_id, hour) DO UPDATE SET up = monitor_uptime_hours.up + EXCLUDED.up, down = monitor_uptime_hours.down + EXCLUDED.down`,
    [JSON.stringify(rows)])
}

const pct = (up: number, down: number) => (up + down === 0 ? null : Math.round((up / (up + down)) * 100_000) / 1000)

/** The last 24, 168 and 720 hour buckets (the current one included) of each check. */
export async function uptimeOf(db: Sql, checkIds: readonly string[], now: number): Promise<Map<string, Uptime>> {
  const out = new Map<string, Uptime>()
  if (checkIds.length === 0) return out
  const hour = Math.floor(now / HOUR_MS) * HOUR_MS
  const since = (hours: number) => new Date(hour - (hours - 1) * HOUR_MS).toISOString()
  const r = await db.query<{ check_id: string; u1: number; d1: number; u7: number; d7: number; u30: number; d30: number }>(
    `SELECT check_id,
       coalesce(sum(up) FILTER (WHERE hour >= $2), 0)::int AS u1, coalesce(sum(down) FILTER (WHERE hour >= $2), 0)::int AS d1,
       coalesce(sum(up) FILTER (WHERE hour >= $3), 0)::int AS u7, coalesce(sum(down) FILTER (WHERE hour >= $3), 0)::int AS d7,
       sum(up)::int AS u30, sum(down)::int AS d30
     FROM monitor_uptime_hours WHERE check_id = ANY($1::uuid[]) AND hour >= $4 GROUP BY check_id`,
    [[...checkIds], since(24), since(168), since(720)])
  for (const x of r.rows) out.set(x.check_id, { h24: pct(x.u1, x.d1), d7: pct(x.u7, x.d7), d30: pct(x.u30, x.d30) })
  return out
}

export async function pruneUptime(db: Sql, now: number, limit: number): Promise<number> {
  const r = await db.query(
    'DELETE FROM monitor_uptime_hours WHERE ctid IN (SELECT ctid FROM monitor_uptime_hours WHERE hour < $1 LIMIT $2)',
    [new Date(now - UPTIME_RETENTION_MS).toISOString(), limit])
  return r.rowCount
}
