// `lookout serve` and `lookout desktop` run until SIGTERM or SIGINT, then stop
// once, with a 15 s guard: a stop that hangs exits 1 instead of holding the
// data directory forever.
const GUARD_MS = 15_000

export interface SignalStop {
  /** What the process prints when the signal arrives ("draining", "stopping"). */
  doing: string
  /** The noun of the guard's message ("drain", "stop"). */
  what: string
  stop: () => Promise<void>
}

export function runUntilSignal(s: SignalStop): Promise<void> {
  return new Promise<void>((resolve) => {
    let stopping = false
    const stop = (signal: string) => {
      if (stopping) return
      stopping = true
      process.stdout.write(`${signal}: ${s.doing}\n`)
      const hard = setTimeout(() => {
        process.stderr.write(`${s.what} took over 15 s, exiting\n`)
        process.exit(1)
      }, GUARD_MS)
      hard.unref()
      s.stop().then(resolve, (err: unknown) => {
        process.stderr.write(`stop failed: ${String(err)}\n`)
        process.exit(1)
      })
    }
    process.on('SIGTERM', () => stop('SIGTERM'))
    process.on('SIGINT', () => stop('SIGINT'))
  })
}
