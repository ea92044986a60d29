// Authentication and authorization, once per request, before the body is read:
// bearer token → principal; then the route's scope, workspace and resource grant.
import fp from 'fastify-plugin'
import type { FastifyInstance, FastifyRequest } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { AuthInvalidError, AuthMissingError } from '../../workspace/index.ts'
import { ForbiddenError } from '../../core/index.ts'
import type { Scope } from '../../workspace/index.ts'
import type { Contract } from '../edge/contract.ts'
import { canReach, type Principal, type TokenKind } from '../../workspace/index.ts'
import type { TokenVerifier } from '../../workspace/index.ts'
import { ACT_AS_GRANT_HEADER, grantPrincipal } from '../../desktop/index.ts'

export interface RouteAuth {
  contract: Contract
  /** Scope the route needs; null: any valid token of the workspace. */
  scope: Scope | null
  /** No credential needed (documented exceptions only). */
  public?: boolean
  /** Token kinds allowed; default: access tokens only. */
  kinds?: readonly TokenKind[]
  /** Only the local owner (desktop Unix socket) may call it. */
  ownerOnly?: boolean
}

declare module 'fastify' {
  interface FastifyContextConfig {
    auth?: RouteAuth
  }
  interface FastifyRequest {
    principal: Principal | null
    /** True on the desktop owner socket: the peer is the local owner. */
    isOwner: boolean
  }
}

export interface AuthOptions {
  db: Sql
  /** Bearer tokens are checked through it (its cache). */
  tokens: TokenVerifier
  /** Resolves the owner principal for requests on the owner socket (desktop). */
  ownerPrincipal?: (req: FastifyRequest) => Promise<Principal | null>
  /**
   * A request without an Authorization header: the principal of its console
   * session cookie (console/), undefined when it carries none. It throws for a
   * dead session or a change without the same-origin header.
   */
  sessionPrincipal?: (req: FastifyRequest) => Promise<Principal | undefined>
}

const BEARER_RE = /^Bearer\s+(\S+)\s*$/i

async function authPlugin(app: FastifyInstance, opts: AuthOptions): Promise<void> {
  app.decorateRequest('principal', null)
  app.decorateRequest('isOwner', false)
  app.addHook('onRequest', async (req) => {
    const auth = req.routeOptions.config.auth
    if (auth === undefined || auth.public === true) return
    const owner = (await opts.ownerPrincipal?.(req)) ?? null
    const actAs = owner === null ? undefined : req.headers[ACT_AS_GRANT_HEADER]
    if (owner !== null && actAs === undefined) {
      req.principal = owner
      req.isOwner = true
      return
    }
    if (auth.ownerOnly === true) throw new ForbiddenError('this operation is only available to the owner on the local socket')
    let p: Principal | null
    if (actAs !== undefined) {
      // The owner acting with a stored grant's scopes (desktop/act-as.ts): checked below like its token.
      p = await grantPrincipal(opts.db, String(actAs))
    } else {
      const header = req.headers.authorization
      if (header === undefined || header === '') {
        const session = await opts.sessionPrincipal?.(req)
        if (session === undefined) throw new AuthMissingError()
        p = session
      } else {
        const m = BEARER_RE.exec(header)
        if (m === null) throw new AuthInvalidError()
        p = await opts.tokens.verify(m[1] as string)
      }
    }
    if (p === null) throw new AuthInvalidError()
    req.principal = p
    const kinds = auth.kinds ?? ['access']
    if (!kinds.includes(p.kind)) throw new ForbiddenError(`a ${p.kind} token cannot call this route`)
    if (auth.scope !== null && !p.scopes.has(auth.scope)) throw new ForbiddenError(`the token lacks the ${auth.scope} scope`)
    const params = req.params as Record<string, string | undefined>
    if (params.workspace_id !== undefined && params.workspace_id !== p.workspaceId) {
      throw new ForbiddenError('the token belongs to another workspace')
    }
    if (params.resource_id !== undefined && !canReach(p, params.resource_id)) {
      throw new ForbiddenError('the resource is outside the token\'s grant')
    }
  })
}

export const auth = fp(authPlugin, { name: 'lookout-auth' })

/** The authenticated principal of a route that requires one. */
export function principalOf(req: FastifyRequest): Principal {
  if (req.principal === null) throw new AuthMissingError()
  return req.principal
}
