// The console's HTTP face: index.html and the hashed assets (precompressed,
// cached for a year; index.html revalidated every time), the sign-in and
// sign-out routes, and the security headers of every console response.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { DIST_DIR, ensureBuilt, typeOf, type Manifest } from './build.ts'
import { ConsoleCsrfError, ConsoleNotBuiltError, ConsoleSessionError, ConsoleSignInError } from './errors.ts'
import { ConsoleSessions, SESSION_COOKIE, cookieValue } from './sessions.ts'

/** What the console needs to know of a token (structurally api's Principal). */
export interface ConsoleToken {
  tokenId: string
  kind: string
}

export interface ConsolePluginOptions {
  sessions: ConsoleSessions
  /** A pasted bearer token's principal, or null (unknown, malformed or revoked). */
  verifyBearer: (bearer: string) => Promise<ConsoleToken | null>
  /** The workspace of a token that is not revoked, or null (the tokens are the workspace stage's). */
  workspaceOfToken: (tokenId: string) => Promise<string | null>
  /** Where the built console lives; default console/dist (built there when missing). */
  dist?: string
}

/** The header a console page sends with every change: a cross-site form or image cannot set it. */
export const CSRF_HEADER = 'x-lookout-csrf'

export const SECURITY_HEADERS = {
  'content-security-policy': "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; " +
    "font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'cross-origin-opener-policy': 'same-origin',
} as const

interface Asset {
  type: string
  raw: Buffer
  gz: Buffer
  br: Buffer
}

const ASSET_RE = /^[A-Za-z0-9._-]{1,100}$/
const PUBLIC = { auth: { contract: 'cloud', scope: null, public: true } } as const
const SIGN_IN_BODY = {
  type: 'object',
  additionalProperties: false,
  minProperties: 1,
  maxProperties: 1,
  properties: {
    code: { type: 'string', minLength: 1, maxLength: 200, description: 'the one-time code of a `lookout console` link' },
    token: { type: 'string', minLength: 1, maxLength: 200, description: 'an access token, exchanged for the session and not kept' },
  },
} as const

/** Same-origin proof of a change: the custom header, and no foreign Origin or Sec-Fetch-Site. */
export function checkSameOrigin(req: FastifyRequest): void {
  if (req.headers[CSRF_HEADER] !== '1') throw new ConsoleCsrfError(`the ${CSRF_HEADER} header is missing`)
  const origin = req.headers.origin
  if (origin !== undefined && origin !== `${req.protocol}://${req.headers.host ?? ''}`) throw new ConsoleCsrfError('the request came from another origin')
  const site = req.headers['sec-fetch-site']
  if (site !== undefined && site !== 'same-origin') throw new ConsoleCsrfError('the request came from another site')
}

/**
 * The auth plugin's session hook: the principal behind a request's session
 * cookie (undefined without one). Changes need the same-origin header; a
 * session whose token was revoked is closed and refused.
 */
export function sessionPrincipal<P>(sessions: ConsoleSessions, principalById: (tokenId: string) => Promise<P | null>) {
  return async (req: FastifyRequest): Promise<P | undefined> => {
    const id = cookieValue(req.headers.cookie, SESSION_COOKIE)
    if (id === undefined || id === '') return undefined
    if (req.method !== 'GET' && req.method !== 'HEAD') checkSameOrigin(req)
    const tokenId = await sessions.tokenOf(id)
    if (tokenId === null) throw new ConsoleSessionError('sign in again')
    const p = await principalById(tokenId)
    if (p === null) {
      await sessions.closeToken(tokenId)
      throw new ConsoleSessionError('its token was revoked')
    }
    return p
  }
}

function loadAssets(dist: string, m: Manifest): Map<string, Asset> {
  const out = new Map<string, Asset>()
  const read = (f: string) => readFileSync(join(dist, f))
  for (const file of [...Object.keys(m.assets), 'index.html']) {
    out.set(file, { type: typeOf(file), raw: read(file), gz: read(file + '.gz'), br: read(file + '.br') })
  }
  return out
}

function sendAsset(req: FastifyRequest, reply: FastifyReply, a: Asset): Buffer {
  const accept = String(req.headers['accept-encoding'] ?? '')
  void reply.header('content-type', a.type).header('vary', 'accept-encoding')
  if (/\bbr\b/.test(accept)) {
    void reply.header('content-encoding', 'br')
    return a.br
  }
  if (/\bgzip\b/.test(accept)) {
    void reply.header('content-encoding', 'gzip')
    return a.gz
  }
  return a.raw
}

