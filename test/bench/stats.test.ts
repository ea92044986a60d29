import t from 'tap'
import { percentile, summarize } from '../../bench/lib/stats.ts'
import { cpuBetween, cpuSnapshot, parseStatCpu, processCpuSeconds, processRss, threadCpu, clockTicks, type CpuSnapshot } from '../../bench/lib/procstat.ts'
import { lookoutThreads, CPU_CATEGORIES } from '../../bench/ingest/pipeline.ts'

t.test('percentiles are nearest-rank', async (t) => {
  const v = Array.from({ length: 100 }, (_, i) => 100 - i) // 100..1, unsorted input
  t.equal(percentile(v, 50), 50)
  t.equal(percentile(v, 99), 99)
  t.equal(percentile(v, 100), 100)
  t.equal(percentile(v, 0), 1)
  t.equal(percentile([7], 99), 7)
  t.ok(Number.isNaN(percentile([], 50)))
  const s = summarize([5, 1, 4, 2, 3, 10, 9, 8, 7, 6])
  t.same(s, { count: 10, mean: 5.5, p50: 5, p90: 9, p99: 10, max: 10 })
  const big = summarize(Array.from({ length: 1000 }, (_, i) => i + 1))
  t.equal(big.p90, 900)
  t.equal(big.p99, 990)
  t.equal(big.max, 1000)
  const e = summarize([])
  t.equal(e.count, 0)
  t.ok(Number.isNaN(e.p99))
})

t.test('summarize agrees with percentile on random data', async (t) => {
  let x = 12345
  const v = Array.from({ length: 5001 }, () => {
    x = (x * 1103515245 + 12345) % 2147483648
    return x / 1e6
  })
  const s = summarize(v)
  for (const p of [50, 90, 99] as const) t.equal(s[`p${p}`], percentile(v, p), `p${p}`)
})

t.test('/proc stat parsing: utime and stime after the command name', async (t) => {
  const hz = clockTicks()
  // Fields 14 and 15 are utime and stime; the name may hold spaces and parentheses.
  const line = `4242 (node (bench) x) S 1 2 3 4 5 6 7 8 9 10 ${3 * hz} ${hz} 0 0 20 0 11 0 100 0 0`
  t.equal(parseStatCpu(line), 4)
})

t.test('CPU between snapshots by category, with exited threads apart', async (t) => {
  const snap = (total: number, threads: [number, string, number][]): CpuSnapshot => ({
    pid: 1, total, threads: new Map(threads.map(([tid, category, seconds]) => [tid, { category, seconds }])),
  })
  const a = snap(10, [[1, 'main', 4], [2, 'workers', 3], [3, 'workers', 2], [9, 'db', 1]])
  // Thread 9 exited, thread 4 appeared; the process total still counts what 9 used.
  const b = snap(17, [[1, 'main', 6], [2, 'workers', 4], [3, 'workers', 3], [4, 'db', 0.5]])
  const d = cpuBetween(a, b)
  t.equal(d.main, 2)
  t.equal(d.workers, 2)
  t.equal(d.db, 0.5)
  t.equal(Math.round((d.exited ?? 0) * 1000) / 1000, 2.5)
})

t.test('this process: threads, categories, CPU and memory from /proc', async (t) => {
  const threads = threadCpu(process.pid)
  t.ok(threads.some((x) => x.tid === process.pid), 'the main thread is listed')
  const snap = cpuSnapshot(process.pid, lookoutThreads)
  t.equal(snap.threads.get(process.pid)?.category, CPU_CATEGORIES.main)
  const before = processCpuSeconds(process.pid)
  let n = 0
  const end = Date.now() + 300
  while (Date.now() < end) n += Math.sqrt(n + 1)
  t.ok(processCpuSeconds(process.pid) > before, `a busy loop shows as CPU time (${n > 0})`)
  t.ok(processRss(process.pid) > 10 * 1024 * 1024, 'resident size in bytes')
  t.ok(Number.isNaN(processCpuSeconds(2 ** 22 + 7)), 'a process that is gone gives NaN')
  t.equal(lookoutThreads({ tid: 5, name: 'WorkerThread', seconds: 0 }, 1), CPU_CATEGORIES.workers)
  t.equal(lookoutThreads({ tid: 5, name: 'V8Worker', seconds: 0 }, 1), CPU_CATEGORIES.v8)
  t.equal(lookoutThreads({ tid: 5, name: 'libuv-worker', seconds: 0 }, 1), CPU_CATEGORIES.clickhouse)
  t.equal(lookoutThreads({ tid: 5, name: 'MergeMutate', seconds: 0 }, 1), CPU_CATEGORIES.clickhouse)
})
