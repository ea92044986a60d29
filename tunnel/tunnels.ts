// What the probes of `neura` checks with `configuration.ssh: true` use: the
// resource's registered key from the runtime secrets, host trust pinned on
// first use (or checked against the fingerprint the user gave), one SSH
// channel per probe, and the key's status reported back (installed / failed).
import { bridge, type Bridge } from './bridge.ts'
import { SYNC_STATUS, type RuntimeSecrets, type SshEndpoint, type SyncStatus } from './secrets.ts'
import { TUNNEL_FAILURES, TunnelError, type TunnelFailure, authenticate, defaultWorkDir, fingerprintOf, openChannel, scanHostKeys } from './ssh.ts'

export interface TunnelRequest {
  workspaceId: string
  resourceId: string
  /** The target as the SSH server sees it. */
  host: string
  port: number
  timeoutMs: number
  /** The socket file's name in the bridge directory (pg wants `.s.PGSQL.<port>`). */
  socketName: string
}

const REPORT_AGAIN_MS = 60_000
const REPORTS_KEPT = 10_000

/** No usable key for the resource: not a tunnel failure of the SSH server's. */
export const NO_KEY = 'no_key'

/** An open tunnel, or why there is none (the monitor turns it into a probe outcome). */
export type Opened =
  | { ok: true; bridge: Bridge; tunnelMs: number }
  | { ok: false; failure: TunnelFailure | typeof NO_KEY | null; message: string; latencyMs: number | null }

export class SshTunnels {
  readonly #secrets: RuntimeSecrets
  /** Where the ssh client's private key directories are made (0700 each, under a 0700 parent). */
  readonly workDir: string
  /** Last report per stored key, so a probe writes only what changed (or a minute later). */
  readonly #reported = new Map<string, { status: SyncStatus; detail: string; at: number }>()

  constructor(secrets: RuntimeSecrets, workDir: string = defaultWorkDir()) {
    this.#secrets = secrets
    this.workDir = workDir
  }

  /** The pinned host keys, pinning them on first use. Throws a host_key TunnelError when a given fingerprint does not match. */
  async trust(e: SshEndpoint, timeoutMs: number): Promise<SshEndpoint> {
    if (e.hostKeys.length > 0) return e
    const offered = await scanHostKeys(e.host, e.port, timeoutMs)
    let keys = offered
    if (e.expectedFingerprint !== null) {
      keys = offered.filter((k) => fingerprintOf(k) === e.expectedFingerprint)
      if (keys.length === 0) {
        throw new TunnelError(TUNNEL_FAILURES.hostKey,
          `the SSH server's host key (${offered.map(fingerprintOf).join(', ')}) does not match the given fingerprint ${e.expectedFingerprint}: refused`)
      }
    }
    return { ...e, hostKeys: await this.#secrets.pinHostKeys(e, keys) }
  }

  async #report(e: SshEndpoint, status: SyncStatus, detail: string): Promise<void> {
    const id = `${e.resourceId}:${e.generation}`
    const last = this.#reported.get(id)
    const now = Date.now()
    if (last !== undefined && last.status === status && last.detail === detail && now - last.at < REPORT_AGAIN_MS) return
    if (this.#reported.size >= REPORTS_KEPT) this.#reported.clear()
    this.#reported.set(id, { status, detail, at: now })
    await this.#secrets.report(e, status, detail).catch(() => undefined)
  }

  async #failed(e: SshEndpoint, err: unknown): Promise<void> {
    // Only the key's own problems (trust, authentication, reaching the SSH server) make it "failed"; a refused target does not.
    if (err instanceof TunnelError && (err.failure === TUNNEL_FAILURES.refused || err.failure === TUNNEL_FAILURES.dns || err.failure === TUNNEL_FAILURES.target)) {
      await this.#report(e, SYNC_STATUS.installed, installedDetail(e))
      return
    }
    await this.#report(e, SYNC_STATUS.failed, (err as Error).message)
  }

  async open(r: TunnelRequest): Promise<Opened> {
    const start = performance.now()
    const e = await this.#secrets.sshEndpoint(r.workspaceId, r.resourceId).catch(() => null)
    if (e === null) {
      return { ok: false, failure: NO_KEY, message: 'the resource has no SSH key the managed runtime can use (PUT …/ssh-key; LOOKOUT_SECRET_KEY must be set)', latencyMs: null }
    }
    let trusted = e
    try {
      trusted = await this.trust(e, r.timeoutMs)
      const channel = await openChannel(trusted, this.workDir, { host: r.host, port: r.port }, r.timeoutMs)
      const b = await bridge(channel, r.socketName).catch((err: unknown) => {
        channel.close()
        throw err
      })
      await this.#report(trusted, SYNC_STATUS.installed, installedDetail(trusted))
      return { ok: true, bridge: b, tunnelMs: Math.round(performance.now() - start) }
    } catch (err) {
      await this.#failed(trusted, err)
      const latencyMs = Math.round(performance.now() - start)
      if (err instanceof TunnelError) return { ok: false, failure: err.failure, message: err.message, latencyMs }
      return { ok: false, failure: null, message: `SSH tunnel: ${String((err as Error)?.message ?? err).slice(0, 200)}`, latencyMs }
    }
  }

  /** The runtime's install step for one key: pin the host, authenticate, report. */
  async install(workspaceId: string, resourceId: string, timeoutMs: number): Promise<void> {
    const e = await this.#secrets.sshEndpoint(workspaceId, resourceId).catch(() => null)
    if (e === null) return
    let trusted = e
    try {
      trusted = await this.trust(e, timeoutMs)
      await authenticate(trusted, this.workDir, timeoutMs)
      await this.#report(trusted, SYNC_STATUS.installed, installedDetail(trusted))
    } catch (err) {
      await this.#failed(trusted, err)
    }
  }
}

function installedDetail(e: SshEndpoint): string {
  return `the managed runtime (monitor role) authenticated with this key; host key pinned: ${e.hostKeys.map(fingerprintOf).join(', ')}`
}
