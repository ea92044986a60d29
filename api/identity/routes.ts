// Identity routes: who am I, which workspaces, where the project API and tools
// are, the effective API terms, and a start-up document for agents.
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Database } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { listWorkspaces, type Principal } from '../../workspace/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { WORKSPACE_PARAMS } from '../../workspace/index.ts'
import { activeStaff, getStaff } from '../../workspace/index.ts'
import { ROUTE_CATALOGUE } from './catalogue.ts'
import { ANY_GRANT } from '../../desktop/index.ts'

export const API_VERSION = '1.9.0'

export interface IdentityRoutesOptions {
  db: Database
  /** Server version (the package's), next to the contract's API version. */
  version: string
  maxBodyBytes: number
}

const P = '/v1/workspaces/:workspace_id'

/** Limits the contract and this server enforce, for entitlements and agents. */
export function effectiveLimits(maxBodyBytes: number) {
  return {
    list_page_size: { min: 1, max: 100, default: 50 },
    repository_read_limit: { min: 1, max: 100, default: 30 },
    log_query_limit: { min: 1, max: 200, default: 100 },
    log_batch_events: { min: 1, max: 1000 },
    log_message_chars: 65536,
    log_source_chars: 256,
    resource_details_entries: 30,
    resource_tags: 12,
    time_entry_minutes: { exclusive_min: 0, max: 6_000_000 },
    json_body_bytes: 1024 * 1024,
    log_body_bytes: maxBodyBytes,
    rate_limit: null,
  }
}

function baseUrl(req: FastifyRequest): string {
  return `${req.protocol}://${req.host}`
}

function credential(p: Principal, isOwner: boolean) {
  return {
    id: isOwner ? null : p.tokenId,
    name: p.name,
    kind: isOwner ? 'owner' : p.kind,
    scopes: [...p.scopes].sort(),
    resources: p.resourceIds === null ? 'all' : p.resourceIds,
    staff_id: p.staffId,
  }
}

async function workspaceOf(db: Database, id: string): Promise<{ id: string; name: string; created_at: string }> {
  const w = (await listWorkspaces(db, [id]))[0]
  if (w === undefined) throw new NotFoundError('workspace')
  return w
}

export async function identityRoutes(app: FastifyInstance, opts: IdentityRoutesOptions): Promise<void> {
  const { db } = opts
  const any = { auth: { contract: 'cloud', scope: null }, access: ANY_GRANT } as const

  app.get('/v1/me', { config: any, schema: { summary: 'The caller: credential, workspace and staff member' } }, async (req) => {
    const p = principalOf(req)
    const staff = p.staffId === null ? null : await getStaff(db, p.workspaceId, p.staffId)
    return {
      owner: req.isOwner,
      credential: credential(p, req.isOwner),
      workspace: await workspaceOf(db, p.workspaceId),
      staff: staff === null ? null : {
        staff_id: staff.staff_id, name: staff.name, active: staff.active,
        permissions: {
          manage_services: staff.can_manage_services, log_time: staff.can_log_time, read_request_history: staff.can_read_request_history,
        },
      },
    }
  })

  app.get('/v1/workspaces', { config: any, schema: { summary: 'Workspaces the caller can reach' } }, async (req) => {
    const p = principalOf(req)
    // A token belongs to one workspace; the local owner reaches all of them.
    const items = req.isOwner ? await listWorkspaces(db) : await listWorkspaces(db, [p.workspaceId])
    return { items, next_cursor: null }
  })

  app.get(`${P}/project-endpoint`, { config: { auth: { contract: 'cloud', scope: SCOPES.projectRead }, access: [SCOPES.projectRead] }, schema: { params: WORKSPACE_PARAMS } }, async (req) => {
    const p = principalOf(req)
    const base = `${baseUrl(req)}/v1/workspaces/${p.workspaceId}`
    return {
      workspace_id: p.workspaceId,
      // Resolution only: the caller talks to these endpoints directly; this route never relays project content.
      proxied: false,
      storage: { engine: 'postgresql', embedded: db.embedded, location: 'this server' },
      api: {
        base_url: base,
        routes: {
          project: `${base}/project`,
          boards: `${base}/project/boards`,
          statuses: `${base}/project/statuses`,
          taxonomy: `${base}/project/taxonomy`,
          timeline: `${base}/project/timeline`,
          activity: `${base}/project/activity`,
          assignees: `${base}/project/assignees`,
          tasks: `${base}/tasks`,
          notes: `${base}/notes`,
          deliverables: `${base}/deliverables`,
          tickets: `${base}/tickets`,
        },
        auth: 'Authorization: Bearer <token>',
      },
      tools: { transport: 'stdio', command: ['lookout', 'mcp'], protocol: 'newline-delimited JSON-RPC 2.0 (MCP)' },
    }
  })

  app.get(`${P}/api-entitlements`, { config: { auth: { contract: 'cloud', scope: SCOPES.usageRead }, access: [SCOPES.usageRead] }, schema: { params: WORKSPACE_PARAMS } }, async (req) => {
    const p = principalOf(req)
    const ws = await workspaceOf(db, p.workspaceId)
    return {
      workspace_id: p.workspaceId,
      api_version: API_VERSION,
      server_version: opts.version,
      // Self-hosted: the operator's configuration is the accepted agreement.
      terms: { plan: 'self-hosted', accepted: true, accepted_at: ws.created_at, billing: 'none' },
      credential: credential(p, req.isOwner),
      limits: effectiveLimits(opts.maxBodyBytes),
    }
  })

  app.get(`${P}/agent-context`, { config: any, schema: { params: WORKSPACE_PARAMS } }, async (req) => {
    const p = principalOf(req)
    const base = baseUrl(req)
    const staff = await activeStaff(db, p, req.isOwner)
    const scopes = p.scopes
    return {
      workspace: await workspaceOf(db, p.workspaceId),
      credential: credential(p, req.isOwner),
      staff: staff === null ? null : staff === 'owner' ? { owner: true } : {
        staff_id: staff.staff_id,
        permissions: {
          manage_services: staff.can_manage_services, log_time: staff.can_log_time, read_request_history: staff.can_read_request_history,
        },
      },
      api: {
        base_url: base,
        workspace_url: `${base}/v1/workspaces/${p.workspaceId}`,
        api_version: API_VERSION,
        auth: 'Authorization: Bearer <token>',
        errors: '422 {detail:[{loc,msg,type,input?,ctx?}]}; other errors {detail:[{loc,msg,type:CODE}]}',
        request_id_header: 'x-request-id',
      },
      endpoints: ROUTE_CATALOGUE.map((e) => ({
        method: e.method,
        path: e.path.replace(/^P\//, `/v1/workspaces/${p.workspaceId}/`),
        scope: e.scope,
        also: e.also ?? null,
        allowed: e.scope === null || scopes.has(e.scope),
        purpose: e.purpose,
      })),
      project_endpoint: `${base}/v1/workspaces/${p.workspaceId}/project-endpoint`,
      tools: { transport: 'stdio', command: ['lookout', 'mcp'] },
      limits: effectiveLimits(opts.maxBodyBytes),
    }
  })
}
