// Time for the scheduler, injectable so tests move hours in milliseconds.
// Probe I/O timeouts stay on real time: they bound real sockets.

export interface Clock {
  now(): number
  setTimeout(fn: () => void, ms: number): unknown
  clearTimeout(handle: unknown): void
}

export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout: (fn, ms) => {
    const t = setTimeout(fn, ms)
    t.unref()
    return t
  },
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
}

interface ManualTimer {
  at: number
  seq: number
  fn: () => void
}

/** A clock that only moves when told; timers fire in time order on advance(). */
export class ManualClock implements Clock {
  #now: number
  #seq = 0
  #timers: ManualTimer[] = []

  constructor(start = Date.UTC(2030, 0, 1)) {
    this.#now = start
  }

  now(): number {
    return this.#now
  }

  setTimeout(fn: () => void, ms: number): unknown {
    const t = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn }
    this.#timers.push(t)
    return t
  }

  clearTimeout(handle: unknown): void {
    const i = this.#timers.indexOf(handle as ManualTimer)
    if (i >= 0) this.#timers.splice(i, 1)
  }

  /** Moves time forward, firing every timer that falls due on the way. */
  advance(ms: number): void {
    const end = this.#now + ms
    for (;;) {
      let next: ManualTimer | undefined
      for (const t of this.#timers) if (t.at <= end && (next === undefined || t.at < next.at || (t.at === next.at && t.seq < next.seq))) next = t
      if (next === undefined) break
      this.#timers.splice(this.#timers.indexOf(next), 1)
      this.#now = Math.max(this.#now, next.at)
      next.fn()
    }
    this.#now = end
  }
}
