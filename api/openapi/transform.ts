// How a route becomes an OpenAPI operation, beyond what @fastify/swagger does
// with its schema: the documentation-only body of raw-body routes, security
// from the route's auth config, a tag and an operationId from the path, and the
// error responses every route shares (in its contract's shape).
import type { FastifySchema, RouteOptions } from 'fastify'
import type { RouteAuth } from '../auth/plugin.ts'

/** Documentation of a route beyond its validating schema. */
export interface RouteDocs {
  /**
   * The request body as documented, never validated by Fastify: for routes
   * whose bodies are decoded elsewhere (the ingest routes decode in worker
   * threads). A JSON Schema (application/json), or `{ content: { type: { schema } } }`.
   */
  body?: object
}

declare module 'fastify' {
  interface FastifyContextConfig {
    openapi?: RouteDocs
  }
}

type Schema = FastifySchema & Record<string, unknown>

const TAGS: Record<string, string> = {
  health: 'operations', ready: 'operations', 'openapi.json': 'operations',
  logs: 'logs', otlp: 'logs',
  monitoring: 'monitoring', heartbeat: 'monitoring',
  alerts: 'alerts', notifications: 'notifications', webhooks: 'webhooks',
  repository: 'repository', 'ssh-key': 'ssh',
  resources: 'resources', services: 'services',
  project: 'projects', projects: 'projects', tasks: 'projects', notes: 'projects', deliverables: 'projects', tickets: 'projects',
  me: 'identity', workspaces: 'identity', 'project-endpoint': 'identity', 'agent-context': 'identity',
  'api-entitlements': 'usage', 'api-usage': 'usage',
  portal: 'portal',
}

/** The tag of a path: its first meaningful segment after the workspace and resource it is scoped to. */
export function tagOf(url: string): string {
  const parts = url.split('/').filter((p) => p !== '' && p !== 'v1')
  let i = 0
  if (parts[0] === 'workspaces' && parts.length > 2) i = 2
  if (parts[i] === 'resources' && parts.length > i + 2) i += 2
  const seg = parts[i] ?? 'operations'
  return TAGS[seg] ?? (seg.startsWith(':') ? 'operations' : seg)
}

/** post_v1_workspaces_workspace_id_resources: unique per method and path. */
export function operationIdOf(method: string, url: string): string {
  return `${method.toLowerCase()}_${url.replace(/[:{}]/g, '').replace(/[^A-Za-z0-9]+/g, '_').replace(/^_|_$/g, '')}`
}

const DETAIL_ITEM = {
  type: 'object',
  required: ['loc', 'msg', 'type'],
  properties: {
    loc: { type: 'array', items: { type: ['string', 'integer'] } },
    msg: { type: 'string' },
    type: { type: 'string', description: 'a validation type (missing, string_too_long, ...) or a LOOKOUT_* error code' },
    input: {},
    ctx: { type: 'object' },
  },
} as const

const CLOUD_ERROR = {
  type: 'object',
  required: ['detail'],
  properties: { detail: { type: 'array', items: DETAIL_ITEM } },
} as const

const DESKTOP_ERROR = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['message'],
      properties: { message: { type: 'string' }, code: { type: 'string', description: 'a LOOKOUT_* error code' } },
    },
  },
} as const

function errorResponse(description: string, body: object): object {
  return { description, ...body }
}

/** The error responses a route can give, in its contract's body. */
function errorResponses(auth: RouteAuth | undefined, validates: boolean): Record<string, object> {
  const desktop = auth?.contract === 'desktop'
  const body = desktop ? DESKTOP_ERROR : CLOUD_ERROR
  const out: Record<string, object> = {}
  if (validates) {
    out[desktop ? '400' : '422'] = errorResponse(desktop ? 'the request does not match the schema' : 'validation error: one detail item per problem', body)
  }
  if (auth !== undefined && auth.public !== true) {
    out['401'] = errorResponse('no bearer credential, or one that is unknown or revoked (LOOKOUT_AUTH_MISSING, LOOKOUT_AUTH_INVALID)', body)
    out['403'] = errorResponse('the credential lacks the scope, workspace or resource grant (LOOKOUT_FORBIDDEN)', body)
  }
  out['503'] = errorResponse('not ready yet or overloaded; retry after the Retry-After header (LOOKOUT_NOT_READY, LOOKOUT_OVERLOADED)', body)
  out.default = errorResponse('any other error, with its LOOKOUT_* code', body)
  return out
}

function describeAuth(auth: RouteAuth | undefined): string {
  if (auth === undefined || auth.public === true) return 'No credential required.'
  const parts: string[] = []
  parts.push(auth.scope === null ? 'Any valid access token of the workspace.' : `Scope \`${auth.scope}\`.`)
  if (auth.kinds !== undefined) parts.push(`Token kinds: ${auth.kinds.join(', ')}.`)
  if (auth.ownerOnly === true) parts.push('Owner only: the local owner on the Unix socket.')
  return parts.join(' ')
}

export interface TransformInput {
  schema: FastifySchema | undefined
  url: string
  route: RouteOptions
}

/** @fastify/swagger's transform: the operation for one route. The route's own schema is not changed. */
export function transformRoute({ schema, url, route }: TransformInput): { schema: Schema; url: string } {
  const s: Schema = { ...(schema as Schema | undefined) }
  const config = route.config as { auth?: RouteAuth; openapi?: RouteDocs } | undefined
  const auth = config?.auth
  const method = Array.isArray(route.method) ? String(route.method[0]) : String(route.method)
  if (config?.openapi?.body !== undefined && s.body === undefined) s.body = config.openapi.body
  s.tags ??= [tagOf(url)]
  s.operationId ??= operationIdOf(method, url)
  const authText = describeAuth(auth)
  s.description = typeof s.description === 'string' ? `${s.description}\n\n${authText}` : authText
  if (auth === undefined || auth.public === true) s.security = []
  if (auth !== undefined) {
    s['x-lookout-contract'] = auth.contract
    if (auth.scope !== null && auth.public !== true) s['x-lookout-scope'] = auth.scope
  }
  const validates = s.body !== undefined || s.querystring !== undefined || s.params !== undefined
  const declared = (s.response ?? {}) as Record<string, object>
  const success = Object.keys(declared).some((code) => code.startsWith('2')) ? {} : { 200: { description: 'success (the body is described in the contract documents)' } }
  s.response = { ...success, ...errorResponses(auth, validates), ...declared }
  return { schema: s, url }
}
