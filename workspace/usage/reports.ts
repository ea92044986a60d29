// What the usage routes read back (the tables are this stage's): daily request
// totals per key, the workspace's consumption figures, and a page of single
// requests. The HTTP edge (api/usage/routes.ts) shapes cursors and answers.
import type { Sql } from '../../core/index.ts'

export interface DailyUsage { day: string; key_id: string; key_name: string | null; requests: string; client_errors: string; server_errors: string }

/** Per day and key, the last `days` days (UTC), newest first; the key's token name where there is one. */
export async function dailyUsage(db: Sql, workspaceId: string, days: number): Promise<DailyUsage[]> {
  const r = await db.query<DailyUsage>(
    `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.key_id, t.name AS key_name,
            d.requests::text AS requests, d.client_errors::text AS client_errors, d.server_errors::text AS server_errors
     FROM api_usage_daily d LEFT JOIN tokens t ON t.id::text = d.key_id
     WHERE d.workspace_id = $1 AND d.day > (now() AT TIME ZONE 'UTC')::date - $2::int
     ORDER BY d.day DESC, d.key_id`, [workspaceId, days])
  return r.rows
}

/** The workspace's consumption: resources, services, time entries, posted minutes, active keys. */
export async function consumption(db: Sql, workspaceId: string): Promise<Record<string, number>> {
  const c = await db.query<Record<string, string>>(
    `SELECT (SELECT count(*) FROM resources WHERE workspace_id = $1)::text AS resources,
            (SELECT count(*) FROM services WHERE workspace_id = $1)::text AS services,
            (SELECT count(*) FROM service_time_entries WHERE workspace_id = $1 AND state <> 'voided')::text AS time_entries,
            (SELECT coalesce(sum(minutes), 0) FROM service_time_entries WHERE workspace_id = $1 AND state = 'posted')::text AS posted_minutes,
            (SELECT count(*) FROM tokens WHERE workspace_id = $1 AND revoked_at IS NULL)::text AS active_keys`, [workspaceId])
  return Object.fromEntries(Object.entries(c.rows[0] ?? {}).map(([k, v]) => [k, Number(v)]))
}

export interface RequestFilter { keyId?: string; requestId?: string; status?: number }
export interface RecordedRequest { id: string; at: string; key_id: string; request_id: string; method: string; route: string; status: number; duration_ms: number }

/** Up to `limit` recorded requests, newest first, after `before` (the last row's `at` and `id`) when given. */
export async function recordedRequests(db: Sql, workspaceId: string, f: RequestFilter, before: readonly [string, string] | null, limit: number): Promise<RecordedRequest[]> {
  const params: unknown[] = [workspaceId]
  let where = 'workspace_id = $1'
  const add = (sql: string, v: unknown) => {
    params.push(v)
    where += ` AND ${sql.replace('?', `$${params.length}`)}`
  }
  if (f.keyId !== undefined) add('key_id = ?', f.keyId.toLowerCase())
  if (f.requestId !== undefined) add('request_id = ?', f.requestId.toLowerCase())
  if (f.status !== undefined) add('status = ?', f.status)
  if (before !== null) {
    params.push(before[0], before[1])
    where += ` AND (at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`
  }
  params.push(limit)
  const r = await db.query<RecordedRequest>(
    `SELECT id::text AS id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, key_id, request_id, method, route, status, duration_ms
     FROM api_requests WHERE ${where} ORDER BY api_requests.at DESC, id DESC LIMIT $${params.length}`, params)
  return r.rows
}
