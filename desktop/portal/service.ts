// The owner's face of the portal connection: connect, status, disconnect,
// conflicts and catalogue reviews, and the portal-backed reads (logs, health)
// that use the connection's token, i.e. the portal's live permissions.
import type { Database } from '../../core/index.ts'
import { BadRequestError, NotFoundError, SecretKeyMissingError } from '../../core/index.ts'
import { PortalNotConnectedError, PortalOfflineError, PortalRefusedError } from '../errors.ts'
import { SecretBox } from '../../core/index.ts'
import { ensureProject, forgetSharedIds, resourceSummaries } from '../../workspace/index.ts'
import { isPortalNotification } from '../../alerting/index.ts'
import { PortalRefusal, PortalUnreachable, portalCall, TAXONOMY_FEATURE, type PortalTarget } from './client.ts'
import { deleteConnection, openToken, readConnection, recordOutcome, saveConnection } from './connection.ts'
import { PortalSync, type PortalSyncOptions, type RoundResult } from './engine.ts'
import { counts, listAttention, resolveOp } from './outbox.ts'
import { listReviews, resolveReview } from './reviews.ts'
import { portalNotificationAction, portalReadAll, refreshPortalNotifications, type PortalAction } from './notifications.ts'

export interface ConnectInput {
  url: string
  token: string
}

/** Turns a portal failure into the desktop contract's error: offline (503) or refused (502). */
export function portalError(err: unknown, what: string): Error {
  if (err instanceof PortalUnreachable) return new PortalOfflineError(`${what}: ${err.message}`)
  if (err instanceof PortalRefusal) return new PortalRefusedError(`${what}: ${err.message}`)
  return err as Error
}

function checkUrl(raw: string): string {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new BadRequestError('url is not a URL')
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new BadRequestError('url must be http or https')
  if (u.username !== '' || u.password !== '' || u.search !== '' || u.hash !== '') throw new BadRequestError('url must not carry credentials, a query or a fragment')
  return u.origin + u.pathname.replace(/\/+$/, '')
}

/**
 * What stays on this desktop while connected, by the spec or not synced yet
 * (deploy/PORTAL.md): the status lists it, so nothing looks shared and stays silently local.
 */
export const LOCAL_ONLY = [
  'logs', 'monitoring configuration', 'credentials and grants', 'local incidents and notifications',
  'service tickets', 'services and time entries', 'webhooks',
] as const

export class PortalService {
  readonly #db: Database
  readonly #key: Buffer | undefined
  readonly sync: PortalSync

