// The project area's route groups, registered as one plugin from api/app.ts.
import type { FastifyError, FastifyInstance } from 'fastify'
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
import { ticketRoutes } from './tickets.ts'
import { viewRoutes } from './views.ts'
import { rewriteOldIds } from '../../../desktop/index.ts'

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

export async function projectRoutes(app: FastifyInstance, opts: ProjectRouteOptions): Promise<void> {
  await app.register(boardRoutes, opts)
  await app.register(catalogueRoutes, opts)
  await app.register(taskRoutes, opts)
  await app.register(ticketRoutes, opts)
  await app.register(noteRoutes, opts)
  await app.register(deliverableRoutes, opts)
  await app.register(commentRoutes, opts)
  await app.register(viewRoutes, opts)
  await app.register(desktopRoutes, opts)
}
