// A process's memory from /proc (Linux): RSS split by kind, and by mapping.
import { readFileSync } from 'node:fs'

const MiB = 1024 * 1024

export interface Rss {
  rss: number
  anon: number
  file: number
  /** Shared memory (tmpfs files mapped, shared anonymous mappings). */
  shmem: number
  threads: number
}

/** VmRSS, RssAnon, RssFile, RssShmem (bytes) and thread count from /proc/<pid>/status; zeros when the process is gone. */
export function rssOf(pid: number | 'self' = 'self'): Rss {
  let text = ''
  try {
    text = readFileSync(`/proc/${pid}/status`, 'utf8')
  } catch {
    return { rss: 0, anon: 0, file: 0, shmem: 0, threads: 0 }
  }
  const kb = (k: string) => Number(new RegExp(`${k}:\\s+(\\d+)`).exec(text)?.[1] ?? 0) * 1024
  return { rss: kb('VmRSS'), anon: kb('RssAnon'), file: kb('RssFile'), shmem: kb('RssShmem'), threads: kb('Threads') / 1024 }
}

export interface Mapping {
  range: string
  perms: string
  name: string
  /** Virtual size and resident bytes. */
  size: number
  rss: number
}

/** Every mapping of /proc/<pid>/smaps with its size and resident bytes. */
export function mappings(pid: number | 'self' = 'self'): Mapping[] {
  const out: Mapping[] = []
  let cur: Mapping | null = null
  for (const line of readFileSync(`/proc/${pid}/smaps`, 'utf8').split('\n')) {
    const head = /^([0-9a-f]+-[0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$/.exec(line)
    if (head !== null) {
      cur = { range: head[1] as string, perms: head[2] as string, name: head[3] === '' ? '[anon]' : head[3] as string, size: 0, rss: 0 }
      out.push(cur)
    } else if (cur !== null && line.startsWith('Size:')) cur.size = Number(line.split(/\s+/)[1]) * 1024
    else if (cur !== null && line.startsWith('Rss:')) cur.rss = Number(line.split(/\s+/)[1]) * 1024
  }
  return out
}

/** Resident bytes per mapped file, [heap] and [anon] summed; largest first. */
export function byName(maps: readonly Mapping[]): { name: string; rss: number; size: number; count: number }[] {
  const sums = new Map<string, { name: string; rss: number; size: number; count: number }>()
  for (const m of maps) {
    const s = sums.get(m.name) ?? { name: m.name, rss: 0, size: 0, count: 0 }
    s.rss += m.rss
    s.size += m.size
    s.count++
    sums.set(m.name, s)
  }
  return [...sums.values()].sort((a, b) => b.rss - a.rss)
}

export function mib(bytes: number): string {
  return (bytes / MiB).toFixed(1)
}
