// The raw baselines run after the steps, on the same cores: a pipeline still
// loading its backlog, or ClickHouse still merging, would slow them and make
// every ratio look better than it is. Wait until the pipeline's processes idle.
import { processCpuSeconds } from '../lib/procstat.ts'

export interface QuietOptions {
  /** CPU seconds used so far by everything watched (NaN entries are ignored). */
  cpuSeconds: () => number
  /** Below this many cores in use over one interval, the pipeline is quiet. */
  maxCores?: number
  intervalMs?: number
  timeoutMs?: number
  sleep?: (ms: number) => Promise<void>
  now?: () => number
}

/** Waits until the watched CPU use falls below `maxCores`; resolves with the ms waited and whether it got quiet. */
export async function waitForQuiet(o: QuietOptions): Promise<{ waitedMs: number; quiet: boolean; cores: number }> {
  const maxCores = o.maxCores ?? 0.15
  const intervalMs = o.intervalMs ?? 1000
  const timeoutMs = o.timeoutMs ?? 120_000
  const sleep = o.sleep ?? ((ms: number) => new Promise<void>((r) => setTimeout(r, ms)))
  const now = o.now ?? (() => performance.now())
  const start = now()
  let before = o.cpuSeconds()
  let cores = Number.NaN
  for (;;) {
    const t0 = now()
    await sleep(intervalMs)
    const after = o.cpuSeconds()
    cores = (after - before) / ((now() - t0) / 1000)
    before = after
    if (cores < maxCores) return { waitedMs: now() - start, quiet: true, cores }
    if (now() - start >= timeoutMs) return { waitedMs: now() - start, quiet: false, cores }
  }
}

/** The summed CPU seconds of processes by pid (a process that is gone counts 0). */
export function cpuOfProcesses(pids: readonly number[]): () => number {
  return () => {
    let s = 0
    for (const pid of pids) {
      const c = processCpuSeconds(pid)
      if (!Number.isNaN(c)) s += c
    }
    return s
  }
}
