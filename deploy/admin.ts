// Administration over an owner-only Unix socket in the data directory: the CLI
// asks the running server instead of opening its PGlite directory a second time.
import { chmodSync, existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { Client } from 'undici'
import { createToken, createWorkspace, listStaff, listTokens, listWorkspaces, revokeToken, setStaff, type Sql, type StaffPatch } from '../api/index.ts'

export function adminSocketPath(dataDir: string): string {
  return join(dataDir, 'admin.sock')
}

export interface TokenRequest {
  workspace: string
  scopes: string[]
  resources: 'all' | string[]
  name?: string
  staff?: number | null
  kind?: 'access' | 'sender'
}

/** The administrative operations, the same whether run by the server or directly. */
export function adminOps(db: Sql) {
  return {
    createWorkspace: (name: string) => createWorkspace(db, name),
    listWorkspaces: () => listWorkspaces(db),
    createToken: (t: TokenRequest) => createToken(db, {
      workspaceId: t.workspace, scopes: t.scopes, resources: t.resources, name: t.name, staffId: t.staff ?? null, kind: t.kind,
    }),
    revokeToken: (id: string) => revokeToken(db, id),
    listTokens: (workspace?: string) => listTokens(db, workspace),
    setStaff: ({ workspace, staff_id, ...patch }: StaffRequest) => setStaff(db, workspace, staff_id, patch),
    listStaff: (workspace?: string) => listStaff(db, workspace),
  }
}
export interface StaffRequest extends StaffPatch {
  workspace: string
  staff_id: number
}
export type AdminOps = ReturnType<typeof adminOps>

/**
 * The owner socket: the whole API acting as the local owner (when the api role
 * runs here) plus the /admin routes the CLI uses.
 */
export async function startAdminSocket(dataDir: string, db: Sql, ownerApp?: FastifyInstance, socketPath = adminSocketPath(dataDir)): Promise<FastifyInstance> {
  const ops = adminOps(db)
  const app = ownerApp ?? Fastify({ logger: false })
  if (ownerApp === undefined) {
    app.setErrorHandler((err: { statusCode?: number; message: string; code?: string }, _req, reply) => {
      void reply.code(err.statusCode ?? 500).send({ error: { message: err.message, code: err.code } })
    })
  }
  app.post('/admin/workspaces', async (req, reply) => {
    reply.code(201)
    return ops.createWorkspace(String((req.body as { name?: unknown })?.name ?? ''))
  })
  app.get('/admin/workspaces', async () => ops.listWorkspaces())
  app.post('/admin/tokens', async (req, reply) => {
    reply.code(201)
    return ops.createToken(req.body as TokenRequest)
  })
  app.get('/admin/tokens', async (req) => ops.listTokens((req.query as { workspace?: string }).workspace))
  app.post('/admin/staff', async (req) => ops.setStaff(req.body as StaffRequest))
  app.get('/admin/staff', async (req) => ops.listStaff((req.query as { workspace?: string }).workspace))
  app.post('/admin/tokens/:id/revoke', async (req) => ({ revoked: await ops.revokeToken((req.params as { id: string }).id) }))
  const path = socketPath
  if (existsSync(path)) rmSync(path, { force: true }) // left by a killed server; the data-dir lock is held
  const prev = process.umask(0o177)
  try {
    await app.listen({ path })
  } finally {
    process.umask(prev)
  }
  chmodSync(path, 0o600)
  return app
}

/** Calls the running server's admin socket; null when no server answers there. */
export async function callAdmin(dataDir: string, method: 'GET' | 'POST', path: string, body?: unknown): Promise<unknown | null> {
  const socketPath = adminSocketPath(dataDir)
  if (!existsSync(socketPath)) return null
  const client = new Client('http://localhost', { socketPath })
  try {
    const res = await client.request({
      method, path,
      headers: body === undefined ? {} : { 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const data = await res.body.json() as { error?: { message: string } }
    if (res.statusCode >= 400) throw new Error(data.error?.message ?? `admin request failed (${res.statusCode})`)
    return data
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ECONNREFUSED' || code === 'ENOENT') return null
    throw err
  } finally {
    await client.close()
  }
}
