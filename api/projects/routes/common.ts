// What every project route plugin shares: options, auth configs, the acting
// context, cursors and id normalisation.
import type { FastifyReply, FastifyRequest } from 'fastify'
import type { Database } from '../../../core/index.ts'
import type { CursorCodec } from '../../../core/index.ts'
import { principalOf } from '../../auth/plugin.ts'
import { SCOPES } from '../../../workspace/index.ts'
import { RequestInvalid } from '../../../core/index.ts'
import { detail } from '../../../core/index.ts'
import { actorOf, type ProjectCtx } from '../../../workspace/index.ts'
import type { Page } from '../../../workspace/index.ts'

export interface ProjectRouteOptions {
  db: Database
  cursors: CursorCodec
  /** Served by the desktop service: old ids resolve on every project route, local-only writes say so. */
  desktop?: boolean
}

export const P = '/v1/workspaces/:workspace_id'

// The spec names no scopes for the cloud project routes: reads need project:read, changes project:write.
// A desktop grant needs the route's own scope (access).
export const CLOUD_READ = { auth: { contract: 'cloud', scope: SCOPES.projectRead }, access: [SCOPES.projectRead] } as const
export const CLOUD_WRITE = { auth: { contract: 'cloud', scope: SCOPES.projectWrite }, access: [SCOPES.projectWrite] } as const
export const DESKTOP_READ = { auth: { contract: 'desktop', scope: SCOPES.projectRead }, access: [SCOPES.projectRead] } as const
export const DESKTOP_WRITE = { auth: { contract: 'desktop', scope: SCOPES.projectWrite }, access: [SCOPES.projectWrite] } as const

export function ctxOf(req: FastifyRequest, db: Database, workspaceId?: string): ProjectCtx {
  const p = principalOf(req)
  return { db, workspaceId: workspaceId ?? p.workspaceId, actor: actorOf(p, req.isOwner) }
}

/** The position a cursor continues after, or null; a bad cursor is a validation error at query.cursor. */
export function cursorAfter(cursors: CursorCodec, kind: string, cursor: string | undefined, arity = 1): unknown[] | null {
  if (cursor === undefined) return null
  const v = cursors.decode(kind, cursor)
  if (v === null || v.length !== arity || !v.every((x) => typeof x === 'string' || typeof x === 'number')) {
    throw new RequestInvalid([detail(['query', 'cursor'], 'Invalid cursor', 'value_error')])
  }
  return v
}

export function afterKey(cursors: CursorCodec, kind: string, cursor: string | undefined): string | null {
  const v = cursorAfter(cursors, kind, cursor)
  return v === null ? null : String(v[0])
}

export function pageBody<T>(cursors: CursorCodec, kind: string, page: Page<T>): { items: T[]; next_cursor: string | null } {
  return { items: page.items, next_cursor: page.last === null ? null : cursors.encode(kind, [page.last]) }
}

/**
 * The same page body as pageBody for items kept as JSON text (store/list-doc.ts):
 * concatenated, not parsed and serialized again. Byte for byte what
 * JSON.stringify(pageBody(...)) makes of the same items.
 */
export function sendDocPage(reply: FastifyReply, cursors: CursorCodec, kind: string, page: Page<string>): string {
  const next = page.last === null ? 'null' : JSON.stringify(cursors.encode(kind, [page.last]))
  reply.type('application/json; charset=utf-8')
  return `{"items":[${page.items.join(',')}],"next_cursor":${next}}`
}

const ID_KEYS = new Set([
  'workspace_id', 'item_id', 'comment_id', 'id', 'board_id', 'type_id', 'label_ids', 'type_ids', 'status_id', 'service', 'deliverable',
  'source_ticket', 'target_board_id', 'target_status_id', 'replacement_id', 'status_ids', 'order', 'deliverable_id', 'from_id', 'to_id',
  'idempotency_key', 'resource',
])

/** UUIDs compare as lowercase text once stored: fold the ones a request carries the same way. */
export function foldIds<T>(o: T): T {
  if (o === null || typeof o !== 'object') return o
  const rec = o as Record<string, unknown>
  for (const k of Object.keys(rec)) {
    if (!ID_KEYS.has(k)) continue
    const v = rec[k]
    if (typeof v === 'string') rec[k] = v.toLowerCase()
    else if (Array.isArray(v)) rec[k] = v.map((x) => (typeof x === 'string' ? x.toLowerCase() : x))
  }
  return o
}

/** Params, query and body of a validated request, with ids folded. */
export function parts<B = unknown, Q = unknown, Pa = unknown>(req: FastifyRequest): { body: B; query: Q; params: Pa } {
  return {
    body: foldIds(req.body as B),
    query: foldIds(req.query as Q),
    params: foldIds(req.params as Pa),
  }
}
