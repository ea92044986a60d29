// The shared workspace id at the desktop's edge (workspace/identity/shared-ids.ts):
// a connected workspace is named and shown by the portal's workspace uuid. On the
// way in, a shared id in the path, the `workspace_id` query or body field or
// X-Lookout-Workspace becomes the local id before authentication, so every route
// below works on the local key (and the local id is still accepted as before).
// On the way out, the local id in a JSON answer (records, GET /v1/workspaces, the
// assignment view, tool results, URLs) is replaced by the shared id. Both are
// one map lookup per request, nothing at all while no workspace is connected.
import fp from 'fastify-plugin'
import type { FastifyInstance } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { localIdOf, sharedIds } from '../../workspace/index.ts'

const HEADER = 'x-lookout-workspace'

function translateIn(toLocal: ReadonlyMap<string, string>, part: unknown): void {
  if (part === null || typeof part !== 'object') return
  const rec = part as Record<string, unknown>
  const v = rec.workspace_id
  if (typeof v === 'string' && toLocal.has(v.toLowerCase())) rec.workspace_id = toLocal.get(v.toLowerCase())
}

async function sharedWorkspacePlugin(app: FastifyInstance, opts: { db: Sql }): Promise<void> {
  app.addHook('onRequest', async (req) => {
    const ids = await sharedIds(opts.db)
    if (ids.toLocal.size === 0) return
    translateIn(ids.toLocal, req.params)
    translateIn(ids.toLocal, req.query)
    const h = req.headers[HEADER]
    if (typeof h === 'string') req.headers[HEADER] = localIdOf(ids, h)
  })
  app.addHook('preValidation', async (req) => {
    const ids = await sharedIds(opts.db)
    if (ids.toLocal.size > 0) translateIn(ids.toLocal, req.body)
  })
  app.addHook('onSend', async (_req, reply, payload) => {
    if (typeof payload !== 'string') return payload
    const ids = await sharedIds(opts.db)
    if (ids.toShared.size === 0) return payload
    const type = reply.getHeader('content-type')
    if (typeof type !== 'string' || !type.includes('json')) return payload
    let out = payload
    for (const [local, shared] of ids.toShared) if (out.includes(local)) out = out.replaceAll(local, shared)
    return out
  })
}

export const sharedWorkspace = fp(sharedWorkspacePlugin, { name: 'lookout-shared-workspace' })
