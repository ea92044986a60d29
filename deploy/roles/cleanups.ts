// What a start registered to undo, undone newest first: a start that fails half-way
// stops exactly what it had started, in the order that loses nothing.
export type Cleanup = () => Promise<void> | void

export class Cleanups {
  readonly #steps: Cleanup[] = []

  add(step: Cleanup): void {
    this.#steps.push(step)
  }

  async run(): Promise<void> {
    for (const c of this.#steps.reverse()) {
      const t0 = performance.now()
      await c()
      if (process.env.LOOKOUT_TRACE_STOP === '1') process.stderr.write(`stop: ${c.toString().slice(0, 60)} ${(performance.now() - t0).toFixed(0)} ms\n`)
    }
    this.#steps.length = 0
  }
}
