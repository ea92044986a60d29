// Administration over an owner-only Unix socket in the data directory: the CLI
// asks the running server instead of opening its PGlite directory a second time.
import { chmodSync, existsSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import Fastify, { type FastifyInstance } from 'fastify'
import { Client } from 'undici'
import { ALL_SCOPES, createToken, createWorkspace, listStaff, listTokens, listWorkspaces, revokeToken, setStaff, type StaffPatch } from '../workspace/index.ts'
import { type Sql } from '../core/index.ts'
import { CODE_TTL_MS, ConsoleSessions } from '../console/index.ts'
import { createBackup, listBackups, type BackupSources } from './backup.ts'
import { lastRestore } from './backup-live.ts'
import { ACT_AS_GRANT_HEADER } from '../desktop/index.ts'

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
export interface ConsoleLinkRequest {
  /** The workspace to sign in to; default: the only one (a first one is created when there is none). */
  workspace?: string
  scopes?: string[]
  resources?: 'all' | string[]
}

export interface ConsoleLink {
  url: string
  workspace_id: string
  token_id: string
  expires_in_seconds: number
}

/**
 * A one-time console sign-in link: a new access token for the console (every
 * scope and resource unless narrowed) and a code that opens a session for it.
 * The code travels in the URL fragment, which browsers never send to a server.
 */
export async function consoleLink(db: Sql, baseUrl: string, r: ConsoleLinkRequest): Promise<ConsoleLink> {
  let workspace = r.workspace
  if (workspace === undefined) {
    const all = await listWorkspaces(db)
    if (all.length > 1) throw new Error(`${all.length} workspaces: name one with --workspace (lookout workspace list)`)
    workspace = all[0]?.id ?? (await createWorkspace(db, 'default')).id
  }
  const t = await createToken(db, { workspaceId: workspace, scopes: r.scopes ?? ALL_SCOPES, resources: r.resources ?? 'all', name: 'console' })
  const code = await new ConsoleSessions(db).createCode(t.id)
  return { url: `${baseUrl}/#signin=${code}`, workspace_id: workspace, token_id: t.id, expires_in_seconds: CODE_TTL_MS / 1000 }
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
export async function startAdminSocket(dataDir: string, db: Sql, ownerApp?: FastifyInstance, socketPath = adminSocketPath(dataDir), consoleUrl?: string, backups?: BackupSources): Promise<FastifyInstance> {
  const ops = adminOps(db)
  const app = ownerApp ?? Fastify({ logger: false })
  if (ownerApp === undefined) {
    app.setErrorHandler((err: { statusCode?: number; message: string; code?: string }, _req, reply) => {
      void reply.code(err.statusCode ?? 500).send({ error: { message: err.message, code: err.code } })
    })
  }
  // The owner's own operations: a stored grant acted with on the socket (desktop/act-as.ts) never reaches them.
  const OWN = {
    onRequest: async (req: { headers: Record<string, unknown> }) => {
      if (req.headers[ACT_AS_GRANT_HEADER] !== undefined) {
        throw Object.assign(new Error('administration (tokens, staff, backups, console links) is the owner\'s own: a grant cannot act on it'), { statusCode: 403, code: 'LOOKOUT_FORBIDDEN' })
      }
    },
  }
  app.post('/admin/workspaces', OWN, async (req, reply) => {
    reply.code(201)
    return ops.createWorkspace(String((req.body as { name?: unknown })?.name ?? ''))
  })
  app.get('/admin/workspaces', OWN, async () => ops.listWorkspaces())
  app.post('/admin/tokens', OWN, async (req, reply) => {
    reply.code(201)
    return ops.createToken(req.body as TokenRequest)
  })
  app.get('/admin/tokens', OWN, async (req) => ops.listTokens((req.query as { workspace?: string }).workspace))
  app.post('/admin/staff', OWN, async (req) => ops.setStaff(req.body as StaffRequest))
  app.get('/admin/staff', OWN, async (req) => ops.listStaff((req.query as { workspace?: string }).workspace))
  app.post('/admin/tokens/:id/revoke', OWN, async (req) => ({ revoked: await ops.revokeToken((req.params as { id: string }).id) }))
  app.post('/admin/console/link', OWN, async (req, reply) => {
    if (consoleUrl === undefined) throw Object.assign(new Error('this process serves no console (no api role)'), { statusCode: 409 })
    reply.code(201)
    return consoleLink(db, consoleUrl, (req.body ?? {}) as ConsoleLinkRequest)
  })
  // Backups of the running service's stores (deploy/backup.ts).
  app.post('/admin/backups', OWN, async (_req, reply) => {
    if (backups === undefined) throw Object.assign(new Error('this process holds no stores to back up'), { statusCode: 409 })
    reply.code(201)
    return createBackup(backups)
  })
  app.get('/admin/backups', OWN, async () => ({ items: listBackups(dataDir) }))
  // A restore on the running service (deploy/backup-live.ts): answered 202, then the process restarts on the backup.
  app.post('/admin/backups/restore', OWN, async (req, reply) => {
    const live = backups?.live
    if (live === undefined) {
      throw Object.assign(new Error('this process cannot restore while it runs (not started by lookout serve or lookout desktop): stop it, then restore'), { statusCode: 409 })
    }
    const ref = (req.body as { backup?: unknown } | undefined)?.backup
    if (typeof ref !== 'string' || ref === '') throw Object.assign(new Error('body: backup (an id or a path) is required'), { statusCode: 400 })
    const asked = live.ask(ref)
    // The process stops once this answer has left.
    reply.raw.once('close', () => live.go())
    reply.code(202)
    return { restoring: true, restore_id: asked.restore_id, id: asked.id }
  })
  app.get('/admin/backups/restore', OWN, async () => ({ last: lastRestore(dataDir) }))
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
