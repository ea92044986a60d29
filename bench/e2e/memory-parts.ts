// What the process's memory is made of while bench/e2e runs (BENCH_MEMORY=1): RSS by kind,
// each thread's V8 heap, chdb's own accounting and allocator, the insert spool, the request
// side's in-flight bytes and the JetStream backlog, sampled together so that the part that
// grows with the backlog can be told from the ones that do not. Off by default: the chdb and
// worker queries are not free, and the bench's plain figures are taken without them.
import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { getHeapSpaceStatistics, getHeapStatistics } from 'node:v8'
import type { Lookout } from '../../deploy/index.ts'
import { mib, rssOf } from '../memory/proc.ts'

const PARTS = [
  ['rss', 'RSS'],
  ['anon', '  anonymous'],
  ['file', '  file-backed'],
  ['shmem', '  shared (tmpfs, shm)'],
  ['mainHeap', 'main thread V8 heap'],
  ['mainHeapUsed', '  of which used'],
  ['mainNewSpace', '  of which the young generation (new space)'],
  ['mainExternal', 'main thread external (ArrayBuffers, wasm)'],
  ['arrayBuffers', '  of which ArrayBuffers (all threads; by length, not resident pages)'],
  ['workers', 'decoder workers V8 heap + external'],
  ['chdbTracked', 'chdb MemoryTracking (all queries, inserts, merges)'],
  ['chdbMerges', '  of which merges (MergesMutationsMemoryTracking)'],
  ['chdbMergeList', '  merges running (system.merges)'],
  ['chdbQueries', '  queries and inserts running (system.processes)'],
  ['chdbCaches', '  caches (system.metrics *CacheBytes)'],
  ['jemallocAllocated', 'chdb jemalloc allocated'],
  ['jemallocResident', 'chdb jemalloc resident'],
  ['spool', 'insert spool files (page cache, not RSS)'],
  ['inFlight', 'request side in flight (LOOKOUT_MAX_INFLIGHT_BYTES)'],
  ['backlog', 'JetStream stream bytes (in nats-server, not here)'],
] as const
type Part = (typeof PARTS)[number][0]
export type MemoryParts = Record<Part, number>

function zero(): MemoryParts {
  return Object.fromEntries(PARTS.map(([k]) => [k, 0])) as MemoryParts
}

function dirBytes(dir: string): number {
  let n = 0
  try {
    for (const name of readdirSync(dir)) n += statSync(join(dir, name), { throwIfNoEntry: false })?.size ?? 0
  } catch {
    // The folder is not there (yet): nothing spooled.
  }
  return n
}

/** The engine's insert spool under the data directory (ingest/store/chdb-store.ts), '' when none. */
function findSpool(dir: string, depth = 3): string {
  let entries: string[] = []
  try {
    entries = readdirSync(dir)
  } catch {
    return ''
  }
  if (entries.includes('insert-spool')) return join(dir, 'insert-spool')
  if (depth === 0) return ''
  for (const e of entries) {
    const p = join(dir, e)
    if (statSync(p, { throwIfNoEntry: false })?.isDirectory() !== true) continue
    const found = findSpool(p, depth - 1)
    if (found !== '') return found
  }
  return ''
}

const CHDB_SQL = `SELECT metric, toFloat64(value) AS v FROM system.metrics WHERE metric IN ('MemoryTracking', 'MergesMutationsMemoryTracking')
  UNION ALL SELECT 'caches', toFloat64(sum(value)) FROM system.metrics WHERE metric LIKE '%CacheBytes'
  UNION ALL SELECT 'merges', toFloat64(sum(memory_usage)) FROM system.merges
  UNION ALL SELECT 'queries', toFloat64(sum(memory_usage)) FROM system.processes`
const CHDB_PARTS: Record<string, Part> = {
  MemoryTracking: 'chdbTracked', MergesMutationsMemoryTracking: 'chdbMerges', caches: 'chdbCaches', merges: 'chdbMergeList', queries: 'chdbQueries',
}
/** chdb has no system.asynchronous_metrics; its allocator's totals are in the text of malloc_stats_print. */
const JEMALLOC = /Allocated: (\d+), active: \d+, metadata: \d+(?: \([^)]*\))?, resident: (\d+)/
/** The allocator's text is long: read every this many samples. */
const JEMALLOC_EVERY = 10

/**
 * Samples every `everyMs` until stop(): each part's own peak, and every part as it was when RSS
 * peaked (the asynchronous parts as last read). `trace` also writes one line a second to stderr.
 */
export function memoryParts(lookout: Lookout, dataDir: string, everyMs = 100, trace = false) {
  const now = zero()
  const peak = zero()
  let atPeak = zero()
  let spool = ''
  let pending = false
  let lastLine = 0
  let rounds = 0
  const t0 = performance.now()
  const readAsync = async (): Promise<void> => {
    const workers = await lookout.ingest?.decoders.heapStatistics() ?? []
    now.workers = workers.reduce((a, h) => a + h.total_heap_size + h.external_memory, 0)
    const chdb = await lookout.store.query<{ metric: string; v: number }>(CHDB_SQL)
    for (const r of chdb.rows) {
      const part = CHDB_PARTS[r.metric]
      if (part !== undefined) now[part] = Number(r.v)
    }
    if (rounds++ % JEMALLOC_EVERY === 0) {
      const stats = await lookout.store.query<{ stats: string }>('SELECT stats FROM system.jemalloc_stats')
      const m = JEMALLOC.exec(stats.rows[0]?.stats ?? '')
      if (m !== null) {
        now.jemallocAllocated = Number(m[1])
        now.jemallocResident = Number(m[2])
      }
    }
    now.backlog = (await lookout.broker.backlog()).bytes
  }
  const tick = (): void => {
    const r = rssOf()
    now.rss = r.rss
    now.anon = r.anon
    now.file = r.file
    now.shmem = r.shmem
    const h = getHeapStatistics()
    now.mainHeap = h.total_heap_size
    now.mainHeapUsed = h.used_heap_size
    now.mainNewSpace = getHeapSpaceStatistics().find((x) => x.space_name === 'new_space')?.space_size ?? 0
    now.mainExternal = h.external_memory
    now.arrayBuffers = process.memoryUsage().arrayBuffers
    if (spool === '') spool = findSpool(dataDir)
    now.spool = spool === '' ? 0 : dirBytes(spool)
    now.inFlight = lookout.ingest?.inFlightBytes ?? 0
    for (const [k] of PARTS) peak[k] = Math.max(peak[k], now[k])
    if (now.rss >= peak.rss) atPeak = { ...now }
    if (!pending) {
      pending = true
      readAsync().catch((err: unknown) => {
        if (trace) process.stderr.write(`mem: a sample failed: ${String(err)}\n`)
      }).finally(() => {
        pending = false
      })
    }
    const s = (performance.now() - t0) / 1000
    if (trace && s - lastLine >= 1) {
      lastLine = s
      process.stderr.write(`mem ${s.toFixed(0).padStart(4)} s ${PARTS.map(([k]) => `${k} ${mib(now[k])}`).join(' ')}\n`)
    }
  }
  const timer = setInterval(tick, everyMs)
  return {
    /** The report's lines: each part's own peak and its value at the RSS peak, in MiB. */
    stop(): [string, string][] {
      clearInterval(timer)
      tick()
      return PARTS.map(([k, label]) => [`memory: ${label}, peak / at the RSS peak MiB`, `${mib(peak[k])} / ${mib(atPeak[k])}`])
    },
  }
}
