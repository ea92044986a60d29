// The Model Context Protocol over JSON-RPC 2.0, the methods a tool server
// needs: initialize, ping, tools/list, tools/call (and the client's
// notifications). Transport-free: handle() takes one decoded message and
// returns the response to send, or null for a notification.
import type { ValidateFunction } from 'ajv'
import { createAjv } from '../../core/index.ts'
import type { ServiceClient } from './client.ts'
import { McpReadOnlyError, McpToolFailedError, ServiceUnreachable } from '../errors.ts'
import { toJsonSchema } from './schema.ts'
import { TOOLS, type ToolContext, type ToolSpec } from './tools.ts'

export const PROTOCOL_VERSIONS = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05'] as const
const LATEST = PROTOCOL_VERSIONS[0]

/** JSON-RPC error codes. */
export const RPC = { parse: -32700, invalidRequest: -32600, methodNotFound: -32601, invalidParams: -32602, internal: -32603 } as const

type Id = string | number | null

export interface RpcResponse {
  jsonrpc: '2.0'
  id: Id
  result?: unknown
  error?: { code: number; message: string; data?: unknown }
}

export interface ToolError {
  code: string
  message: string
  status: number
  details?: unknown
}

export interface McpServerOptions {
  client: ServiceClient
  context: ToolContext
  version: string
  /** Only tools that change nothing. */
  readOnly: boolean
  /** The acting grant's scopes (null: the owner, every scope). */
  scopes: ReadonlySet<string> | null
}

const STATUS_CODES: Record<number, string> = {
  400: 'LOOKOUT_BAD_REQUEST', 401: 'LOOKOUT_AUTH_INVALID', 403: 'LOOKOUT_FORBIDDEN', 404: 'LOOKOUT_NOT_FOUND', 409: 'LOOKOUT_CONFLICT',
  413: 'LOOKOUT_PAYLOAD_TOO_LARGE', 422: 'LOOKOUT_VALIDATION', 503: 'LOOKOUT_SERVICE_UNAVAILABLE',
}

const TOOL_FAILED = new McpToolFailedError('').code

/** The service's error body (desktop {error:{message, code}} or cloud {detail:[...]}) as a tool error. */
export function toolErrorOf(status: number, body: unknown): ToolError {
  const fallback = STATUS_CODES[status] ?? TOOL_FAILED
  const b = (body ?? {}) as { error?: { message?: unknown; code?: unknown }; detail?: unknown }
  if (b.error !== undefined && typeof b.error.message === 'string') {
    return { code: typeof b.error.code === 'string' ? b.error.code : fallback, message: b.error.message, status }
  }
  if (Array.isArray(b.detail) && b.detail.length > 0) {
    const items = b.detail as { loc?: unknown[]; msg?: string; type?: string }[]
    const first = items[0]?.type ?? ''
    const code = status === 422 ? 'LOOKOUT_VALIDATION' : first.startsWith('LOOKOUT_') ? first : fallback
    const message = items.map((d) => `${(d.loc ?? []).join('.')}${d.loc?.length ? ': ' : ''}${d.msg ?? ''}`).join('; ')
    return status === 422 ? { code, message, status, details: items } : { code, message, status }
  }
  return { code: fallback, message: typeof body === 'string' && body !== '' ? body.slice(0, 500) : `the service answered ${status}`, status }
}

/** The structuredContent of an isError result. */
export const TOOL_ERROR_SCHEMA = {
  type: 'object',
  additionalProperties: false,
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message', 'status'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, status: { type: 'integer' }, details: {} },
    },
  },
} as const

/**
 * A tool's outputSchema: the route's response, or the error envelope of an
 * isError result. Error results carry structuredContent too, and some clients
 * (the TypeScript SDK up to at least 1.32, typescript-sdk#1943) validate it
 * against the outputSchema even when isError is true.
 */
export function outputSchemaOf(response: object): object {
  return { type: 'object', anyOf: [response, TOOL_ERROR_SCHEMA] }
}

function errorResult(e: ToolError) {
  const structured = { error: e }
  return { content: [{ type: 'text', text: JSON.stringify(structured) }], structuredContent: structured, isError: true }
}

/** Said with the result of a write that stays on this desktop although the workspace is connected to a portal. */
export const LOCAL_ONLY_NOTE = 'Kept on this desktop only: the workspace is connected to its portal, but service tickets are not synced to it (lookout portal status).'

function okResult(body: unknown, sync?: string) {
  const structured = body !== null && typeof body === 'object' && !Array.isArray(body) ? body as Record<string, unknown> : { result: body }
  const content = [{ type: 'text', text: JSON.stringify(structured) }]
  if (sync === 'local') content.push({ type: 'text', text: LOCAL_ONLY_NOTE })
  return { content, structuredContent: structured, isError: false }
}

export class McpServer {
  readonly #opts: McpServerOptions
  readonly #tools: Map<string, { spec: ToolSpec; validate: ValidateFunction; listed: object }>

