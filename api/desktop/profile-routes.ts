// Agent and staff profiles of the desktop service, on the owner socket only:
// `lookout staff set|list --desktop` uses them, so a profile (an agent's
// `droid` kind in assignment webhooks) changes while the service runs, without
// opening its data directory a second time. workspace/services/staff.ts keeps the rules.
import type { FastifyInstance } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { listStaff, setStaff, type StaffPatch } from '../../workspace/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

const OWNER = { auth: { contract: 'desktop', scope: null, ownerOnly: true }, access: OWNER_ONLY } as const
const WS_QUERY = { type: 'object', additionalProperties: false, properties: { workspace_id: { type: 'string', format: 'uuid' } } } as const
const ID_PARAMS = {
  type: 'object', required: ['staff_id'], properties: { staff_id: { type: 'integer', minimum: 1, maximum: 2_147_483_647 } },
} as const
export const PROFILE_BODY = {
  type: 'object', additionalProperties: false, minProperties: 1,
  properties: {
    name: { type: 'string', maxLength: 160 },
    active: { type: 'boolean' },
    agent: { type: 'boolean', description: 'an agent profile: assignment webhooks name its kind droid' },
    can_manage_services: { type: 'boolean' },
    can_log_time: { type: 'boolean' },
    can_read_request_history: { type: 'boolean' },
  },
} as const

export async function profileRoutes(app: FastifyInstance, opts: { db: Sql }): Promise<void> {
  const { db } = opts

  app.get('/v1/profiles', {
    config: OWNER, schema: { summary: 'Staff and agent profiles of the workspace (owner only)', querystring: WS_QUERY },
  }, async (req) => ({ items: await listStaff(db, principalOf(req).workspaceId), next_cursor: null }))

  app.put('/v1/profiles/:staff_id', {
    config: OWNER,
    schema: {
      summary: 'Create or change a profile while the service runs; fields left out keep their value (owner only)',
      params: ID_PARAMS, querystring: WS_QUERY, body: PROFILE_BODY,
    },
  }, async (req) => setStaff(db, principalOf(req).workspaceId, (req.params as { staff_id: number }).staff_id, req.body as StaffPatch))
}
