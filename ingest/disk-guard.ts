// Free space of the data directory, sampled once a second off the request path.
// Ingestion stops (503 LOOKOUT_INGEST_DISK_FULL) while a directory has less
// than the reserve left, before the engines writing there run out: nats-server
// 2.9 with JetStream on a full disk stops answering publishes altogether (they
// time out; the stream is intact after a restart), and ClickHouse fails its
// inserts and merges. The reserve should cover what can be in flight at once
// (LOOKOUT_MAX_INFLIGHT_BYTES) plus an insert's new parts.
import { statfs } from 'node:fs/promises'
import { InvalidOptionError } from '../core/index.ts'

export interface DiskGuardOptions {
  /** Directories whose file systems must keep the reserve free. */
  dirs: readonly string[]
  /** Bytes that must stay free; 0 turns the guard off. */
  minFreeBytes: number
  /** Sampling period, ms; default 1000. */
  everyMs?: number
}

export class DiskGuard {
  readonly #dirs: readonly string[]
  readonly #minFree: number
  readonly #everyMs: number
  #timer: NodeJS.Timeout | null = null
  #problem: string | null = null
  #sampling = false

  constructor(options: DiskGuardOptions) {
    if (!Number.isInteger(options.minFreeBytes) || options.minFreeBytes < 0) throw new InvalidOptionError('minFreeBytes', 'must be an integer >= 0')
    this.#dirs = options.dirs
    this.#minFree = options.minFreeBytes
    this.#everyMs = options.everyMs ?? 1000
  }

  /** Why ingestion must wait (which directory, how much is free), or null. */
  get problem(): string | null {
    return this.#problem
  }

  /** Takes a first sample, then samples periodically. */
  async start(): Promise<void> {
    if (this.#minFree === 0 || this.#dirs.length === 0) return
    await this.sample()
    this.#timer = setInterval(() => void this.sample(), this.#everyMs)
    this.#timer.unref()
  }

  async sample(): Promise<void> {
    if (this.#sampling) return
    this.#sampling = true
    try {
      let problem: string | null = null
      for (const dir of this.#dirs) {
        const s = await statfs(dir)
        const free = Number(s.bavail) * Number(s.bsize)
        if (free < this.#minFree) {
          problem = `${dir} has ${mib(free)} free, below the reserve of ${mib(this.#minFree)} (LOOKOUT_MIN_FREE_DISK_BYTES)`
          break
        }
      }
      this.#problem = problem
    } catch {
      // A directory that cannot be examined says nothing about space: keep the last answer.
    } finally {
      this.#sampling = false
    }
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
  }
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(1)} MiB`
}