  constructor(opts: McpServerOptions) {
    this.#opts = opts
    const ajv = createAjv()
    this.#tools = new Map(TOOLS.map((spec) => [spec.name, {
      spec,
      validate: ajv.compile(spec.input),
      listed: {
        name: spec.name,
        description: spec.description,
        inputSchema: toJsonSchema(spec.input),
        ...(spec.output === undefined ? {} : { outputSchema: outputSchemaOf(spec.output) }),
        annotations: { readOnlyHint: !spec.write, destructiveHint: false, idempotentHint: !spec.write || spec.method !== 'POST', openWorldHint: false },
      },
    }]))
  }

  /** The tools this server offers: read tools only with --read-only, and only those the grant's scopes reach. */
  offered(): ToolSpec[] {
    const { readOnly, scopes } = this.#opts
    return TOOLS.filter((t) => !(readOnly && t.write) && (scopes === null || t.scope === null || scopes.has(t.scope)))
  }

  async handle(message: unknown): Promise<RpcResponse | null> {
    if (message === null || typeof message !== 'object' || Array.isArray(message)) {
      return { jsonrpc: '2.0', id: null, error: { code: RPC.invalidRequest, message: 'Invalid Request: a JSON-RPC 2.0 object is expected (batches are not supported)' } }
    }
    const m = message as { jsonrpc?: unknown; id?: unknown; method?: unknown; params?: unknown }
    const hasId = 'id' in m && (typeof m.id === 'string' || typeof m.id === 'number' || m.id === null)
    const id: Id = hasId ? m.id as Id : null
    if (m.jsonrpc !== '2.0' || typeof m.method !== 'string') {
      // A response from the client (we send no requests) is not ours to answer.
      if (m.jsonrpc === '2.0' && m.method === undefined && ('result' in m || 'error' in m)) return null
      return { jsonrpc: '2.0', id, error: { code: RPC.invalidRequest, message: 'Invalid Request' } }
    }
    if (!('id' in m)) return null // a notification: initialized, cancelled, ... nothing to answer
    if (!hasId) return { jsonrpc: '2.0', id: null, error: { code: RPC.invalidRequest, message: 'Invalid Request: id must be a string or a number' } }
    try {
      const result = await this.#dispatch(m.method, (m.params ?? {}) as Record<string, unknown>)
      return { jsonrpc: '2.0', id, result }
    } catch (err) {
      if (err instanceof RpcError) return { jsonrpc: '2.0', id, error: { code: err.rpcCode, message: err.message } }
      return { jsonrpc: '2.0', id, error: { code: RPC.internal, message: (err as Error).message } }
    }
  }

  async #dispatch(method: string, params: Record<string, unknown>): Promise<unknown> {
    switch (method) {
      case 'initialize': {
        const asked = params.protocolVersion
        const version = typeof asked === 'string' && (PROTOCOL_VERSIONS as readonly string[]).includes(asked) ? asked : LATEST
        return {
          protocolVersion: version,
          capabilities: { tools: { listChanged: false } },
          serverInfo: { name: 'lookout', title: 'Lookout desktop', version: this.#opts.version },
          instructions: 'Tools over the local Lookout desktop service: project items (project_*), workspaces, resources, logs, notifications and monitoring. '
            + 'Failures are isError results with structuredContent.error {code, message, status}.',
        }
      }
      case 'ping':
        return {}
      case 'tools/list':
        return { tools: this.offered().map((t) => (this.#tools.get(t.name) as { listed: object }).listed) }
      case 'tools/call':
        return this.#call(params)
      default:
        throw new RpcError(RPC.methodNotFound, `Method not found: ${method}`)
    }
  }

  async #call(params: Record<string, unknown>) {
    const name = params.name
    const tool = typeof name === 'string' ? this.#tools.get(name) : undefined
    if (tool === undefined) throw new RpcError(RPC.invalidParams, `Unknown tool: ${String(name)}`)
    const { spec } = tool
    if (this.#opts.readOnly && spec.write) {
      const e = new McpReadOnlyError(spec.name)
      return errorResult({ code: e.code, message: e.message, status: e.statusCode })
    }
    const given = params.arguments ?? {}
    if (given === null || typeof given !== 'object' || Array.isArray(given)) {
      return errorResult({ code: 'LOOKOUT_VALIDATION', message: 'arguments must be an object', status: 400 })
    }
    const args = structuredClone(given) as Record<string, unknown>
    if (!tool.validate(args)) {
      const details = (tool.validate.errors ?? []).map((e) => ({ path: e.instancePath || '/', message: e.message ?? 'invalid', params: e.params }))
      return errorResult({
        code: 'LOOKOUT_VALIDATION', message: details.map((d) => `${d.path}: ${d.message}`).join('; '), status: 400, details,
      })
    }
    const rest: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(args)) if (!spec.pathArgs.includes(k)) rest[k] = v
    const path = spec.path(args, this.#opts.context)
    try {
      const res = spec.method === 'GET'
        ? await this.#opts.client.request('GET', path, rest)
        : await this.#opts.client.request(spec.method, path, {}, rest)
      const ok = (spec.answers ?? []).includes(res.status) || (res.status >= 200 && res.status < 300)
      return ok ? okResult(res.body, res.sync) : errorResult(toolErrorOf(res.status, res.body))
    } catch (err) {
      if (err instanceof ServiceUnreachable) return errorResult({ code: err.code, message: err.message, status: 503 })
      throw err
    }
  }
}

class RpcError extends Error {
  readonly rpcCode: number
  constructor(code: number, message: string) {
    super(message)
    this.rpcCode = code
  }
}
