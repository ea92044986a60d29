// The project area's route groups, registered as one plugin from api/app.ts.
import type { FastifyError, FastifyInstance } from 'fastify'
import type { Database } from '../../../core/index.ts'
import { RequestInvalid } from '../../../core/index.ts'
import { errorHandler } from '../../edge/error-handler.ts'
import { boardRoutes } from './boards.ts'
import { catalogueRoutes } from './catalogues.ts'
import { commentRoutes } from './comments.ts'
import type { ProjectRouteOptions } from './common.ts'
import { deliverableRoutes } from './deliverables.ts'
import { desktopCatalogueRoutes } from './desktop-catalogues.ts'
import { desktopItemRoutes } from './desktop-items.ts'
import { noteRoutes } from './notes.ts'
import { taskRoutes } from './tasks.ts'
import { taskBatchRoutes } from './task-batch.ts'
import { ticketRoutes } from './tickets.ts'
import { viewRoutes } from './views.ts'
import { portalConnected, rewriteOldIds } from '../../../desktop/index.ts'
import { principalOf } from '../../auth/plugin.ts'

async function desktopRoutes(app: FastifyInstance, opts: ProjectRouteOptions): Promise<void> {
  // Checks made in code raise the cloud's 422; the desktop contract has no 422, its malformed request is a 400.
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof RequestInvalid && err.statusCode === 422) return errorHandler(new RequestInvalid(err.details, 400) as never, req, reply)
    return errorHandler(err, req, reply)
  })
  // Ids a record had before the portal gave it a canonical one still resolve (desktop/portal/id-map.ts).
  app.addHook('preHandler', async (req) => {
    await rewriteOldIds(opts.db, [req.params as Record<string, unknown>, req.query as Record<string, unknown>, req.body as Record<string, unknown>])
  })
  await app.register(desktopItemRoutes, opts)
  await app.register(desktopCatalogueRoutes, opts)
}

/** What a connected desktop keeps to itself although the portal has it too (deploy/PORTAL.md, "What syncs"). */
const LOCAL_ONLY_WRITE = /\/tickets(\/|$)/
export const SYNC_HEADER = 'x-lookout-sync'

/**
 * On the desktop, the portal-shaped routes (the tool server's) resolve old ids
 * like /v1/projects does, and a write of something that does not reach the
 * portal answers `X-Lookout-Sync: local` on a connected workspace, so no client
 * takes it for shared (the tool server adds it to its result).
 */
async function desktopMarks(app: FastifyInstance, opts: ProjectRouteOptions): Promise<void> {
  app.addHook('preHandler', async (req) => {
    if (!(req.routeOptions.url ?? '').startsWith('/v1/workspaces/')) return
    await rewriteOldIds(opts.db, [req.params as Record<string, unknown>, req.query as Record<string, unknown>, req.body as Record<string, unknown>])
  })
  markLocalWrites(app, opts.db, LOCAL_ONLY_WRITE)
}

/** A successful write of a route matching `pattern` answers `X-Lookout-Sync: local` on a workspace connected to its portal. */
export function markLocalWrites(app: FastifyInstance, db: Database, pattern: RegExp): void {
  app.addHook('onSend', async (req, reply, payload) => {
    if (req.method === 'GET' || reply.statusCode >= 300 || !pattern.test(req.routeOptions.url ?? '')) return payload
    if (await portalConnected(db, principalOf(req).workspaceId)) reply.header(SYNC_HEADER, 'local')
    return payload
  })
}

export async function projectRoutes(app: FastifyInstance, opts: ProjectRouteOptions): Promise<void> {
  if (opts.desktop === true) await desktopMarks(app, opts)
  await app.register(boardRoutes, opts)
  await app.register(catalogueRoutes, opts)
  await app.register(taskRoutes, opts)
  await app.register(taskBatchRoutes, opts)
  await app.register(ticketRoutes, opts)
  await app.register(noteRoutes, opts)
  await app.register(deliverableRoutes, opts)
  await app.register(commentRoutes, opts)
  await app.register(viewRoutes, opts)
  await app.register(desktopRoutes, opts)
}
