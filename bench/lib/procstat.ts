// CPU time and memory of processes and their threads from /proc (Linux).
// A thread's CPU is attributed to a category by its name; the CPU of threads
// that exited between two snapshots is only in the process total, and is
// reported as the category `exited`.
import { execFileSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'

let ticks = 0
/** Clock ticks per second (USER_HZ), 100 unless getconf says otherwise. */
export function clockTicks(): number {
  if (ticks === 0) {
    try {
      ticks = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
    } catch {
      ticks = 100
    }
  }
  return ticks
}

/** utime + stime in seconds from a /proc stat line (fields 14 and 15). */
export function parseStatCpu(stat: string): number {
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
  return (Number(fields[11]) + Number(fields[12])) / clockTicks()
}

/** CPU seconds of a whole process (every thread, live or exited), or NaN when it is gone. */
export function processCpuSeconds(pid: number): number {
  try {
    return parseStatCpu(readFileSync(`/proc/${pid}/stat`, 'utf8'))
  } catch {
    return Number.NaN
  }
}

/**
 * CPU seconds of a process, of its children that ended (cutime and cstime: a PostgreSQL server
 * forks a backend per connection and waits for it), and of its live children.
 */
export function treeCpu(pid: number): number {
  let total = Number.NaN
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]?.split(' ') ?? []
    // utime, stime, cutime, cstime are fields 14-17 of the line: 12-15 after the name.
    total = (Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14])) / clockTicks()
  } catch {
    return Number.NaN
  }
  try {
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)) if (c !== '') total += processCpuSeconds(Number(c)) || 0
  } catch {
    // gone
  }
  return total
}

/** Resident set size in bytes (VmRSS), or NaN when the process is gone. */
export function processRss(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m === null ? Number.NaN : Number(m[1]) * 1024
  } catch {
    return Number.NaN
  }
}

export interface ThreadCpu {
  tid: number
  name: string
  seconds: number
}

export function threadCpu(pid: number): ThreadCpu[] {
  const out: ThreadCpu[] = []
  let tids: string[]
  try {
    tids = readdirSync(`/proc/${pid}/task`)
  } catch {
    return out
  }
  for (const t of tids) {
    try {
      const stat = readFileSync(`/proc/${pid}/task/${t}/stat`, 'utf8')
      const name = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
      out.push({ tid: Number(t), name, seconds: parseStatCpu(stat) })
    } catch {
      // exited while we read
    }
  }
  return out
}

/** Names a thread's category: `main` for the thread whose id is the pid, else by name. */
export type ThreadClassifier = (t: ThreadCpu, pid: number) => string

export interface CpuSnapshot {
  pid: number
  total: number
  threads: Map<number, { category: string; seconds: number }>
}

export function cpuSnapshot(pid: number, classify: ThreadClassifier): CpuSnapshot {
  const threads = new Map<number, { category: string; seconds: number }>()
  for (const t of threadCpu(pid)) threads.set(t.tid, { category: classify(t, pid), seconds: t.seconds })
  return { pid, total: processCpuSeconds(pid), threads }
}

/** CPU seconds spent between two snapshots, by category; `exited` holds what threads gone by `b` used. */
export function cpuBetween(a: CpuSnapshot, b: CpuSnapshot): Record<string, number> {
  const out: Record<string, number> = {}
  let named = 0
  for (const [tid, t] of b.threads) {
    const before = a.threads.get(tid)?.seconds ?? 0
    const d = Math.max(0, t.seconds - before)
    out[t.category] = (out[t.category] ?? 0) + d
    named += d
  }
  const rest = b.total - a.total - named
  if (rest > 0) out.exited = (out.exited ?? 0) + rest
  return out
}
