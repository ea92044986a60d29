// The desktop service's state beside the API: its settings and what they
// switch on (the loopback listener, log retention, forwarding to a cloud
// workspace). The deploy stage supplies what lives outside api/ (building a
// listener, the log store) as hooks; the routes (routes.ts) call update().
import type { AcceptedBatch } from '../ingest/index.ts'
import type { Database } from '../core/index.ts'
import { LoopbackUnavailableError, SettingsStaleRevisionError } from './errors.ts'
import { PortalService } from './portal/service.ts'
import { presentSharedIds } from './portal/connection.ts'
import type { PortalSyncOptions } from './portal/engine.ts'
import { readSettings as readNotificationSettings, saveSettings as saveNotificationSettings } from '../alerting/index.ts'
import { enqueueRows, forwardState, retryQueueNow, FORWARD_QUEUE_MAX_BYTES } from './forward-queue.ts'
import { Forwarder, type ForwarderOptions, type ForwardTarget } from './forwarder.ts'
import { merged, readDesktopSettings, saveDesktopSettings, viewOf, type DesktopSettings, type SettingsPatch } from './settings.ts'
import type { DeclaredRoute } from './route-access.ts'

export interface LoopbackHandle {
  url: string
  port: number
  /** Every route the listener serves (method and pattern). */
  routes: readonly DeclaredRoute[]
  close(): Promise<void>
}

export interface DesktopHooks {
  /** Builds and binds the loopback listener on 127.0.0.1:port; rejects when the port cannot be bound. */
  openLoopback(port: number): Promise<LoopbackHandle>
  /** Applies log retention to the store: the table TTL (days) and the size cap (bytes). */
  applyRetention(days: number, bytes: number): Promise<void>
}

export interface DesktopServiceOptions {
  /** The owner socket, for the status view. */
  socketPath: string
  /** The forwarding queue bound; default 16 MiB (the spec's). */
  forwardQueueBytes?: number
  forwarder?: ForwarderOptions
  /** Where failures outside a request go (the service's logger). */
  onError?: (message: string, err: unknown) => void
  /** How toasts reach the desktop now (desktop/toasts.ts), for the status view. */
  toasts?: () => unknown
  /** Seals the portal connection's token (LOOKOUT_SECRET_KEY). */
  secretKey?: Buffer
  /** The portal sync worker (round interval, test hooks). */
  portal?: PortalSyncOptions
}

export type DesktopPatch = SettingsPatch & { notification_toasts?: boolean }

export class DesktopService {
  readonly #db: Database
  readonly #options: DesktopServiceOptions
  readonly #queueBytes: number
  readonly #forwarder: Forwarder
  /** The portal connection and its project sync (api/portal/). */
  readonly portal: PortalService
  #settings: DesktopSettings
  #hooks: DesktopHooks | null = null
  #loopback: LoopbackHandle | null = null
  #loopbackError: string | null = null
  /** Settings changes run one at a time: each may open and close listeners. */
  #serial: Promise<unknown> = Promise.resolve()

  private constructor(db: Database, settings: DesktopSettings, options: DesktopServiceOptions) {
    this.#db = db
    this.#settings = settings
    this.#options = options
    this.#queueBytes = options.forwardQueueBytes ?? FORWARD_QUEUE_MAX_BYTES
    const onError = options.onError ?? (() => undefined)
    this.#forwarder = new Forwarder(db, () => this.#target(), { onError: (err) => onError('forwarding failed', err), ...options.forwarder })
    this.portal = new PortalService(db, options.secretKey, { onError, ...options.portal })
  }

  static async open(db: Database, options: DesktopServiceOptions): Promise<DesktopService> {
    await presentSharedIds(db)
    return new DesktopService(db, await readDesktopSettings(db), options)
  }

  get settings(): DesktopSettings {
    return this.#settings
  }

  /** Connects the hooks (once the runtime that builds listeners exists) and applies the saved settings. */
  async start(hooks: DesktopHooks): Promise<void> {
    this.#hooks = hooks
    const s = this.#settings
    await hooks.applyRetention(s.retention_days, s.retention_bytes)
    if (s.loopback_enabled) {
      try {
        this.#loopback = await hooks.openLoopback(s.loopback_port)
      } catch (err) {
        // The service still runs on its socket; the status view says why there is no listener.
        this.#loopbackError = (err as Error).message
        this.#options.onError?.('the loopback listener did not start', err)
      }
    }
    this.#forwarder.start()
    this.portal.sync.start()
  }

  async stop(): Promise<void> {
    await this.#serial.catch(() => undefined)
    await this.#forwarder.stop()
    await this.portal.sync.stop()
    const l = this.#loopback
    this.#loopback = null
    await l?.close()
  }

