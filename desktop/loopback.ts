// The loopback listener's edge, before anything else runs (readiness gate,
// authentication, body parsing): browser requests and chunked bodies are
// refused, and no route answers without a valid bearer token, not even
// /v1/health, /v1/ready, the OpenAPI document or an unknown path.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { TokenVerifier } from '../workspace/index.ts'
import { AuthInvalidError, AuthMissingError } from '../workspace/index.ts'
import { BrowserOriginError, LengthRequiredError } from './errors.ts'

const BEARER_RE = /^Bearer\s+(\S+)\s*$/i

/**
 * A browser names the page's origin (Origin, on every cross-origin request and
 * every POST) and, in current browsers, the request's relation to it
 * (Sec-Fetch-Site, on navigations too). Other clients send neither; Node's
 * fetch does send Sec-Fetch-Mode, so that one proves nothing.
 */
function fromBrowser(req: FastifyRequest): boolean {
  return req.headers.origin !== undefined || req.headers['sec-fetch-site'] !== undefined
}

async function loopbackGuardPlugin(app: FastifyInstance, opts: { tokens: TokenVerifier }): Promise<void> {
  app.addHook('onRequest', async (req, reply) => {
    if (fromBrowser(req)) throw new BrowserOriginError()
    if (req.headers['transfer-encoding'] !== undefined) {
      // The body is never read: close the connection rather than drain it.
      reply.header('connection', 'close')
      throw new LengthRequiredError()
    }
    const auth = req.routeOptions.config?.auth
    // Routes with their own authentication are checked by the auth plugin; here only those that have none.
    if (auth !== undefined && auth.public !== true) return
    const header = req.headers.authorization
    if (header === undefined || header === '') throw new AuthMissingError()
    const m = BEARER_RE.exec(header)
    const p = m === null ? null : await opts.tokens.verify(m[1] as string)
    if (p === null) throw new AuthInvalidError()
    // Kept for the route-access check (access-plugin.ts), which also covers these routes.
    req.principal = p
  })
}

export const loopbackGuard = fp(loopbackGuardPlugin, { name: 'lookout-loopback-guard' })
