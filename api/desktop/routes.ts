// Owner-only routes of the desktop service: its settings (which start and
// stop the loopback listener, set log retention and forwarding) and its status
// (the portal routes are api/portal/routes.ts). Registered only when the app runs as the desktop service.
import type { FastifyInstance } from 'fastify'
import { principalOf } from '../auth/plugin.ts'
import { SETTINGS_PATCH_BODY } from '../../desktop/index.ts'
import type { DesktopPatch, DesktopService } from '../../desktop/index.ts'
import { OWNER_ONLY } from '../../desktop/index.ts'

const OWNER = { auth: { contract: 'desktop', scope: null, ownerOnly: true }, access: OWNER_ONLY } as const
const WS_QUERY = { type: 'object', additionalProperties: false, properties: { workspace_id: { type: 'string', format: 'uuid' } } } as const

export async function desktopRoutes(app: FastifyInstance, opts: { service: DesktopService }): Promise<void> {
  const { service } = opts

  app.get('/v1/settings', {
    config: OWNER,
    schema: { summary: 'The desktop service settings (owner only; the forwarding token is never shown)', querystring: WS_QUERY },
  }, async (req) => service.read(principalOf(req).workspaceId))

  app.patch('/v1/settings', {
    config: OWNER,
    schema: {
      summary: 'Change settings with the observed revision: loopback listener, log retention, toasts, forwarding (owner only)',
      querystring: WS_QUERY,
      body: SETTINGS_PATCH_BODY,
    },
  }, async (req) => service.update(principalOf(req).workspaceId, req.body as DesktopPatch))

  app.get('/v1/desktop', {
    config: OWNER,
    schema: { summary: 'The desktop service state: socket, loopback listener, retention, forwarding queue and counters (owner only)', querystring: WS_QUERY },
  }, async () => service.status())
}
