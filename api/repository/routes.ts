// Repository views of a resource of kind repository (see source.ts for what it
// may name): GET .../repository?view=status|tree|file|search|semantic and
// POST .../repository/refresh (starts a background fetch, answers at once).
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Sql } from '../../core/index.ts'
import { principalOf } from '../auth/plugin.ts'
import { RepositoryUnavailableError } from '../../workspace/index.ts'
import { RESOURCE_PARAMS, SCOPES } from '../../workspace/index.ts'
import { getResource } from '../../workspace/index.ts'
import { GitError, GitMissing } from '../../workspace/index.ts'
import { acquireMirrors, releaseMirrors } from '../../workspace/index.ts'
import { repoPath } from '../../workspace/index.ts'
import { configuredValue, resolveSource, SOURCE_KEYS, type ResolvedSource, type SourceName } from '../../workspace/index.ts'
import { fileView, searchView, semanticView, statusView, treeView } from '../../workspace/index.ts'
import { checkSshRemote, sshCommandFor } from '../../workspace/index.ts'
import type { RuntimeSecrets } from '../../tunnel/index.ts'

export interface RepositoryRoutesOptions {
  db: Sql
  /** Where the server keeps its clones. */
  cacheDir: string
  /** Directories under which a local repository may be named (LOOKOUT_REPOSITORY_ROOTS). */
  roots: readonly string[]
  /** Resource SSH keys for ssh:// repositories (present when LOOKOUT_SECRET_KEY is set). */
  runtime?: RuntimeSecrets
}

export const REPOSITORY_QUERY = {
  type: 'object',
  additionalProperties: false,
  properties: {
    view: { type: 'string', enum: ['status', 'tree', 'file', 'search', 'semantic'], default: 'status' },
    source: { type: 'string', enum: ['code', 'wiki'], default: 'code' },
    path: { type: 'string', maxLength: 2000, default: '' },
    query: { type: 'string', maxLength: 1000, default: '' },
    limit: { type: 'integer', minimum: 1, maximum: 100, default: 30 },
    line: { type: 'integer', minimum: 1, default: 1 },
  },
} as const

interface RepoQuery {
  view: 'status' | 'tree' | 'file' | 'search' | 'semantic'
  source: SourceName
  path: string
  query: string
  limit: number
  line: number
}

const P = '/v1/workspaces/:workspace_id/resources/:resource_id/repository'
const RETRY_AFTER_S = 2

function unavailable(msg: string): Error {
  return Object.assign(new RepositoryUnavailableError(msg), { retryAfter: RETRY_AFTER_S })
}

export async function repositoryRoutes(app: FastifyInstance, opts: RepositoryRoutesOptions): Promise<void> {
  const { db, roots } = opts
  const mirrors = acquireMirrors(opts.cacheDir)
  /** Checks a source git is about to fetch and starts the refresh (ssh:// with the resource's key). */
  const start = async (ws: string, rid: string, src: ResolvedSource): Promise<void> => {
    if (src.ssh === undefined) return mirrors.refresh(rid, src)
    await checkSshRemote(db, ws, rid, src.ssh, opts.runtime)
    mirrors.refresh(rid, src, sshCommandFor(opts.runtime as RuntimeSecrets, join(opts.cacheDir, '.ssh'), ws, rid))
  }
  app.addHook('onClose', async () => releaseMirrors(mirrors))
  // Any token may call them on the cloud; a desktop grant needs project scopes (they read source code; a refresh fetches).
  const auth = { auth: { contract: 'cloud', scope: null } } as const

  app.get(P, { config: { ...auth, access: [SCOPES.projectRead] }, schema: { params: RESOURCE_PARAMS, querystring: REPOSITORY_QUERY } }, async (req) => {
    const p = principalOf(req)
    const rid = (req.params as { resource_id: string }).resource_id
    const q = req.query as RepoQuery
    const path = repoPath(q.path)
    const resource = await getResource(db, p.workspaceId, rid)
    const configured = configuredValue(resource, q.source)
    const src = { source: q.source, configured }
    let state = await mirrors.state(rid, q.source)
    if ((state === null || state.configured !== configured) && !mirrors.isRefreshing(rid, q.source)) {
      // First read of this source (or its details changed): fetch now, in the background.
      // A failed fetch is not retried by reads: POST .../refresh does that.
      await start(p.workspaceId, rid, await resolveSource(resource, q.source, roots))
      state = await mirrors.state(rid, q.source)
    }
    const ready = await mirrors.ready(rid, src)
    // A fetch may have finished since state was read: describe the snapshot that is ready.
    if (ready) state = await mirrors.state(rid, q.source)
    const ctx = { home: mirrors.cacheDir, gitDir: mirrors.gitDir(rid, q.source) }
    const base = { resource_id: rid, source: q.source, view: q.view }
    try {
      if (q.view === 'status') {
        return {
          ...base,
          configured_as: SOURCE_KEYS[q.source],
          state: mirrors.isRefreshing(rid, q.source) ? 'refreshing' : ready ? 'ready' : (state?.state ?? 'refreshing'),
          refreshing: mirrors.isRefreshing(rid, q.source),
          last_refresh_at: ready ? state?.last_refresh_at ?? null : null,
          last_attempt_at: state?.last_attempt_at ?? null,
          last_error: state?.last_error ?? null,
          ...(ready ? await statusView(ctx) : { branch: null, head: null }),
        }
      }
      if (!ready) {
        throw unavailable(state?.state === 'failed' && !mirrors.isRefreshing(rid, q.source)
          ? `the last fetch failed (${state.last_error ?? 'unknown error'}); fix the source and POST .../repository/refresh`
          : 'the server is fetching the repository; retry shortly')
      }
      const w = { line: q.line, limit: q.limit }
      if (q.view === 'tree') return { ...base, ...(await treeView(ctx, path, w)) }
      if (q.view === 'file') return { ...base, ...(await fileView(ctx, path, w)) }
      if (q.view === 'semantic') return { ...base, ...(await semanticView(ctx, path, q.query, w)) }
      return { ...base, ...(await searchView(ctx, path, q.query, w)) }
    } catch (err) {
      if (err instanceof GitMissing) throw unavailable(err.message)
      if (err instanceof GitError) throw unavailable(`git could not read the clone (${err.message.slice(0, 200)}); POST .../repository/refresh`)
      throw err
    }
  })

  app.post(`${P}/refresh`, { config: { ...auth, access: [SCOPES.projectWrite] }, schema: { params: RESOURCE_PARAMS } }, async (req) => {
    const p = principalOf(req)
    const rid = (req.params as { resource_id: string }).resource_id
    const resource = await getResource(db, p.workspaceId, rid)
    const sources: SourceName[] = ['code']
    if ((resource.details[SOURCE_KEYS.wiki] ?? '').trim() !== '') sources.push('wiki')
    // Checked now, so a source the server may not read is a 409 here, not a failed job later.
    const resolved = await Promise.all(sources.map((s) => resolveSource(resource, s, roots)))
    for (const src of resolved) await start(p.workspaceId, rid, src)
    return {
      resource_id: rid,
      requested_at: new Date().toISOString(),
      refreshing: resolved.map((s) => ({ source: s.source, state: mirrors.isRefreshing(rid, s.source) ? 'refreshing' : 'queued' })),
    }
  })
}