  constructor(db: Database, secretKey: Buffer | undefined, opts: PortalSyncOptions = {}) {
    this.#db = db
    this.#key = secretKey
    this.sync = new PortalSync(db, () => this.#box(), opts)
  }

  #box(): SecretBox {
    if (this.#key === undefined) throw new SecretKeyMissingError()
    return new SecretBox(this.#key)
  }

  async #target(ws: string): Promise<{ target: PortalTarget; portalWs: string; scopes: string[] }> {
    const conn = await readConnection(this.#db, ws)
    if (conn === undefined) throw new PortalOfflineError('no portal connection is configured (lookout portal connect)')
    return { target: { url: conn.url, token: openToken(this.#box(), conn) }, portalWs: conn.portal_workspace_id, scopes: conn.scopes }
  }

  /** Checks the token against the portal (GET /v1/me), seals and saves it, and starts a sync round. */
  async connect(ws: string, input: ConnectInput) {
    const box = this.#box()
    const url = checkUrl(input.url)
    if (!input.token.startsWith('lkt_')) throw new BadRequestError('token must be a portal token (lkt_...)')
    let me
    try {
      me = await portalCall<{ workspace: { id: string }; credential: { scopes: string[] } }>({ url, token: input.token }, 'GET', '/v1/me', undefined, { retries: 0 })
    } catch (err) {
      throw portalError(err, 'the connection check (GET /v1/me) failed')
    }
    const scopes = me.body.credential.scopes
    const missing = ['project:read', 'project:write'].filter((s) => !scopes.includes(s))
    if (missing.length > 0) throw new BadRequestError(`the token lacks ${missing.join(', ')} on the portal workspace`)
    // The project area exists before the first round (the order deploy/PORTAL.md shows: connect, then work), so the
    // round adopts the portal's default board and type instead of a later first request making second ones.
    await ensureProject(this.#db, ws)
    await this.#db.transaction((tx) => saveConnection(tx, box, ws, { url, token: input.token, portalWorkspaceId: me.body.workspace.id, scopes, features: me.features }))
    forgetSharedIds(this.#db)
    this.sync.kick(ws)
    return this.status(ws)
  }

  async disconnect(ws: string) {
    const gone = await this.#db.transaction((tx) => deleteConnection(tx, ws))
    forgetSharedIds(this.#db)
    if (!gone) throw new PortalNotConnectedError('this workspace is not connected')
    return { state: 'disconnected' as const }
  }

  async status(ws: string) {
    const conn = await readConnection(this.#db, ws)
    const c = await counts(this.#db, ws)
    const reviews = (await listReviews(this.#db, ws)).length
    if (conn === undefined) {
      return { state: 'disconnected' as const, pending_operations: c.pending, conflicts: c.conflicts, reviews, local_only: LOCAL_ONLY }
    }
    return {
      state: conn.state,
      url: conn.url,
      workspace_id: conn.portal_workspace_id,
      scopes: conn.scopes,
      features: conn.features,
      task_taxonomy: conn.features.includes(TAXONOMY_FEATURE),
      connected_at: conn.connected_at,
      last_sync_at: conn.last_sync_at,
      last_attempt_at: conn.last_attempt_at,
      last_error: conn.last_error,
      last_error_at: conn.last_error_at,
      pending_operations: c.pending,
      conflicts: c.conflicts,
      reviews,
      local_only: LOCAL_ONLY,
    }
  }

  async syncNow(ws: string): Promise<RoundResult> {
    if (await readConnection(this.#db, ws) === undefined) throw new PortalNotConnectedError('this workspace is not connected')
    return this.sync.sync(ws)
  }

  async conflicts(ws: string) {
    return { items: await listAttention(this.#db, ws) }
  }

  async resolveConflict(ws: string, seq: string, action: 'retry' | 'drop') {
    if (!await resolveOp(this.#db, ws, seq, action)) throw new NotFoundError(`conflict ${seq}`)
    this.sync.kick(ws)
    return { seq, action }
  }

  async reviews(ws: string) {
    return { items: await listReviews(this.#db, ws) }
  }

  async resolveReview(ws: string, id: string, keep: 'local' | 'portal') {
    if (!await resolveReview(this.#db, ws, id, keep)) throw new NotFoundError(`review ${id}`)
    this.sync.kick(ws)
    return { id, keep }
  }

  async #localResource(ws: string, resourceId: string): Promise<{ external_id: string }> {
    const local = (await resourceSummaries(this.#db, ws, [resourceId.toLowerCase()])).get(resourceId.toLowerCase())
    if (local === undefined) throw new NotFoundError(`resource ${resourceId}`)
    return local
  }

  /** The portal resource of a local one: same external_id in the portal workspace. */
  async #portalResource(ws: string, local: { external_id: string }, t: { target: PortalTarget; portalWs: string }): Promise<string> {
    const found = await this.#attempt(ws, 'the portal resource lookup failed',
      () => portalCall<{ items: { id: string }[] }>(t.target, 'GET', `/v1/workspaces/${t.portalWs}/resources`, undefined, { query: { external_id: local.external_id }, retries: 0 }))
    const id = found.body.items[0]?.id
    if (id === undefined) throw new NotFoundError(`a portal resource with external_id ${JSON.stringify(local.external_id)}`)
    return id
  }

  async logs(ws: string, resourceId: string, query: Record<string, string | number | undefined>) {
    const local = await this.#localResource(ws, resourceId)
    const t = await this.#target(ws)
    const rid = await this.#portalResource(ws, local, t)
    const r = await this.#attempt(ws, 'the portal logs query failed',
      () => portalCall<{ events: unknown[]; next_cursor: string | null }>(t.target, 'GET', `/v1/workspaces/${t.portalWs}/resources/${rid}/logs`, undefined, { query, retries: 0 }))
    return { ...r.body, source: 'portal', workspace_id: t.portalWs, resource_id: resourceId.toLowerCase(), portal_resource_id: rid }
  }

  /** A portal read is an attempt too: the status shows whether it reached the portal. */
  async #attempt<T>(ws: string, what: string, fn: () => Promise<T>): Promise<T> {
    try {
      const out = await fn()
      await recordOutcome(this.#db, ws, 'connected', null)
      return out
    } catch (err) {
      if (err instanceof PortalUnreachable) await recordOutcome(this.#db, ws, 'offline', `${what}: ${err.message}`)
      throw portalError(err, what)
    }
  }

  /** POST /v1/notifications/refresh: fills the portal cache of the inbox; fails offline, never substitutes local results. */
  async refreshNotifications(ws: string) {
    const t = await this.#target(ws)
    try {
      return await refreshPortalNotifications(this.#db, ws, t.target, t.portalWs)
    } catch (err) {
      throw portalError(err, 'the portal notification refresh failed')
    }
  }

  /** A notification action on a cached portal entry is the portal's (done there first); false: not a portal entry. */
  async notificationAction(ws: string, action: PortalAction, id: string): Promise<boolean> {
    if (!await isPortalNotification(this.#db, ws, id)) return false
    const t = await this.#target(ws)
    try {
      await portalNotificationAction(this.#db, ws, t.target, t.portalWs, action, id)
    } catch (err) {
      throw portalError(err, `the portal notification action (${action}) failed`)
    }
    return true
  }

  /** read_all on the portal's inbox; null without a connection. */
  async notificationsReadAll(ws: string): Promise<number | null> {
    if (await readConnection(this.#db, ws) === undefined) return null
    const t = await this.#target(ws)
    try {
      return await portalReadAll(this.#db, ws, t.target, t.portalWs)
    } catch (err) {
      throw portalError(err, 'the portal notification action (read_all) failed')
    }
  }

  async monitoring(ws: string, resourceId: string) {
    const local = await this.#localResource(ws, resourceId)
    const t = await this.#target(ws)
    const rid = await this.#portalResource(ws, local, t)
    const r = await this.#attempt(ws, 'the portal health query failed',
      () => portalCall<Record<string, unknown>>(t.target, 'GET', `/v1/workspaces/${t.portalWs}/resources/${rid}/monitoring`, undefined, { query: { view: 'status' }, retries: 0 }))
    return { ...r.body, source: 'portal', workspace_id: t.portalWs, resource_id: resourceId.toLowerCase(), portal_resource_id: rid }
  }
}
