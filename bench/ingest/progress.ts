// A one-line progress bar on a terminal (stderr); on anything else only the
// log lines are written, so redirected output stays readable.

export class Progress {
  readonly #out: NodeJS.WriteStream
  readonly #live: boolean
  #shown = false
  #last = 0

  constructor(enabled: boolean, out: NodeJS.WriteStream = process.stderr) {
    this.#out = out
    this.#live = enabled && out.isTTY === true
  }

  /** Redraws the bar (at most 5 times a second unless `force`). */
  update(fraction: number, text: string, force = false): void {
    if (!this.#live) return
    const now = Date.now()
    if (!force && now - this.#last < 200) return
    this.#last = now
    const width = 28
    const f = Math.min(1, Math.max(0, fraction))
    const filled = Math.round(f * width)
    const cols = this.#out.columns ?? 120
    const line = `[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${(f * 100).toFixed(0).padStart(3)}% ${text}`
    this.#out.write(`\r\x1b[2K${line.slice(0, cols - 1)}`)
    this.#shown = true
  }

  /** A line that stays (the bar is cleared first and redrawn by the next update). */
  log(line: string): void {
    this.clear()
    this.#out.write(line + '\n')
  }

  clear(): void {
    if (this.#shown) this.#out.write('\r\x1b[2K')
    this.#shown = false
  }
}
