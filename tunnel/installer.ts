// The managed runtime's install step: every few seconds the monitor role takes
// the keys it has not installed yet (new or rotated: pending; failed a minute
// ago: retried), pins the SSH server's host key and authenticates with the
// key, so GET …/ssh-key reports installed or failed even before a check uses it.
import type { RuntimeSecrets } from './secrets.ts'
import type { SshTunnels } from './tunnels.ts'

export interface InstallerOptions {
  everyMs?: number
  retryMs?: number
  timeoutMs?: number
  onError?: (err: unknown) => void
}

const BATCH = 20

export class KeyInstaller {
  readonly #secrets: RuntimeSecrets
  readonly #tunnels: SshTunnels
  readonly #everyMs: number
  readonly #retryMs: number
  readonly #timeoutMs: number
  readonly #onError: (err: unknown) => void
  #timer: NodeJS.Timeout | null = null
  #round: Promise<void> = Promise.resolve()
  #running = false

  constructor(secrets: RuntimeSecrets, tunnels: SshTunnels, opts: InstallerOptions = {}) {
    this.#secrets = secrets
    this.#tunnels = tunnels
    this.#everyMs = opts.everyMs ?? 5_000
    this.#retryMs = opts.retryMs ?? 60_000
    this.#timeoutMs = opts.timeoutMs ?? 10_000
    this.#onError = opts.onError ?? (() => undefined)
  }

  start(): void {
    this.#running = true
    this.#arm(0)
  }

  async stop(): Promise<void> {
    this.#running = false
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    await this.#round
  }

  #arm(ms: number): void {
    if (!this.#running) return
    this.#timer = setTimeout(() => {
      this.#round = this.#once().catch(this.#onError).finally(() => this.#arm(this.#everyMs))
    }, ms)
    this.#timer.unref()
  }

  async #once(): Promise<void> {
    for (const k of await this.#secrets.pending(BATCH, this.#retryMs)) {
      if (!this.#running) return
      await this.#tunnels.install(k.workspaceId, k.resourceId, this.#timeoutMs)
    }
  }
}
