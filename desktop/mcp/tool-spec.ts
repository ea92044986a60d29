// What a tool is: one fixed route of the desktop service, the schema of its
// arguments, and (for the portal-shaped project tools) the route's own request
// and response schemas.
import type { Scope } from '../../workspace/index.ts'

export interface ToolContext {
  /** The workspace of the acting principal, for routes whose path names one. */
  workspaceId: string
}

export interface ToolSpec {
  name: string
  description: string
  /** Changes data: hidden and refused with --read-only. */
  write: boolean
  /** The scope the route needs (null: any credential); tools a grant lacks are not listed. */
  scope: Scope | null
  /** Ajv schema of the arguments (route flavour: `nullable`). */
  input: object
  /** JSON Schema of a successful result's structuredContent, listed as the tool's outputSchema. */
  output?: object
  /** The portal (cloud route) request schema the input is made of, path parameters aside. */
  request?: object
  method: 'GET' | 'POST' | 'PATCH' | 'DELETE'
  /** Arguments that go into the path, not the query or body. */
  pathArgs: readonly string[]
  path(args: Record<string, unknown>, ctx: ToolContext): string
  /** Statuses that are answers, not failures (default 2xx). */
  answers?: readonly number[]
}

export interface ObjectSchema {
  type?: string
  required?: readonly string[]
  properties?: Record<string, unknown>
  additionalProperties?: boolean
}

/** A route's query or body schema with extra (path) properties. */
export function withArgs(base: ObjectSchema, extra: Record<string, unknown>, required: readonly string[] = []): object {
  return {
    ...base,
    type: 'object',
    additionalProperties: false,
    required: [...required, ...(base.required ?? [])],
    properties: { ...extra, ...base.properties },
  }
}

/**
 * A cloud request schema with the route's path parameters in front: the
 * schema is otherwise untouched (no `required` added where it has none), so
 * the tool's input is that schema plus the path.
 */
export function withPath(base: ObjectSchema, path: Record<string, unknown>, required: readonly string[] = []): object {
  const req = [...required, ...(base.required ?? [])]
  return { ...base, properties: { ...path, ...base.properties }, ...(req.length > 0 ? { required: req } : {}) }
}

export const enc = (v: unknown): string => encodeURIComponent(String(v))
export const uuid = { type: 'string', format: 'uuid' } as const
export const WS_ARG = { workspace_id: { ...uuid, description: 'Workspace (default: the one this server acts in; see workspace_list)' } } as const
export const wsOf = (a: Record<string, unknown>, ctx: ToolContext): string => enc(a.workspace_id ?? ctx.workspaceId)
