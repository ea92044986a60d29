// Recent observations of a check, newest first: the console's uptime bar and
// response-time chart. monitor_results keeps them for its retention window.
import type { Sql } from '../core/index.ts'

export interface ResultView {
  observed_at: string
  status: string
  code: string
  reason: string
  latency_ms: number | null
}

export const MAX_RESULTS_LISTED = 500

export async function listResults(db: Sql, workspaceId: string, resourceId: string, checkId: string, limit: number): Promise<ResultView[]> {
  const r = await db.query<{ observed_at: Date; status: string; code: string; reason: string; latency_ms: number | null }>(
    `SELECT r.observed_at, r.status, r.code, r.reason, r.latency_ms FROM monitor_results r
     JOIN monitor_checks c ON c.id = r.check_id
     WHERE r.check_id = $1 AND c.workspace_id = $2 AND c.resource_id = $3
     ORDER BY r.observed_at DESC LIMIT $4`, [checkId, workspaceId, resourceId, Math.min(limit, MAX_RESULTS_LISTED)])
  return r.rows.map((x) => ({ observed_at: new Date(x.observed_at).toISOString(), status: x.status, code: x.code, reason: x.reason, latency_ms: x.latency_ms }))
}
