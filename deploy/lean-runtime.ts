// The long-running commands (`lookout serve`, `lookout desktop`) restart their
// own process image once, before anything loads, with settings that only take
// effect at process start (measured in bench/memory/README.md):
// - MALLOC_ARENA_MAX=2: glibc gives every thread that allocates its own 64 MiB
//   arena (chdb's pools, V8's compiler and GC threads), ~60 MiB resident at idle;
//   two arenas hold the same allocations.
// - MALLOC_MMAP_THRESHOLD_=32768: blocks from 32 KiB (request bodies, socket
//   reads, row chunks, start-up's file reads) are mapped and unmapped on free,
//   so a burst's memory goes back to the system instead of staying in the heap
//   (glibc's dynamic threshold otherwise climbs to 32 MiB after the first frees).
//   At 128 KiB, start-up left 12-43 MiB more in the heaps from one start to the
//   next (idle 256-307 MiB); at 32 KiB idle is 242-244 MiB, for 2-5 % more CPU
//   per ingested event.
// - JE_MALLOC_CONF=percpu_arena:disabled,narenas:1: the engine's own allocator
//   (jemalloc inside libchdb) keeps an arena per CPU by default; an insert's
//   pages freed in one were not reused by the next insert running in another,
//   and each arena held its own for 5 s. One arena: about 100 MiB less at peak
//   under ingest, at the same insert rate (bench/memory README).
// V8's optimizing tier for PGlite's WebAssembly stays on: keeping it in the
// baseline compiler (--liftoff-only, once part of this) saved ~20 MiB here but
// halved the embedded database's throughput (bench/projects: 919 against 489
// list requests/s). Its JS-to-wasm wrappers are not tiered up
// (--wasm-wrapper-tiering-budget, as in the tests): Node 24 can abort freeing
// tiered wrappers when PGlite closes (nodejs/node#64500), and a server closes
// its PGlite at every stop.
// Once started, V8 counts ArrayBuffer memory in the heap's growing limit
// (--external-memory-accounted-in-global-limit, countBuffersInHeapLimit)
// instead of starting a full GC after every 64 MiB of new buffers: ingest
// allocates hundreds of MiB a second in buffers (request bodies, rows, NATS
// messages) on a heap of ~45 MiB, and those GCs cost 7-11 CPU-s per million
// events. The limit grows by half of what is live (--heap-growing-percent=50),
// not by V8's own factor of up to 4x, so garbage buffers do not pile up under
// a long flood. Measured in bench/ingest/README.md ("V8's external memory
// limit"). The flags are Node 24's (V8 13.6; package.json pins the runtime):
// test/deploy/lean-runtime.test.ts starts a server with the growing factor and
// checks when the switch applies (its effect shows in bench/ingest's V8 column).
// A flag given by hand (--no-external-memory-accounted-in-global-limit) wins.
// LOOKOUT_LEAN_RUNTIME=0 turns all of it off. process.execve keeps the pid, so
// supervisors and pid files see one process.
import { setFlagsFromString } from 'node:v8'

const MARK = 'LOOKOUT_LEAN_RUNTIME'
const COMMANDS = new Set(['serve', 'desktop'])
/** The value the restarted process carries, so that it does not restart again. */
const APPLIED = 'applied'
const WRAPPER_BUDGET = '--wasm-wrapper-tiering-budget'
/** V8 flags the restarted process starts with, unless given already. */
const V8_FLAGS = [`${WRAPPER_BUDGET}=2147483647`, '--heap-growing-percent=50'] as const
const BUFFERS_IN_LIMIT = '--external-memory-accounted-in-global-limit'
/** The embedded engine's jemalloc settings (read from the environment when libchdb loads). */
export const ENGINE_MALLOC_CONF = 'percpu_arena:disabled,narenas:1'

/** A node flag's name, the same for --x, --x=1 and --no-x. */
function flagName(arg: string): string {
  return (arg.split('=')[0] as string).replace(/^--no-/, '--')
}

/** Whether this start should re-execute itself lean (Linux, a long-running command, not done or refused yet). */
export function wantsLeanRestart(argv: readonly string[], env: NodeJS.ProcessEnv, platform: string = process.platform): boolean {
  return COMMANDS.has(argv[0] ?? '') && canRestartLean(env, platform)
}

/** Whether a process could restart lean: Linux, not lean already, not refused (LOOKOUT_LEAN_RUNTIME=0). */
function canRestartLean(env: NodeJS.ProcessEnv, platform: string): boolean {
  return platform === 'linux' && env[MARK] !== '0' && env[MARK] !== APPLIED && typeof process.execve === 'function'
}

/** The node flags of the restarted process: those given, then ours not given (or turned off, --no-...) by hand. */
export function restartFlags(execArgv: readonly string[]): string[] {
  const flags = [...execArgv]
  for (const f of V8_FLAGS) {
    if (!flags.some((a) => flagName(a) === flagName(f))) flags.push(f)
  }
  return flags
}

/**
 * Whether a started server should count buffers in V8's heap limit: when it
 * runs lean and the flag was not given by hand. Switched on after start, not at
 * exec: with it from the first line, the buffers of start-up (PGlite's files,
 * module sources) wait for a GC an idle server does not run, 25-35 MiB at idle.
 */
export function wantsBuffersInHeapLimit(env: NodeJS.ProcessEnv, execArgv: readonly string[]): boolean {
  return env[MARK] === APPLIED && !execArgv.some((a) => flagName(a) === BUFFERS_IN_LIMIT)
}

/** Called once `lookout serve` or `lookout desktop` has started. */
export function countBuffersInHeapLimit(): void {
  if (wantsBuffersInHeapLimit(process.env, process.execArgv)) setFlagsFromString(BUFFERS_IN_LIMIT)
}

/** Replaces this process with a lean one (never returns), or returns when there is nothing to do. */
export function leanRestart(argv: readonly string[]): void {
  if (wantsLeanRestart(argv, process.env)) restartLean()
}

/**
 * Replaces this process with one started as `lookout serve` is (never returns),
 * unless it is one already or LOOKOUT_LEAN_RUNTIME=0: for benchmarks that run
 * Lookout in their own process and should measure it as it runs.
 */
export function restartLean(): void {
  if (!canRestartLean(process.env, process.platform)) return
  const env: NodeJS.ProcessEnv = { ...process.env, [MARK]: APPLIED }
  env.MALLOC_ARENA_MAX ??= '2'
  env.MALLOC_MMAP_THRESHOLD_ ??= '32768'
  env.JE_MALLOC_CONF ??= ENGINE_MALLOC_CONF
  try {
    process.execve?.(process.execPath, [process.execPath, ...restartFlags(process.execArgv), ...process.argv.slice(1)], env)
  } catch {
    // Refused (a sandbox without execve, a moved binary): run as started, with the default footprint.
  }
}
