// Log checks at scale: BENCH_LOG_CHECKS (1,000) `log` checks at BENCH_INTERVAL_S
// (60) on the embedded default (chdb and PGlite in this process) over
// BENCH_LOG_LINES (20M) generated lines (bench/search/generate.ts: 50 resources,
// 7 days). Reports the monitor process's CPU (all threads, and the main
// thread apart: the rest is mostly the engine's query threads), CPU per
// evaluation, p50/p99 evaluation time, and in the same run the raw baseline:
// the same counts one by one (countMatchingLines, each with its five lines, as
// an evaluation was before counts were batched) at the same rate, no monitor.
// The default warm-up is two intervals and ten seconds: every check has then made
// the two observations that confirm its state, and the measured minute is the
// steady state (before that, every observation reads its sample lines).
// BENCH_LOG_DIR keeps the generated lines in that directory for the next runs.
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { migrateLogStore, openLogStore } from '../../ingest/index.ts'
import { Monitor, parseConfig, type CheckConfig, type LogCountRequest, type LogSource } from '../../monitor/index.ts'
import { StoreLogSource } from '../../deploy/index.ts'
import { countMatchingLines } from '../../query/internal.ts'
import { summarize } from '../lib/stats.ts'
import { insertSelect, type Shape } from '../search/generate.ts'
import { insertChecks, openBenchDb, type BenchIds } from './setup.ts'

const env = (name: string, dflt: number) => (process.env[name] === undefined ? dflt : Number(process.env[name]))
const CHECKS = env('BENCH_LOG_CHECKS', 1000)
const LINES = env('BENCH_LOG_LINES', 20_000_000)
const RESOURCES = 50
const INTERVAL_S = env('BENCH_INTERVAL_S', 60)
const WARMUP_S = env('BENCH_WARMUP_S', INTERVAL_S * 2 + 10)
const MEASURE_S = env('BENCH_MEASURE_S', INTERVAL_S * 2)
const RAW_S = env('BENCH_RAW_S', INTERVAL_S)
const CHUNK = 2_000_000
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-')
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const cpuS = (u: NodeJS.CpuUsage) => (u.user + u.system) / 1e6

// The queries of the checks, in turn: texts of the generated set at several levels, a level alone, every line.
const QUERIES = [
  { q: 'payment authorized' }, { q: 'connection refused', severity: 'WARN' }, { severity: 'ERROR' }, { q: 'slow query' },
  { q: 'cache miss', severity: 'DEBUG' }, {}, { q: '"processed job"' }, { q: 'kernel panic', severity: 'FATAL' },
]
const configs: CheckConfig[] = QUERIES.map((query, i) => {
  const p = parseConfig('log', { query, window_seconds: 300, threshold: 100, comparison: i % 2 === 0 ? 'above' : 'below', interval_seconds: INTERVAL_S, timeout_seconds: 10 })
  if (!p.ok) throw new Error(JSON.stringify(p.issues))
  return p.config
})

/** Times every count (the evaluation's store work) while passing it on. */
class TimedSource implements LogSource {
  readonly durations: number[] = []
  /** Why counts failed (each check in a failed statement is unknown), by message. */
  readonly failures = new Map<string, number>()
  readonly #inner: LogSource
  constructor(inner: LogSource) {
    this.#inner = inner
  }
  async count(req: LogCountRequest) {
    const t0 = performance.now()
    try {
      return await this.#inner.count(req)
    } catch (err) {
      const m = String((err as Error)?.message ?? err).slice(0, 200)
      this.failures.set(m, (this.failures.get(m) ?? 0) + 1)
      throw err
    } finally {
      this.durations.push(performance.now() - t0)
    }
  }
  oldestPending() {
    return this.#inner.oldestPending()
  }
}

