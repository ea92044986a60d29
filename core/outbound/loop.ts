// Runs a worker's step every pollMs, or at once when woken; never two steps at
// the same time, and stop() waits for the step in progress.
import { onWake, type Queue } from './wake.ts'

export interface LoopOptions {
  pollMs: number
  /** Wake-ups of this queue run the step early. */
  queue?: Queue
  onError(err: unknown): void
}

export class PollLoop {
  readonly #step: () => Promise<unknown>
  readonly #opts: LoopOptions
  #timer: NodeJS.Timeout | null = null
  #running: Promise<void> | null = null
  #again = false
  #stopped = true
  #unwake: (() => void) | null = null

  constructor(step: () => Promise<unknown>, opts: LoopOptions) {
    this.#step = step
    this.#opts = opts
  }

  start(): void {
    if (!this.#stopped) return
    this.#stopped = false
    if (this.#opts.queue !== undefined) this.#unwake = onWake(this.#opts.queue, () => this.kick())
    this.kick()
  }

  /** Runs the step as soon as the current one (if any) is done. */
  kick(): void {
    if (this.#stopped) return
    if (this.#running !== null) {
      this.#again = true
      return
    }
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    this.#running = this.#run()
  }

  async #run(): Promise<void> {
    try {
      do {
        this.#again = false
        await this.#step().catch((err: unknown) => this.#opts.onError(err))
      } while (this.#again && !this.#stopped)
    } finally {
      this.#running = null
      if (!this.#stopped) {
        this.#timer = setTimeout(() => this.kick(), this.#opts.pollMs)
        this.#timer.unref()
      }
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.#unwake?.()
    this.#unwake = null
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    await this.#running
  }
}
