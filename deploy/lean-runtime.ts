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
// V8's optimizing tier for PGlite's WebAssembly stays on: keeping it in the
// baseline compiler (--liftoff-only, once part of this) saved ~20 MiB here but
// halved the embedded database's throughput (bench/projects: 919 against 489
// list requests/s). Its JS-to-wasm wrappers are not tiered up
// (--wasm-wrapper-tiering-budget, as in the tests): Node 24 can abort freeing
// tiered wrappers when PGlite closes (nodejs/node#64500), and a server closes
// its PGlite at every stop.
// LOOKOUT_LEAN_RUNTIME=0 turns it off. process.execve keeps the pid, so
// supervisors and pid files see one process.
const MARK = 'LOOKOUT_LEAN_RUNTIME'
const COMMANDS = new Set(['serve', 'desktop'])
/** The value the restarted process carries, so that it does not restart again. */
const APPLIED = 'applied'
const WRAPPER_BUDGET = '--wasm-wrapper-tiering-budget'

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
  const flags = process.execArgv.some((a) => a.startsWith(WRAPPER_BUDGET)) ? process.execArgv : [...process.execArgv, `${WRAPPER_BUDGET}=2147483647`]
  try {
    process.execve?.(process.execPath, [process.execPath, ...flags, ...process.argv.slice(1)], env)
  } catch {
    // Refused (a sandbox without execve, a moved binary): run as started, with the default footprint.
  }
}