export async function consolePlugin(app: FastifyInstance, opts: ConsolePluginOptions): Promise<void> {
  const dist = opts.dist ?? DIST_DIR
  let assets: Map<string, Asset> | null = null
  let problem = ''
  // Another process (a parallel test, a second api process) may be moving its own build into
  // place while this one reads: read again after a moment before giving up.
  for (let attempt = 1; assets === null && attempt <= 3; attempt++) {
    try {
      assets = loadAssets(dist, await ensureBuilt(dist))
    } catch (err) {
      problem = (err as Error).message
      if (attempt === 3) app.log.error({ err }, 'the console could not be built; its pages answer 503')
      else await new Promise((resolve) => setTimeout(resolve, 500 * attempt))
    }
  }
  const asset = (name: string): Asset => {
    if (assets === null) throw new ConsoleNotBuiltError(problem)
    const a = assets.get(name)
    if (a === undefined) throw new ConsoleNotBuiltError(`no asset ${name}`)
    return a
  }
  const { sessions } = opts

  app.addHook('onSend', async (_req, reply) => {
    void reply.headers(SECURITY_HEADERS)
  })

  app.get('/', { config: PUBLIC, schema: { summary: 'The console (web page); sign in with `lookout console` or a pasted token', tags: ['console'] } }, async (req, reply) => {
    const a = asset('index.html')
    void reply.header('cache-control', 'no-cache')
    return sendAsset(req, reply, a)
  })

  app.get('/assets/:file', {
    config: PUBLIC,
    schema: {
      summary: 'A console asset (content-hashed name, cached for a year; gzip or brotli by Accept-Encoding)',
      tags: ['console'],
      params: { type: 'object', required: ['file'], properties: { file: { type: 'string', pattern: ASSET_RE.source } } },
    },
  }, async (req, reply) => {
    const file = (req.params as { file: string }).file
    if (assets !== null && !assets.has(file)) {
      void reply.code(404).header('cache-control', 'no-store')
      return { detail: [{ loc: ['path', 'file'], msg: `no console asset ${file}`, type: 'LOOKOUT_NOT_FOUND' }] }
    }
    const a = asset(file)
    void reply.header('cache-control', 'public, max-age=31536000, immutable')
    return sendAsset(req, reply, a)
  })

  app.post('/console/session', {
    config: PUBLIC,
    schema: {
      summary: 'Sign in to the console with a one-time link code or a pasted access token; sets the HttpOnly session cookie (needs the x-lookout-csrf: 1 header)',
      tags: ['console'],
      body: SIGN_IN_BODY,
    },
  }, async (req, reply) => {
    checkSameOrigin(req)
    const b = req.body as { code?: string; token?: string }
    let tokenId: string | null = null
    if (b.code !== undefined) {
      tokenId = await sessions.redeemCode(b.code)
      if (tokenId === null) throw new ConsoleSignInError('the sign-in link is unknown, used or expired; run lookout console again')
    } else {
      const p = await opts.verifyBearer(b.token ?? '')
      if (p === null) throw new ConsoleSignInError('the token is unknown, malformed or revoked')
      if (p.kind !== 'access') throw new ConsoleSignInError(`a ${p.kind} token cannot sign in to the console`)
      tokenId = p.tokenId
    }
    const s = await sessions.open(tokenId)
    const secure = req.protocol === 'https' ? '; Secure' : ''
    void reply.header('set-cookie', `${SESSION_COOKIE}=${s.id}; Path=/; HttpOnly; SameSite=Strict; Expires=${s.expiresAt.toUTCString()}${secure}`)
    void reply.header('cache-control', 'no-store')
    return { signed_in: true, expires_at: s.expiresAt.toISOString() }
  })

  app.get('/console/session', {
    config: PUBLIC,
    schema: { summary: 'Whether the request carries a live console session cookie, and its workspace (the page asks before anything else)', tags: ['console'] },
  }, async (req, reply) => {
    const id = cookieValue(req.headers.cookie, SESSION_COOKIE)
    void reply.header('cache-control', 'no-store')
    const tokenId = id === undefined || id === '' ? null : await sessions.tokenOf(id)
    const ws = tokenId === null ? null : await opts.workspaceOfToken(tokenId)
    return ws === null ? { signed_in: false } : { signed_in: true, workspace_id: ws }
  })

  app.post('/console/signout', {
    config: PUBLIC,
    schema: { summary: 'Sign out of the console: ends the session and clears its cookie (needs the x-lookout-csrf: 1 header)', tags: ['console'] },
  }, async (req, reply) => {
    checkSameOrigin(req)
    const id = cookieValue(req.headers.cookie, SESSION_COOKIE)
    if (id !== undefined) await sessions.close(id)
    const secure = req.protocol === 'https' ? '; Secure' : ''
    void reply.header('set-cookie', `${SESSION_COOKIE}=; Path=/; HttpOnly; SameSite=Strict; Max-Age=0${secure}`)
    return { signed_in: false }
  })
}
