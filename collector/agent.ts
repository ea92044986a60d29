// `lookout collector`: runs the checks assigned to one collector source inside
// a private network and reports out. Three loops, all outbound HTTP(S):
// - sync: long-polls GET /v1/collector/checks with If-None-Match, so a changed,
//   paused or removed check takes effect within about half a second;
// - probe: ProbeSchedule (the monitor's runners and scheduling pieces);
// - push: results go to the durable buffer first (synced every flushMs), then
//   in order, at most pushMax at a time, to POST /v1/collector/observations.
// While the API is unreachable the collector keeps probing the checks it knows
// (also after a restart: the last list is kept in the data directory) and the
// buffer holds the results.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { CollectorCheck, CollectorObservation, CredentialPolicy, Kind } from '../monitor/index.ts'
import { ObservationBuffer, type BufferLimits } from './buffer.ts'
import { ApiStatusError, CollectorClient } from './client.ts'
import { CredentialRefusedError, DataDirError } from './errors.ts'
import { ProbeSchedule } from './schedule.ts'

export const COLLECTOR_VERSION = '0.1.0'
/** A clock further off the API's than this is reported. */
const CLOCK_WARN_MS = 2_000
/** Exit code when the API refuses the credential (revoked source). */
export const EXIT_REFUSED = 3

export interface CollectorOptions {
  url: string
  token: string
  dataDir: string
  /** Directories file credential references may point into (default <dataDir>/secrets). */
  secretsDirs?: string[]
  /** Where env credential references are read (default process.env). */
  env?: Readonly<Record<string, string | undefined>>
  /** Long-poll hold in seconds (the API allows up to 20; the server's default silence is 60 s). Default 20. */
  pollSeconds?: number
  /** How often new results are synced to the buffer file (and pushed). Default 250 ms. */
  flushMs?: number
  /** Most observations per push. Default 500. */
  pushMax?: number
  buffer?: BufferLimits
  concurrency?: Partial<Record<Kind, number>>
  log?: (line: string) => void
}

export interface CollectorStats {
  checks: number
  probes: number
  pushed: number
  buffered: number
  dropped: number
  connected: boolean
}

export class Collector {
  readonly #o: Required<Pick<CollectorOptions, 'pollSeconds' | 'flushMs' | 'pushMax'>> & CollectorOptions
  readonly #client: CollectorClient
  readonly #buffer: ObservationBuffer<CollectorObservation>
  readonly #schedule: ProbeSchedule
  readonly #log: (line: string) => void
  readonly #abort = new AbortController()
  #pending: CollectorObservation[] = []
  #flushTimer: NodeJS.Timeout | null = null
  #wake: (() => void) | null = null
  #running = false
  #loops: Promise<void>[] = []
  #pushed = 0
  #connected = false
  #clockWarned = false
  #finish!: (code: number) => void
  /** Resolves with an exit code when the collector stops by itself (credential refused). */
  readonly finished: Promise<number>

  constructor(opts: CollectorOptions) {
    this.#o = { pollSeconds: 20, flushMs: 250, pushMax: 500, ...opts }
    this.#log = opts.log ?? ((line) => process.stderr.write(`collector: ${line}\n`))
    this.#client = new CollectorClient(opts.url, opts.token, COLLECTOR_VERSION)
    this.#buffer = new ObservationBuffer(opts.dataDir, opts.buffer)
    const credentials: CredentialPolicy = { fileDirs: opts.secretsDirs ?? [join(opts.dataDir, 'secrets')], env: opts.env }
    this.#schedule = new ProbeSchedule({ credentials, concurrency: opts.concurrency, onResult: (o) => this.#onResult(o) })
    this.finished = new Promise((resolve) => {
      this.#finish = resolve
    })
  }

  stats(): CollectorStats {
    return {
      checks: this.#schedule.size, probes: this.#schedule.probes, pushed: this.#pushed, buffered: this.#buffer.length + this.#pending.length,
      dropped: this.#buffer.dropped, connected: this.#connected,
    }
  }

