// The portal sync worker of the desktop service: for every connected
// workspace, one round at a time: confirm the credential and the offered
// features (GET /v1/me), catalogue snapshots, capture local changes into the
// outbox (also before the portal is asked anything), send the outbox in order, pull the portal's changes. A round that
// cannot reach the portal leaves everything queued and marks the connection
// offline; the next round (timer or wake) carries on where it stopped.
import type { Database } from '../../core/index.ts'
import type { SecretBox } from '../../core/index.ts'
import { ensureProject, markPortalShared } from '../../workspace/index.ts'
import { syncCatalogues, type CatalogueContext } from './catalogues.ts'
import { syncLayouts } from './catalogue-layout.ts'
import { PortalRefusal, PortalUnreachable, portalCall, TAXONOMY_FEATURE, type PortalTarget } from './client.ts'
import { BATCH_FEATURE } from './push-batch.ts'
import { listConnections, openToken, readConnection, recordOutcome, type ConnectionRow } from './connection.ts'
import { capture, counts } from './outbox.ts'
import { pull } from './pull.ts'
import { pushOutbox, type PushContext } from './push.ts'
import { pushRecords } from './push-records.ts'
import { captureRecords } from './records.ts'

export interface PortalSyncOptions {
  /** Time between rounds; default 30 s (a local change or a connect wakes it sooner). */
  intervalMs?: number
  onError?: (message: string, err: unknown) => void
}

export interface RoundResult {
  state: 'connected' | 'offline' | 'error'
  captured: number
  pushed: number
  pulled: number
  /** Operations the portal refused in this round (conflicts and refusals), for the owner. */
  conflicts_opened: number
  error: string | null
}

export class PortalSync {
  readonly #db: Database
  readonly #box: () => SecretBox
  readonly #opts: PortalSyncOptions
  /** One round per workspace at a time; a request for a round while one runs waits for the next. */
  readonly #rounds = new Map<string, Promise<RoundResult>>()
  #timer: NodeJS.Timeout | null = null
  #stopped = true

  constructor(db: Database, box: () => SecretBox, opts: PortalSyncOptions = {}) {
    this.#db = db
    this.#box = box
    this.#opts = opts
  }

  start(): void {
    this.#stopped = false
    const tick = () => {
      if (this.#stopped) return
      void this.syncAll().finally(() => {
        if (!this.#stopped) this.#timer = setTimeout(tick, this.#opts.intervalMs ?? 30_000)
      })
    }
    this.#timer = setTimeout(tick, 0)
  }

  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#timer !== null) clearTimeout(this.#timer)
    await Promise.allSettled([...this.#rounds.values()])
  }

  async syncAll(): Promise<void> {
    let conns: ConnectionRow[]
    try {
      conns = await listConnections(this.#db)
    } catch (err) {
      this.#opts.onError?.('portal sync', err)
      return
    }
    await Promise.allSettled(conns.map((c) => this.sync(c.workspace_id)))
  }

  /** Starts a round in the background (after a connect or an owner decision); its outcome goes to the status. */
  kick(ws: string): void {
    this.sync(ws).catch((err: unknown) => this.#opts.onError?.('portal sync', err))
  }

  /** Runs a round for the workspace (after the one in progress, if any) and returns its outcome. */
  sync(ws: string): Promise<RoundResult> {
    const prev = this.#rounds.get(ws) ?? Promise.resolve(undefined)
    const next = prev.catch(() => undefined).then(() => this.#round(ws))
    this.#rounds.set(ws, next)
    void next.finally(() => {
      if (this.#rounds.get(ws) === next) this.#rounds.delete(ws)
    }).catch(() => undefined)
    return next
  }

  async #round(ws: string): Promise<RoundResult> {
    const out: RoundResult = { state: 'connected', captured: 0, pushed: 0, pulled: 0, conflicts_opened: 0, error: null }
    const conn = await readConnection(this.#db, ws)
    if (conn === undefined) return { ...out, state: 'error', error: 'not connected' }
    const portalWs = conn.portal_workspace_id
    try {
      let target: PortalTarget
      try {
        target = { url: conn.url, token: openToken(this.#box(), conn) }
      } catch (err) {
        if ((err as { code?: string }).code === 'LOOKOUT_SECRET_KEY_MISSING') throw err
        throw new Error('the portal token cannot be opened with the current secret key: connect again (lookout portal connect)')
      }
      // A desktop connected before its first project request (older versions) has no project area or was never marked shared.
      await ensureProject(this.#db, ws)
      await markPortalShared(this.#db, ws)
      // Local work enters the outbox first, so a round that cannot reach the portal still shows it as pending.
      out.captured = await capture(this.#db, ws)
      out.captured += await captureRecords(this.#db, ws)
      const me = await portalCall<{ workspace: { id: string }; credential: { id: string | null; scopes: string[] } }>(target, 'GET', '/v1/me')
      if (me.body.workspace.id !== portalWs) throw new Error(`the token now belongs to portal workspace ${me.body.workspace.id}, not ${portalWs}: reconnect`)
      await this.#db.query('UPDATE portal_connection SET features = $2, scopes = $3 WHERE workspace_id = $1', [ws, me.features, me.body.credential.scopes])
      // The portal answers: the status says so now, not when the (possibly long) round ends.
      await recordOutcome(this.#db, ws, 'connected', null)
      const taxonomy = me.features.includes(TAXONOMY_FEATURE)
      const ctx: CatalogueContext & PushContext = { db: this.#db, ws, portalWs, target, taxonomy, touched: new Set(), batch: me.features.includes(BATCH_FEATURE) }
      await syncLayouts(ctx, await syncCatalogues(ctx))
      out.captured += await capture(this.#db, ws)
      out.captured += await captureRecords(this.#db, ws)
      const before = (await counts(this.#db, ws)).conflicts
      try {
        // Deliverables before the tasks that link to them.
        out.pushed = await pushOutbox(ctx, ['deliverable'])
        out.pushed += await pushOutbox(ctx)
        // Comments and edges after the tasks and notes they belong to.
        out.pushed += await pushRecords(ctx)
      } finally {
        out.conflicts_opened = Math.max(0, (await counts(this.#db, ws)).conflicts - before)
      }
      if (ctx.deferred === true) await syncCatalogues({ ...ctx, deferred: false })
      const p = await pull({ ...ctx, self: me.body.credential.id }, conn.pull_cursor)
      out.pulled = p.applied
      await this.#db.query('UPDATE portal_connection SET pull_cursor = $2 WHERE workspace_id = $1', [ws, p.cursor])
      await recordOutcome(this.#db, ws, 'connected', null, true)
      return out
    } catch (err) {
      const offline = err instanceof PortalUnreachable
      out.state = offline ? 'offline' : 'error'
      out.error = (err as Error).message
      if (!offline && !(err instanceof PortalRefusal)) this.#opts.onError?.('portal sync', err)
      await recordOutcome(this.#db, ws, out.state, out.error).catch(() => undefined)
      return out
    }
  }
}
