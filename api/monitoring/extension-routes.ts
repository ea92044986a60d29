// Lookout extensions beside the contract's monitoring routes, for the console:
// a check's recent observations (uptime bar, response times) and the run /
// pause / resume actions the cloud contract has no route for.
import type { FastifyInstance } from 'fastify'
import { checkAction, deleteCheck, findCheck, listResults, toCheckView, CheckNotFoundError, MAX_RESULTS_LISTED } from '../../monitor/index.ts'
import type { Database } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { RESOURCE_PARAMS } from '../../workspace/index.ts'
import { resourceExists } from '../../workspace/index.ts'
import { SCOPES } from '../../workspace/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

const P = '/v1/workspaces/:workspace_id/resources/:resource_id/monitoring'
const uuid = { type: 'string', format: 'uuid' } as const

export async function monitoringExtensionRoutes(app: FastifyInstance, opts: { db: Database }): Promise<void> {
  const { db } = opts
  const target = async (params: unknown) => {
    const p = params as { workspace_id: string; resource_id: string }
    const ws = p.workspace_id.toLowerCase()
    const rid = p.resource_id.toLowerCase()
    if (!(await resourceExists(db, ws, rid))) throw new NotFoundError('resource')
    return { ws, rid }
  }

  app.get(`${P}/results`, {
    config: { auth: { contract: 'cloud', scope: SCOPES.monitorRead }, access: [SCOPES.monitorRead] },
    schema: {
      summary: 'Lookout extension: a check\'s recent observations, newest first (status, code, reason, latency)',
      params: RESOURCE_PARAMS,
      querystring: {
        type: 'object', additionalProperties: false, required: ['check_id'],
        properties: { check_id: uuid, limit: { type: 'integer', minimum: 1, maximum: MAX_RESULTS_LISTED, default: 100 } },
      },
    },
  }, async (req) => {
    const { ws, rid } = await target(req.params)
    const q = req.query as { check_id: string; limit: number }
    return { check_id: q.check_id.toLowerCase(), items: await listResults(db, ws, rid, q.check_id.toLowerCase(), q.limit) }
  })

  app.post(`${P}/actions`, {
    config: { auth: { contract: 'cloud', scope: SCOPES.resourcesWrite }, access: OWNER_ONLY },
    schema: {
      summary: 'Lookout extension: run a check now, pause, resume or delete it (at the revision the caller saw); delete answers {id, deleted, closed_incident_id}',
      params: RESOURCE_PARAMS,
      body: {
        type: 'object', additionalProperties: false, required: ['id', 'revision', 'action'],
        properties: { id: uuid, revision: { type: 'integer', minimum: 1 }, action: { type: 'string', enum: ['run', 'pause', 'resume', 'delete'] } },
      },
    },
  }, async (req) => {
    const { ws, rid } = await target(req.params)
    const b = req.body as { id: string; revision: number; action: 'run' | 'pause' | 'resume' | 'delete' }
    const existing = await findCheck(db, b.id.toLowerCase())
    if (existing === null || existing.workspace_id !== ws || existing.resource_id !== rid) throw new CheckNotFoundError('check')
    const now = Date.now()
    if (b.action === 'delete') return deleteCheck(db, ws, rid, existing.id, b.revision, now)
    return toCheckView(await checkAction(db, ws, existing.id, b.revision, b.action, null, now), now)
  })
}
