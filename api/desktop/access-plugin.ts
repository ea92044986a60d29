// Enforces the route-access table (route-access.ts) on every request a grant
// makes to the desktop service: a bearer token on the loopback listener, or a
// stored grant acted with on the owner socket. Runs after authentication, so
// the grant is known; the owner on the socket passes untouched.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { AuthMissingError } from '../../workspace/index.ts'
import { ForbiddenError } from '../../core/index.ts'
import { grantRefusal } from '../../desktop/index.ts'

async function grantAccessPlugin(app: FastifyInstance, opts: { loopback: boolean }): Promise<void> {
  app.addHook('onRequest', async (req) => {
    const url = req.routeOptions.url
    // An unknown path answers 404 (on the listener only after its token was checked).
    if (url === undefined || req.is404) return
    if (req.isOwner) return
    const p = req.principal
    if (p === null) {
      // The loopback edge resolves a principal for every request; without one, refuse rather than guess.
      if (opts.loopback) throw new AuthMissingError()
      return // a public route (health, OpenAPI) on the owner socket
    }
    const why = grantRefusal(req.method, url, p.scopes)
    if (why !== null) throw new ForbiddenError(why)
  })
}

export const grantAccess = fp(grantAccessPlugin, { name: 'lookout-desktop-grant-access', dependencies: ['lookout-auth'] })