// BENCH_LOG_DIR keeps the generated lines there for the next runs (A/B runs without loading 20M lines each
// time): the set then ends KEEP_AHEAD_MS ahead, and a run reuses it while that is more than an hour away.
const KEEP_AHEAD_MS = 8 * 3_600_000
const keep = process.env.BENCH_LOG_DIR
interface Kept extends BenchIds {
  lines: number
  endMs: number
}
const idsFile = keep === undefined ? '' : join(keep, 'bench-ids.json')
const kept: Kept | null = keep !== undefined && existsSync(idsFile) ? JSON.parse(readFileSync(idsFile, 'utf8')) as Kept : null
const reuse = kept !== null && kept.lines === LINES && kept.endMs > Date.now() + 3_600_000
if (keep !== undefined && !reuse) {
  rmSync(keep, { recursive: true, force: true })
  mkdirSync(keep, { recursive: true })
}
const dir = keep ?? mkdtempSync(join(tmpdir(), 'lookout-bench-logchecks-'))
const store = openLogStore({ path: dir })
await migrateLogStore(store, { retentionDays: 8 })
const b = await openBenchDb('pglite')
try {
  const { workspaceId, resources } = await insertChecks(b.db, CHECKS, (i) => ({ kind: 'log', config: configs[i % configs.length] as CheckConfig }), reuse ? kept : undefined)
  if (reuse) console.log(`log checks: reusing ${LINES.toLocaleString('en')} lines in ${dir} (they end ${new Date(kept.endMs).toISOString()}; load average ${loadavg().map((x) => f(x)).join(' ')})`)
  else {
    // Checks sit on 100 resources; lines on the first 50 (the other half's counts read nothing, like quiet services).
    // The set ends 20 minutes ahead (kept: KEEP_AHEAD_MS), so the windows keep finding lines while the bench runs.
    const endMs = Date.now() + (keep === undefined ? 20 * 60_000 : KEEP_AHEAD_MS)
    const shape: Shape = { rows: LINES, resources: RESOURCES, days: 7, endNs: BigInt(endMs) * 1_000_000n }
    console.log(`log checks: generating ${LINES.toLocaleString('en')} lines over ${RESOURCES} resources and 7 days (load average ${loadavg().map((x) => f(x)).join(' ')})...`)
    const g0 = performance.now()
    for (let off = 0; off < LINES; off += CHUNK) {
      const q = insertSelect(`${store.database}.logs`, shape, off, Math.min(CHUNK, LINES - off), workspaceId, resources.slice(0, RESOURCES))
      await store.command(q.sql, q.params)
    }
    console.log(`  loaded in ${f((performance.now() - g0) / 1000)} s`)
    if (keep !== undefined) writeFileSync(idsFile, JSON.stringify({ lines: LINES, endMs, workspaceId, resources } satisfies Kept))
  }
  console.log(`  ${CHECKS} log checks at ${INTERVAL_S} s (${f(CHECKS / INTERVAL_S)} evaluations/s due), windows of 300 s`)

  // ---- the monitor ----
  const timed = new TimedSource(new StoreLogSource(store, null))
  const monitor = new Monitor(b.db, { logs: timed, logger: { warn: (o, m) => console.error(m, o) } })
  await monitor.start()
  while (monitor.stats().owned < CHECKS) await sleep(200)
  await sleep(WARMUP_S * 1000)
  timed.durations.length = 0
  const s0 = monitor.stats()
  const c0 = process.cpuUsage()
  const m0 = process.threadCpuUsage()
  const t0 = performance.now()
  await sleep(MEASURE_S * 1000)
  const wall = (performance.now() - t0) / 1000
  const all = cpuS(process.cpuUsage(c0))
  const main = cpuS(process.threadCpuUsage(m0))
  const s1 = monitor.stats()
  // An evaluation is a result; a batched count that crosses its threshold is counted again with its lines (two counts).
  const counts = timed.durations.length
  const evals = s1.results - s0.results
  const evalT = summarize(timed.durations)
  await monitor.stop()

  // ---- raw baseline: the same counts at the same rate, nothing else ----
  const raw: number[] = []
  const rc0 = process.cpuUsage()
  const rm0 = process.threadCpuUsage()
  const r0 = performance.now()
  const rate = CHECKS / INTERVAL_S
  let started = 0
  const inflight = new Set<Promise<void>>()
  while ((performance.now() - r0) / 1000 < RAW_S) {
    const due = Math.floor(((performance.now() - r0) / 1000) * rate)
    for (; started < due; started++) {
      const i = started % CHECKS
      const c = (configs[i % configs.length] as CheckConfig).stored as { query: Record<string, string> }
      const now = Date.now()
      const t = performance.now()
      const p = countMatchingLines(store, workspaceId, resources[i % resources.length] as string, c.query, now - 300_000, now, 10_000)
        .then(() => void raw.push(performance.now() - t))
      inflight.add(p)
      void p.finally(() => inflight.delete(p))
    }
    await sleep(10)
  }
  await Promise.all(inflight)
  const rwall = (performance.now() - r0) / 1000
  const rall = cpuS(process.cpuUsage(rc0))
  const rmain = cpuS(process.threadCpuUsage(rm0))
  const rawT = summarize(raw)

  const perEval = (all * 1000) / Math.max(1, evals)
  const perRaw = (rall * 1000) / Math.max(1, raw.length)
  console.log(`
log checks: ${CHECKS} at ${INTERVAL_S} s over ${LINES.toLocaleString('en')} lines, embedded (chdb + PGlite in this process); measured ${f(wall)} s; load average ${loadavg().map((x) => f(x)).join(' ')}
  evaluations            ${evals} (${f(evals / wall)}/s; due ${f(rate)}); counts asked of the source ${counts}; outcomes ${JSON.stringify(s1.byStatus)}
  CPU (all threads)      ${f((all / wall) * 100)}% of one core; main thread ${f((main / wall) * 100)}% (scheduler, PGlite, result writes); other threads ${f(((all - main) / wall) * 100)}% (mostly the engine's query threads)
  CPU per evaluation     ${f(perEval, 2)} ms (${f(((all - main) * 1000) / Math.max(1, evals), 2)} ms off the main thread)
  count time ms (batch wait included) p50 ${f(evalT.p50)}  p99 ${f(evalT.p99)}  max ${f(evalT.max)}
  failed counts (unknown) ${timed.failures.size === 0 ? 'none' : JSON.stringify(Object.fromEntries(timed.failures))}
raw baseline (the same counts one by one, with their lines, at ${f(rate)}/s for ${RAW_S} s; no scheduler, state or writes)
  ${raw.length} counts; CPU ${f((rall / rwall) * 100)}% of one core (main thread ${f((rmain / rwall) * 100)}%); ${f(perRaw, 2)} ms per count; time p50 ${f(rawT.p50)} p99 ${f(rawT.p99)} ms
  ratio monitor / raw CPU per evaluation ${f(perEval / perRaw, 2)}x`)
} finally {
  await b.close()
  await store.close()
  if (keep === undefined) rmSync(dir, { recursive: true, force: true })
}
