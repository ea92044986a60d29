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
import { consumption, dailyUsage, recordedRequests } from '../../workspace/index.ts'

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
    const daily = await dailyUsage(db, p.workspaceId, USAGE_DAYS)
    const items = daily.map((d) => ({
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
    return {
      workspace_id: p.workspaceId,
      days: USAGE_DAYS,
      totals,
      daily: items,
      consumption: await consumption(db, p.workspaceId),
    }
  })

  app.get(`${P}/api-usage/requests`, { config: usage, schema: { params: WORKSPACE_PARAMS, querystring: REQUESTS_QUERY } }, async (req) => {
    const p = principalOf(req)
    await requireStaff(db, p, req.isOwner, STAFF_PERMISSIONS.readRequestHistory)
    const q = req.query as { limit: number; cursor?: string; key_id?: string; request_id?: string; status?: number }
    await recorder.flush()
    let before: [string, string] | null = null
    if (q.cursor !== undefined) {
      const v = cursors.decode('requests', q.cursor)
      if (v === null || v.length !== 2 || typeof v[0] !== 'string' || typeof v[1] !== 'string') {
        throw new RequestInvalid([detail(['query', 'cursor'], 'Invalid cursor', 'value_error')])
      }
      before = [v[0], v[1]]
    }
    const found = await recordedRequests(db, p.workspaceId, { keyId: q.key_id, requestId: q.request_id, status: q.status }, before, q.limit + 1)
    const rows = found.slice(0, q.limit)
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
      next_cursor: found.length > q.limit && last !== undefined ? cursors.encode('requests', [last.at, last.id]) : null,
    }
  })
}