  async start(): Promise<void> {
    this.#lock()
    await this.#buffer.open(Date.now())
    if (this.#buffer.length > 0) this.#log(`${this.#buffer.length} buffered observations from a previous run will be sent`)
    const cached = this.#cachedChecks()
    if (cached !== null) this.#schedule.apply(cached)
    this.#running = true
    this.#loops = [this.#syncLoop(), this.#pushLoop()]
  }

  async stop(): Promise<void> {
    if (!this.#running) return
    this.#running = false
    this.#abort.abort()
    this.#wake?.()
    await this.#schedule.stop()
    if (this.#flushTimer !== null) clearTimeout(this.#flushTimer)
    await this.#flush()
    await Promise.allSettled(this.#loops)
    await this.#buffer.close()
    await this.#client.close().catch(() => undefined)
    rmSync(join(this.#o.dataDir, 'collector.pid'), { force: true })
  }

  /** One collector per data directory: its buffer is an append-only file. */
  #lock(): void {
    try {
      mkdirSync(this.#o.dataDir, { recursive: true, mode: 0o700 })
      const pidFile = join(this.#o.dataDir, 'collector.pid')
      if (existsSync(pidFile)) {
        const pid = Number(readFileSync(pidFile, 'utf8'))
        if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid)) throw new DataDirError(`collector pid ${pid} runs on ${this.#o.dataDir}`)
      }
      writeFileSync(pidFile, String(process.pid), { mode: 0o600 })
    } catch (err) {
      if (err instanceof DataDirError) throw err
      throw new DataDirError(String((err as Error).message))
    }
  }

  #cachedChecks(): CollectorCheck[] | null {
    try {
      return JSON.parse(readFileSync(join(this.#o.dataDir, 'checks.json'), 'utf8')) as CollectorCheck[]
    } catch {
      return null
    }
  }

  async #saveChecks(checks: readonly CollectorCheck[]): Promise<void> {
    const tmp = join(this.#o.dataDir, 'checks.json.tmp')
    await writeFile(tmp, JSON.stringify(checks), { mode: 0o600 })
    await rename(tmp, join(this.#o.dataDir, 'checks.json'))
  }

  #refused(err: Error): void {
    if (!this.#running) return
    this.#log(`${err.message}; stopping (buffered observations are kept)`)
    void this.stop().then(() => this.#finish(EXIT_REFUSED))
  }

  #reachable(ok: boolean, err?: unknown): void {
    if (ok !== this.#connected) this.#log(ok ? `connected to ${this.#o.url}` : `API unreachable (${String((err as Error)?.message ?? err)}); probing on, buffering`)
    this.#connected = ok
  }

  async #syncLoop(): Promise<void> {
    let etag: string | null = null
    let backoff = 500
    while (this.#running) {
      try {
        const r = await this.#client.checks(etag, etag === null ? 0 : this.#o.pollSeconds, this.#abort.signal)
        this.#reachable(true)
        backoff = 500
        if (r !== null) {
          etag = r.etag
          this.#checkClock(Date.parse(r.answer.server_time) - Date.now())
          this.#schedule.apply(r.answer.checks)
          await this.#saveChecks(r.answer.checks).catch((err: unknown) => this.#log(`cannot keep the check list: ${String(err)}`))
        }
      } catch (err) {
        if (err instanceof CredentialRefusedError) return this.#refused(err)
        if (!this.#running) return
        this.#reachable(false, err)
        await sleep(backoff, undefined, { signal: this.#abort.signal }).catch(() => undefined)
        backoff = Math.min(backoff * 2, 30_000)
      }
    }
  }

  /**
   * Observations are judged by their time: a clock off by more than the freshness window
   * would make every observation stale (recorded, never applied). Say so, once per change.
   */
  #checkClock(skewMs: number): void {
    const off = Math.abs(skewMs) > CLOCK_WARN_MS
    if (off && !this.#clockWarned) this.#log(`this machine's clock is ${(Math.abs(skewMs) / 1000).toFixed(1)} s ${skewMs > 0 ? 'behind' : 'ahead of'} the API's: synchronize it (NTP), observations are judged by their time`)
    this.#clockWarned = off
  }

  #onResult(o: CollectorObservation): void {
    this.#pending.push(o)
    if (this.#flushTimer === null) {
      this.#flushTimer = setTimeout(() => {
        this.#flushTimer = null
        void this.#flush()
      }, this.#o.flushMs)
    }
  }

  /** Results to disk (synced), then the push loop is woken. */
  async #flush(): Promise<void> {
    const batch = this.#pending
    this.#pending = []
    await this.#buffer.append(batch, Date.now()).catch((err: unknown) => {
      this.#log(`cannot write the buffer: ${String(err)}`)
      this.#pending.unshift(...batch)
    })
    this.#wake?.()
  }

  async #pushLoop(): Promise<void> {
    let backoff = 500
    // After a batch is refused for its content, its observations go one by one, so only the bad one is dropped.
    let singly = 0
    while (this.#running) {
      const batch = this.#buffer.peek(singly > 0 ? 1 : this.#o.pushMax)
      if (batch.length === 0) {
        await new Promise<void>((resolve) => {
          this.#wake = resolve
        })
        this.#wake = null
        continue
      }
      try {
        const r = await this.#client.push(batch)
        this.#reachable(true)
        backoff = 500
        this.#pushed += batch.length
        if (singly > 0) singly--
        if (r.rejected.length > 0) this.#log(`${r.rejected.length} observations fenced off by the API (${r.rejected[0]?.reason}, ...)`)
        await this.#buffer.ack(batch.length)
      } catch (err) {
        if (err instanceof CredentialRefusedError) return this.#refused(err)
        if (err instanceof ApiStatusError && err.status >= 400 && err.status < 500 && err.status !== 408 && err.status !== 429) {
          // Refused for its content: resending cannot help, and it would block everything behind it.
          if (batch.length > 1) {
            singly = batch.length
            continue
          }
          this.#log(`an observation was refused and dropped: ${err.message}`)
          if (singly > 0) singly--
          await this.#buffer.ack(1)
          continue
        }
        if (!this.#running) return
        this.#reachable(false, err)
        await sleep(backoff, undefined, { signal: this.#abort.signal }).catch(() => undefined)
        backoff = Math.min(backoff * 2, 30_000)
      }
    }
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as { code?: string }).code === 'EPERM'
  }
}
