// Live tails, one hub per tailed resource (or workspace): each listens on its
// own subjects only (ingest publishes rows per workspace and resource), so a
// tail never receives every row of every workspace. All hubs share one NATS
// connection of their own: a slow tail reader can never stall, or be
// disconnected together with, the connection publishes are acknowledged on.
import type { NatsConnection } from '@nats-io/transport-node'
import { InvalidOptionError } from '../../core/index.ts'
import { TailHub, type TailHubOptions } from './hub.ts'

export interface TailHubsOptions extends Omit<TailHubOptions, 'connection' | 'subjects'> {
  /** Opens the tails' connection (once, on first use); closed with the hubs. */
  connect: () => Promise<NatsConnection>
  /** The subjects carrying one resource's rows (resourceId null: a whole workspace's). */
  subjects: (workspaceId: string, resourceId: string | null) => string[]
  /** Hubs kept; past it idle ones (no session) are dropped first. Default 1024. */
  maxHubs?: number
}

export class TailHubs {
  readonly #opts: TailHubsOptions
  readonly #maxHubs: number
  readonly #hubs = new Map<string, TailHub>()
  #connection: Promise<NatsConnection> | null = null
  #closed = false

  constructor(opts: TailHubsOptions) {
    this.#opts = opts
    this.#maxHubs = opts.maxHubs ?? 1024
    if (!Number.isInteger(this.#maxHubs) || this.#maxHubs < 1) throw new InvalidOptionError('tail maxHubs', 'must be an integer >= 1')
  }

  /** The hub of one resource, or with null of a whole workspace (sessions filter further). */
  async hub(workspaceId: string, resourceId: string | null): Promise<TailHub> {
    if (this.#closed) throw new Error('tail hubs closed')
    const key = `${workspaceId}/${resourceId ?? '*'}`
    const existing = this.#hubs.get(key)
    if (existing !== undefined) return existing
    this.#connection ??= this.#opts.connect()
    const nc = await this.#connection
    const again = this.#hubs.get(key)
    if (again !== undefined) return again
    if (this.#hubs.size >= this.#maxHubs) this.#dropIdle()
    const { connect: _c, subjects, maxHubs: _m, ...ring } = this.#opts
    const hub = new TailHub({ ...ring, connection: () => nc, subjects: subjects(workspaceId, resourceId) })
    this.#hubs.set(key, hub)
    return hub
  }

  #dropIdle(): void {
    for (const [key, hub] of this.#hubs) {
      if (hub.sessions > 0) continue
      hub.close()
      this.#hubs.delete(key)
      if (this.#hubs.size < this.#maxHubs) return
    }
  }

  async close(): Promise<void> {
    this.#closed = true
    for (const hub of this.#hubs.values()) hub.close()
    this.#hubs.clear()
    const nc = await this.#connection?.catch(() => null)
    if (nc != null && !nc.isClosed()) await nc.drain().catch(() => nc.close())
  }
}
