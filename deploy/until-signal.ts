// `lookout serve` and `lookout desktop` run until SIGTERM or SIGINT, then stop
// once, with a 15 s guard: a stop that hangs exits 1 instead of holding the
// data directory forever (deploy/backup-live.ts runs them, restarting on a restore).
const GUARD_MS = 15_000

export interface SignalStop {
  /** What the process prints when the signal arrives ("draining", "stopping"). */
  doing: string
  /** The noun of the guard's message ("drain", "stop"). */
  what: string
  stop: () => Promise<void>
}

/** The first SIGTERM or SIGINT (later ones are ignored). */
export function untilSignal(): Promise<string> {
  return new Promise<string>((resolve) => {
    process.once('SIGTERM', () => resolve('SIGTERM'))
    process.once('SIGINT', () => resolve('SIGINT'))
    // A second signal while stopping does nothing (the guard below ends a stop that hangs).
    process.on('SIGTERM', () => undefined)
    process.on('SIGINT', () => undefined)
  })
}

/** Stops after `signal`, exiting 1 when the stop fails or takes over 15 s. */
export async function stopGuarded(s: SignalStop, signal: string): Promise<void> {
  process.stdout.write(`${signal}: ${s.doing}\n`)
  const hard = setTimeout(() => {
    process.stderr.write(`${s.what} took over 15 s, exiting\n`)
    process.exit(1)
  }, GUARD_MS)
  hard.unref()
  await s.stop().catch((err: unknown) => {
    process.stderr.write(`stop failed: ${String(err)}\n`)
    process.exit(1)
  })
}
