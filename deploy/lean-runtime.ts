// The long-running commands (`lookout serve`, `lookout desktop`) restart their
// own process image once, before anything loads, with two settings that only
// take effect at process start (measured in bench/memory/README.md):
// - MALLOC_ARENA_MAX=2: glibc gives every thread that allocates its own 64 MiB
//   arena (chdb's pools, V8's compiler and GC threads), ~60 MiB resident at idle;
//   two arenas hold the same allocations.
// - MALLOC_MMAP_THRESHOLD_=131072: blocks from 128 KiB (request bodies, row
//   chunks, the engine's insert blocks) are mapped and unmapped on free, so a
//   burst's memory goes back to the system instead of staying in the heap
//   (glibc's dynamic threshold otherwise climbs to 32 MiB after the first frees).
// - --liftoff-only: V8 keeps PGlite's WebAssembly in its baseline compiler; the
//   optimizing tier's code and compile memory cost ~80 MiB, for ~10-15 % faster
//   queries on a database of a few megabytes.
// LOOKOUT_LEAN_RUNTIME=0 turns it off. process.execve keeps the pid, so
// supervisors and pid files see one process.
const MARK = 'LOOKOUT_LEAN_RUNTIME'
const COMMANDS = new Set(['serve', 'desktop'])
/** The value the restarted process carries, so that it does not restart again. */
const APPLIED = 'applied'

/** Whether this start should re-execute itself lean (Linux, a long-running command, not done or refused yet). */
export function wantsLeanRestart(argv: readonly string[], env: NodeJS.ProcessEnv, platform: string = process.platform): boolean {
  return platform === 'linux' && COMMANDS.has(argv[0] ?? '') && env[MARK] !== '0' && env[MARK] !== APPLIED && typeof process.execve === 'function'
}

/** Replaces this process with a lean one (never returns), or returns when there is nothing to do. */
export function leanRestart(argv: readonly string[]): void {
  if (!wantsLeanRestart(argv, process.env)) return
  const env: NodeJS.ProcessEnv = { ...process.env, [MARK]: APPLIED }
  env.MALLOC_ARENA_MAX ??= '2'
  env.MALLOC_MMAP_THRESHOLD_ ??= '131072'
  const flags = process.execArgv.includes('--liftoff-only') ? process.execArgv : [...process.execArgv, '--liftoff-only']
  try {
    process.execve?.(process.execPath, [process.execPath, ...flags, ...process.argv.slice(1)], env)
  } catch {
    // Refused (a sandbox without execve, a moved binary): run as started, with the default footprint.
  }
}
