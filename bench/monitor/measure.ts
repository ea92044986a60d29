// Measuring helpers of the monitoring bench: how long the monitor's
// housekeeping rounds and result writes take and how far they hold up the
// event loop, the CPU of a process tree from /proc, and an optional CPU
// profile of the measured window only.
import { writeFileSync } from 'node:fs'
import { Session } from 'node:inspector/promises'
import { PerformanceObserver } from 'node:perf_hooks'
import type { PhaseHook } from '../../monitor/internal.ts'

export interface PhaseFigures {
  count: number
  /** Wall time of one round, start to end (includes waiting for the database). */
  wallMaxMs: number
  wallP99Ms: number
  /** Longest event-loop stall (wall time) that overlapped a round: includes time the process waited for a core. */
  blockMaxMs: number
  /** Most main-thread CPU time between two event-loop turns that overlapped a round: the block itself, however busy the machine. */
  blockCpuMaxMs: number
}

const TICK_MS = 10

function threadCpuMs(): number {
  const u = process.threadCpuUsage()
  return (u.user + u.system) / 1000
}

/**
 * Times each phase, and finds event-loop stalls with a 10 ms ticker: a tick late by more than
 * its period is a stall, charged to every phase that was in progress at any time during it.
 * On a machine with more runnable threads than cores a stall also holds the time this process
 * waited for a core, so each tick also reads the main thread's CPU time: the CPU spent between
 * two ticks is the block our own code caused, as it would be on an idle core.
 * (perf_hooks' monitorEventLoopDelay cannot be switched on per phase: re-enabled, its first
 * sample spans the time it was off, and a block right at the start is missed.)
 */
export class PhaseMeter {
  readonly #walls = new Map<string, number[]>()
  readonly #since = new Map<string, number>()
  /** Phases in progress at some time since the last tick. */
  readonly #touched = new Set<string>()
  readonly #blockMax = new Map<string, number>()
  readonly #blockCpuMax = new Map<string, number>()
  #overallCpuMax = 0
  #lastCpu = 0
  /** Longest garbage-collection pause (V8 pauses the event loop for it): tells a stall our code caused from one the collector did. */
  #gcMax = 0
  readonly #gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (e.duration > this.#gcMax) this.#gcMax = e.duration
  })
  #overallMax = 0
  /** When the longest stall ended, in seconds since the meter started (or was reset). */
  #overallAt = 0
  #t0 = performance.now()
  #last = performance.now()
  readonly #ticker: NodeJS.Timeout

  constructor() {
    this.#lastCpu = threadCpuMs()
    this.#gc.observe({ entryTypes: ['gc'] })
    this.#ticker = setInterval(() => {
      const now = performance.now()
      const stall = now - this.#last - TICK_MS
      this.#last = now
      const cpuNow = threadCpuMs()
      const cpu = cpuNow - this.#lastCpu
      this.#lastCpu = cpuNow
      if (cpu > this.#overallCpuMax) this.#overallCpuMax = cpu
      for (const p of this.#touched) if (cpu > (this.#blockCpuMax.get(p) ?? 0)) this.#blockCpuMax.set(p, cpu)
      if (stall > this.#overallMax) {
        this.#overallMax = stall
        this.#overallAt = (now - this.#t0) / 1000
      }
      for (const p of this.#touched) if (stall > (this.#blockMax.get(p) ?? 0)) this.#blockMax.set(p, stall)
      this.#touched.clear()
      for (const p of this.#since.keys()) this.#touched.add(p)
    }, TICK_MS)
    this.#ticker.unref()
  }

  readonly hook: PhaseHook = (phase, active) => {
    this.#touched.add(phase)
    if (active) {
      this.#since.set(phase, performance.now())
      return
    }
    const t0 = this.#since.get(phase)
    if (t0 === undefined) return
    this.#since.delete(phase)
    let w = this.#walls.get(phase)
    if (w === undefined) this.#walls.set(phase, (w = []))
    w.push(performance.now() - t0)
  }

  reset(): void {
    this.#walls.clear()
    this.#blockMax.clear()
    this.#blockCpuMax.clear()
    this.#overallMax = 0
    this.#overallCpuMax = 0
    this.#gcMax = 0
    this.#t0 = performance.now()
  }

  stop(): void {
    this.#gc.disconnect()
    clearInterval(this.#ticker)
  }

  /** Longest stall of the event loop, whatever caused it. */
  get overallMaxMs(): number {
    return this.#overallMax
  }

  get gcMaxMs(): number {
    return this.#gcMax
  }

  /** Most main-thread CPU between two event-loop turns, whatever caused it. */
  get overallCpuMaxMs(): number {
    return this.#overallCpuMax
  }

  /** When that stall ended, seconds after the start (or the reset). */
  get overallMaxAtS(): number {
    return this.#overallAt
  }

  figures(phase: string): PhaseFigures {
    const w = [...(this.#walls.get(phase) ?? [])].sort((a, b) => a - b)
    return {
      count: w.length,
      wallMaxMs: w.at(-1) ?? 0,
      wallP99Ms: w[Math.max(0, Math.ceil(0.99 * w.length) - 1)] ?? 0,
      blockMaxMs: this.#blockMax.get(phase) ?? 0,
      blockCpuMaxMs: this.#blockCpuMax.get(phase) ?? 0,
    }
  }
}

/** Starts a CPU profile of this process (BENCH_PROFILE=path); returns the function that stops and writes it. */
export async function profile(path: string | undefined): Promise<() => Promise<void>> {
  if (path === undefined || path === '') return async () => undefined
  const s = new Session()
  s.connect()
  await s.post('Profiler.enable')
  await s.post('Profiler.setSamplingInterval', { interval: 500 })
  await s.post('Profiler.start')
  return async () => {
    const { profile: p } = await s.post('Profiler.stop')
    writeFileSync(path, JSON.stringify(p))
    s.disconnect()
  }
}