  /** The ingest hook: queues a copy of accepted rows when forwarding is on. Never fails the ingest. */
  readonly onAccepted = async (batch: AcceptedBatch): Promise<void> => {
    if (!this.#settings.forward_enabled || batch.duplicate) return
    try {
      if (await enqueueRows(this.#db, batch.workspaceId, batch.resourceId, batch.rows, this.#queueBytes)) this.#forwarder.wake()
    } catch (err) {
      this.#options.onError?.('a forwarding copy could not be queued', err)
    }
  }

  #target(): ForwardTarget | null {
    const s = this.#settings
    if (!s.forward_enabled || s.forward_workspace_id === null) return null
    return { url: s.forward_url, workspaceId: s.forward_workspace_id, token: s.forward_token }
  }

  async read(workspaceId: string) {
    const toasts = await readNotificationSettings(this.#db, workspaceId)
    return { ...viewOf(await readDesktopSettings(this.#db)), notification_toasts: toasts.notification_toasts }
  }

  /**
   * Saves a settings change and applies it. A listener that the change starts
   * (or moves) is bound before anything is saved, so a port that cannot be
   * bound changes nothing; the old listener closes only after the save.
   */
  update(workspaceId: string, patch: DesktopPatch) {
    const run = this.#serial.catch(() => undefined).then(() => this.#update(workspaceId, patch))
    this.#serial = run
    return run
  }

  async #update(workspaceId: string, patch: DesktopPatch) {
    const { notification_toasts: toasts, ...change } = patch
    const current = await readDesktopSettings(this.#db)
    // Checked again under the row lock when saving; here so a stale change opens no listener.
    if (current.revision !== change.revision) throw new SettingsStaleRevisionError(change.revision)
    const preview = merged(current, change)
    let opened: LoopbackHandle | null = null
    const moves = this.#loopback === null || this.#loopback.port !== preview.loopback_port
    if (preview.loopback_enabled && moves && this.#hooks !== null) {
      try {
        opened = await this.#hooks.openLoopback(preview.loopback_port)
      } catch (err) {
        throw new LoopbackUnavailableError(`127.0.0.1:${preview.loopback_port}: ${(err as Error).message}`)
      }
    }
    let saved: { before: DesktopSettings; after: DesktopSettings }
    try {
      saved = await saveDesktopSettings(this.#db, change)
    } catch (err) {
      await opened?.close()
      throw err
    }
    const { before, after } = saved
    this.#settings = after
    const old = this.#loopback
    if (opened !== null) {
      this.#loopback = opened
      this.#loopbackError = null
      await old?.close()
    } else if (!after.loopback_enabled && old !== null) {
      this.#loopback = null
      await old.close()
    }
    if (!after.loopback_enabled) this.#loopbackError = null
    if (this.#hooks !== null && (before.retention_days !== after.retention_days || before.retention_bytes !== after.retention_bytes)) {
      await this.#hooks.applyRetention(after.retention_days, after.retention_bytes)
    }
    if (before.forward_url !== after.forward_url || before.forward_workspace_id !== after.forward_workspace_id
      || before.forward_token !== after.forward_token || before.forward_enabled !== after.forward_enabled) {
      // A new target (or a corrected token) is tried at once, not after the last backoff.
      await retryQueueNow(this.#db)
      this.#forwarder.retarget()
    }
    if (toasts !== undefined) await saveNotificationSettings(this.#db, workspaceId, { notification_toasts: toasts })
    return this.read(workspaceId)
  }

  /** The routes of the running loopback listener; null while it is not listening. */
  loopbackRoutes(): readonly DeclaredRoute[] | null {
    return this.#loopback?.routes ?? null
  }

  /** The service's state: socket, listener, retention, forwarding queue and counters. */
  async status() {
    const s = this.#settings
    const q = await forwardState(this.#db)
    return {
      socket_path: this.#options.socketPath,
      loopback: {
        enabled: s.loopback_enabled,
        port: s.loopback_port,
        listening: this.#loopback !== null,
        url: this.#loopback?.url ?? null,
        error: this.#loopbackError,
      },
      retention: { days: s.retention_days, bytes: s.retention_bytes },
      toasts: this.#options.toasts?.() ?? null,
      forwarding: {
        enabled: s.forward_enabled,
        url: s.forward_url === '' ? null : s.forward_url,
        workspace_id: s.forward_workspace_id,
        queue: { batches: q.queued_batches, bytes: q.queued_bytes, max_bytes: this.#queueBytes, full: q.queued_bytes >= this.#queueBytes },
        forwarded: { batches: q.forwarded_batches, events: q.forwarded_events },
        dropped: { batches: q.dropped_batches, events: q.dropped_events },
        rejected: { batches: q.rejected_batches, events: q.rejected_events },
        last_error: q.last_error,
        last_error_at: q.last_error_at,
        last_success_at: q.last_success_at,
      },
    }
  }
}
