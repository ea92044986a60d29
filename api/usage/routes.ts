// Usage routes: daily request totals per key with a consumption summary, and
// the request history (metadata of single requests) for staff allowed to read it.
import type { FastifyInstance } from 'fastify'
import type { Database } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import type { CursorCodec } from '../../core/index.ts'
import { RequestInvalid } from '../../core/index.ts'
import { detail } from '../../core/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { WORKSPACE_PARAMS } from '../../workspace/index.ts'
import { requireStaff, STAFF_PERMISSIONS } from '../../workspace/index.ts'
import type { RequestRecorder } from '../../workspace/index.ts'

export interface UsageRoutesOptions {
  db: Database
  cursors: CursorCodec
  recorder: RequestRecorder
}

const P = '/v1/workspaces/:workspace_id'
const USAGE_DAYS = 30

export const REQUESTS_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 50 },
    cursor: { type: 'string', maxLength: 4096 },
    key_id: { type: 'string', format: 'uuid' },
    request_id: { type: 'string', format: 'uuid' },
    status: { type: 'integer', minimum: 0, maximum: 599 },
  },
} as const

/** `/v1/workspaces/:workspace_id/x` → `/v1/workspaces/{workspace_id}/x`, as the contract writes routes. */
export function routeTemplate(route: string): string | null {
  return route === '' ? null : route.replace(/:([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}')
}

export async function usageRoutes(app: FastifyInstance, opts: UsageRoutesOptions): Promise<void> {
  const { db, cursors, recorder } = opts
  const usage = { auth: { contract: 'cloud', scope: SCOPES.usageRead }, access: [SCOPES.usageRead] } as const

  app.get(`${P}/api-usage`, { config: usage, schema: { params: WORKSPACE_PARAMS } }, async (req) => {
    const p = principalOf(req)
    await recorder.flush()
    const daily = await db.query<{ day: string; key_id: string; key_name: string | null; requests: string; client_errors: string; server_errors: string }>(
      `SELECT to_char(d.day, 'YYYY-MM-DD') AS day, d.key_id, t.name AS key_name,
              d.requests::text AS requests, d.client_errors::text AS client_errors, d.server_errors::text AS server_errors
       FROM api_usage_daily d LEFT JOIN tokens t ON t.id::text = d.key_id
       WHERE d.workspace_id = $1 AND d.day > (now() AT TIME ZONE 'UTC')::date - $2::int
       ORDER BY d.day DESC, d.key_id`, [p.workspaceId, USAGE_DAYS])
    const items = daily.rows.map((d) => ({
      date: d.day,
      key_id: d.key_id,
      key_name: d.key_id === 'owner' ? 'local owner socket' : d.key_name,
      requests: Number(d.requests),
      client_errors: Number(d.client_errors),
      server_errors: Number(d.server_errors),
    }))
    const totals = { requests: 0, client_errors: 0, server_errors: 0 }
    for (const d of items) {
      totals.requests += d.requests
      totals.client_errors += d.client_errors
      totals.server_errors += d.server_errors
    }
    const c = await db.query<Record<string, string>>(
      `SELECT (SELECT count(*) FROM resources WHERE workspace_id = $1)::text AS resources,
              (SELECT count(*) FROM services WHERE workspace_id = $1)::text AS services,
              (SELECT count(*) FROM service_time_entries WHERE workspace_id = $1 AND state <> 'voided')::text AS time_entries,
              (SELECT coalesce(sum(minutes), 0) FROM service_time_entries WHERE workspace_id = $1 AND state = 'posted')::text AS posted_minutes,
              (SELECT count(*) FROM tokens WHERE workspace_id = $1 AND revoked_at IS NULL)::text AS active_keys`, [p.workspaceId])
    const row = c.rows[0] ?? {}
    return {
      workspace_id: p.workspaceId,
      days: USAGE_DAYS,
      totals,
      daily: items,
      consumption: Object.fromEntries(Object.entries(row).map(([k, v]) => [k, Number(v)])),
    }
  })

  app.get(`${P}/api-usage/requests`, { config: usage, schema: { params: WORKSPACE_PARAMS, querystring: REQUESTS_QUERY } }, async (req) => {
    const p = principalOf(req)
    await requireStaff(db, p, req.isOwner, STAFF_PERMISSIONS.readRequestHistory)
    const q = req.query as { limit: number; cursor?: string; key_id?: string; request_id?: string; status?: number }
    await recorder.flush()
    const params: unknown[] = [p.workspaceId]
    let where = 'workspace_id = $1'
    const add = (sql: string, v: unknown) => {
      params.push(v)
      where += ` AND ${sql.replace('?', `$${params.length}`)}`
    }
    if (q.key_id !== undefined) add('key_id = ?', q.key_id.toLowerCase())
    if (q.request_id !== undefined) add('request_id = ?', q.request_id.toLowerCase())
    if (q.status !== undefined) add('status = ?', q.status)
    if (q.cursor !== undefined) {
      const v = cursors.decode('requests', q.cursor)
      if (v === null || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') {
        throw new RequestInvalid([detail(['query', 'cursor'], 'Invalid cursor', 'value_error')])
      }
      params.push(v[0], v[1])
      where += ` AND (at, id) < ($${params.length - 1}::timestamptz, $${params.length}::bigint)`
    }
    params.push(q.limit + 1)
    const r = await db.query<{ id: string; at: string; key_id: string; request_id: string; method: string; route: string; status: number; duration_ms: number }>(
      `SELECT id::text AS id, to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, key_id, request_id, method, route, status, duration_ms
       FROM api_requests WHERE ${where} ORDER BY api_requests.at DESC, id DESC LIMIT $${params.length}`, params)
    const rows = r.rows.slice(0, q.limit)
    const last = rows[rows.length - 1]
    return {
      items: rows.map((x) => ({
        id: x.id,
        at: x.at,
        request_id: x.request_id,
        key_id: x.key_id === '' ? null : x.key_id,
        method: x.method,
        route: routeTemplate(x.route),
        status: x.status,
        duration_ms: Math.round(Number(x.duration_ms) * 1000) / 1000,
      })),
      next_cursor: r.rows.length > q.limit && last !== undefined ? cursors.encode('requests', [last.at, last.id]) : null,
    }
  })
}
