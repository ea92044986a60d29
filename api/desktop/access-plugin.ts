// Enforces each route's access rule (`config.access`, declared next to its
// handler; desktop/route-access.ts) on every request a grant makes to the
// desktop service: a bearer token on the loopback listener, or a stored grant
// acted with on the owner socket. Runs after authentication, so the grant is
// known; the owner on the socket passes untouched.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import { AuthMissingError } from '../../workspace/index.ts'
import { ForbiddenError } from '../../core/index.ts'
import { accessTable, grantRefusal, routeKey, type Access, type DeclaredRoute } from '../../desktop/index.ts'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Who may reach the route with a desktop grant: OWNER_ONLY, or the scopes it must hold (ANY_GRANT: none). */
    access?: Access
  }
}

export interface GrantAccessOptions {
  loopback: boolean
  /** The app's routes with their declared rules, read once the app is ready. */
  routes: () => readonly DeclaredRoute[]
}

async function grantAccessPlugin(app: FastifyInstance, opts: GrantAccessOptions): Promise<void> {
  let table: ReadonlyMap<string, Access> = new Map()
  app.addHook('onReady', async () => { table = accessTable(opts.routes()) })
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
    const key = routeKey(req.method, url)
    const why = grantRefusal(key, table.get(key), p.scopes)
    if (why !== null) throw new ForbiddenError(why)
  })
}

export const grantAccess = fp(grantAccessPlugin, { name: 'lookout-desktop-grant-access', dependencies: ['lookout-auth'] })
