// Monitoring at scale: BENCH_CHECKS checks (a mix of https, tcp and heartbeat;
// the network targets in a separate process) on one Monitor, on PGlite and on
// a PostgreSQL server, at the real 120 s interval. Reports checks/s, CPU of
// one core, schedule lateness, how long housekeeping (lease renewal, claims,
// changes) and result writes hold up the event loop, and, in the same run, the
// raw baseline: the same probes started at the same rate with no scheduler,
// no state machine and no writes.
import { spawn } from 'node:child_process'
import { loadavg } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { createRunners, Monitor, type Kind, type ProbeTarget } from '../../monitor/index.ts'
import { mib, rssSampler, summarize, type Summary } from '../lib/stats.ts'
import { PhaseMeter, profile, type PhaseFigures } from './measure.ts'
import { treeCpu } from '../lib/procstat.ts'
import { configs, createChecks, kindOf, openBenchDb, type BenchDb, type DbKind, type Mix, type Targets } from './setup.ts'

const env = (name: string, dflt: number) => (process.env[name] === undefined ? dflt : Number(process.env[name]))
const CHECKS = env('BENCH_CHECKS', 50_000)
const INTERVAL_S = env('BENCH_INTERVAL_S', 120)
const WARMUP_S = env('BENCH_WARMUP_S', 30)
const MEASURE_S = env('BENCH_MEASURE_S', INTERVAL_S)
const RAW_S = env('BENCH_RAW_S', 60)
const MIX: Mix = { https: env('BENCH_HTTPS_SHARE', 0.5), tcp: env('BENCH_TCP_SHARE', 0.3), heartbeat: 0 }
MIX.heartbeat = Math.max(0, 1 - MIX.https - MIX.tcp)
const DBS = (process.env.BENCH_DB ?? 'pglite,postgres').split(',').map((s) => s.trim()) as DbKind[]
const PROFILE = process.env.BENCH_PROFILE
const FLUSH_MS = process.env.BENCH_FLUSH_MS === undefined ? {} : { flushMs: Number(process.env.BENCH_FLUSH_MS) }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : '-')

interface Figures {
  db: string
  made: Record<keyof Mix, number>
  wallS: number
  probes: number
  results: number
  rejected: number
  skippedBusy: number
  byStatus: Record<string, number>
  flushes: number
  cpuPct: number
  serverCpuPct: number | null
  lateness: Summary
  house: PhaseFigures
  flush: PhaseFigures
  loopMaxMs: number
  peakRssMiB: string
  loopMaxAtS: number
  loopCpuMaxMs: number
  gcMaxMs: number
  raw: { probes: number; up: number; wallS: number; cpuPct: number; loopMaxMs: number; loopMaxAtS: number; loopCpuMaxMs: number }
}

// ---- targets in a child process (their CPU is not the monitor's) ----
const child = spawn(process.execPath, [join(import.meta.dirname, 'targets.ts')], { stdio: ['ignore', 'pipe', 'inherit'] })
process.on('exit', () => child.kill('SIGTERM'))
for (const sig of ['SIGINT', 'SIGTERM'] as const) process.once(sig, () => process.exit(1))
const targets = JSON.parse(await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve))) as Targets
const cfg = configs(targets, INTERVAL_S)

async function measureMonitor(b: BenchDb, made: Record<keyof Mix, number>): Promise<Omit<Figures, 'raw'>> {
  const meter = new PhaseMeter()
  const monitor = new Monitor(b.db, { logger: { warn: (o, m) => console.error(m, o) }, onPhase: meter.hook, ...FLUSH_MS })
  await monitor.start()
  // The claims first (5,000 a round), so the measurement sees the steady state only.
  while (monitor.stats().owned < CHECKS) await sleep(500)
  await sleep(WARMUP_S * 1000)
  monitor.takeLateness()
  meter.reset()
  const s0 = monitor.stats()
  const stopProfile = await profile(PROFILE === undefined ? undefined : `${PROFILE}-${b.kind}.cpuprofile`)
  const cpu0 = process.cpuUsage()
  const server0 = b.serverPid === null ? 0 : treeCpu(b.serverPid)
  const rss = rssSampler()
  const t0 = performance.now()
  await sleep(MEASURE_S * 1000)
  const wallS = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  const serverS = b.serverPid === null ? null : treeCpu(b.serverPid) - server0
  await stopProfile()
  const peak = rss.stop()
  const s1 = monitor.stats()
  const lateness = summarize(Array.from(monitor.takeLateness()))
  const out = {
    db: b.name, made, wallS,
    probes: s1.probes - s0.probes, results: s1.results - s0.results, rejected: s1.rejected - s0.rejected, skippedBusy: s1.skippedBusy - s0.skippedBusy,
    byStatus: s1.byStatus, flushes: s1.flushes - s0.flushes,
    cpuPct: ((cpu.user + cpu.system) / 1e6 / wallS) * 100,
    serverCpuPct: serverS === null ? null : (serverS / wallS) * 100,
    lateness, house: meter.figures('housekeeping'), flush: meter.figures('flush'), loopMaxMs: meter.overallMaxMs, loopMaxAtS: meter.overallMaxAtS, loopCpuMaxMs: meter.overallCpuMaxMs, gcMaxMs: meter.gcMaxMs, peakRssMiB: mib(peak),
  }
  meter.stop()
  await monitor.stop()
  return out
}

/** The probes alone: the same runners and targets, started at the monitor's rate, spread evenly; no scheduler, state or writes. */
async function measureRaw(b: BenchDb): Promise<Figures['raw']> {
  const runners = createRunners(b.db)
  const ids = await b.db.query<{ id: string }>(`SELECT id FROM monitor_checks WHERE kind = 'heartbeat' LIMIT 1000`)
  const target = (kind: keyof Mix, i: number): ProbeTarget => ({
    checkId: kind === 'heartbeat' ? (ids.rows[i % Math.max(1, ids.rows.length)]?.id ?? '') : 'raw', kind: kind as Kind,
    config: cfg[kind].stored, credential: null, timeoutMs: cfg[kind].timeoutMs, intervalMs: cfg[kind].intervalMs, graceMs: cfg[kind].graceMs, activeSince: 0,
  })
  const ctx = { credentials: { fileDirs: [] }, now: Date.now() }
  const rate = CHECKS / INTERVAL_S
  const meter = new PhaseMeter()
  let started = 0
  let up = 0
  let inflight = 0
  let done = false
  const cpu0 = process.cpuUsage()
  const t0 = performance.now()
  await new Promise<void>((resolve) => {
    const tick = setInterval(() => {
      const elapsedS = (performance.now() - t0) / 1000
      const due = Math.floor(Math.min(elapsedS, RAW_S) * rate)
      for (; started < due; started++) {
        const kind = kindOf(started, MIX)
        inflight++
        ctx.now = Date.now()
        const end = () => {
          if (--inflight === 0 && done) resolve()
        }
        // A runner that throws counts as not up (the scheduler turns it into an unknown observation).
        void runners[kind as Kind].run(target(kind, started), ctx).then((o) => {
          if (o.status === 'up') up++
          end()
        }, end)
      }
      if (elapsedS >= RAW_S) {
        clearInterval(tick)
        done = true
        if (inflight === 0) resolve()
      }
    }, 10)
  })
  const wallS = (performance.now() - t0) / 1000
  const cpu = process.cpuUsage(cpu0)
  meter.stop()
  return { probes: started, up, wallS, cpuPct: ((cpu.user + cpu.system) / 1e6 / wallS) * 100, loopMaxMs: meter.overallMaxMs, loopMaxAtS: meter.overallMaxAtS, loopCpuMaxMs: meter.overallCpuMaxMs }
}

/** A starved process runs fewer probes than are due: CPU per check run, and what that makes at the due rate, stay comparable. */
const cpuPerCheckMs = (x: Figures) => ((x.cpuPct / 100) * x.wallS * 1000) / Math.max(1, x.probes)
const atDueRate = (x: Figures) => (cpuPerCheckMs(x) / 1000) * (CHECKS / INTERVAL_S) * 100
const rawPerProbeMs = (x: Figures) => ((x.raw.cpuPct / 100) * x.raw.wallS * 1000) / Math.max(1, x.raw.probes)

const all: Figures[] = []
for (const kind of DBS) {
  const b = await openBenchDb(kind)
  let fig: Figures
  try {
    const t = performance.now()
    const made = await createChecks(b.db, CHECKS, MIX, cfg)
    console.log(`${b.name}: created ${CHECKS} checks (${JSON.stringify(made)}) in ${f((performance.now() - t) / 1000)} s; interval ${INTERVAL_S} s; warm-up ${WARMUP_S} s, measuring ${MEASURE_S} s`)
    const m = await measureMonitor(b, made)
    fig = { ...m, raw: await measureRaw(b) }
  } finally {
    await b.close()
  }
  all.push(fig)
  const ph = (p: PhaseFigures) => `${p.count} rounds, wall p99 ${f(p.wallP99Ms)} / max ${f(p.wallMaxMs)} ms; during one: longest event-loop stall ${f(p.blockMaxMs)} ms, most main-thread CPU between two turns ${f(p.blockCpuMaxMs)} ms`
  console.log(`
monitor: ${CHECKS} checks, ${INTERVAL_S} s interval, ${fig.db}; measured ${f(fig.wallS)} s; load average ${loadavg().map((x) => f(x)).join(' ')}
  probes run             ${fig.probes} (${f(fig.probes / fig.wallS)} checks/s; due ${f(CHECKS / INTERVAL_S)})
  results written        ${fig.results} (${fig.rejected} rejected, ${fig.skippedBusy} skipped while busy) in ${fig.flushes} batches; outcomes ${JSON.stringify(fig.byStatus)}
  CPU                    ${f(fig.cpuPct)}% of one core; ${f(cpuPerCheckMs(fig), 3)} ms per check run -> ${f(atDueRate(fig))}% of one core at ${f(CHECKS / INTERVAL_S)} checks/s${fig.serverCpuPct === null ? ' (PGlite included)' : `; PostgreSQL server ${f(fig.serverCpuPct)}% of one core besides`}
  lateness ms            p50 ${f(fig.lateness.p50)}  p99 ${f(fig.lateness.p99)}  max ${f(fig.lateness.max)}  (n=${fig.lateness.count})
  housekeeping           ${ph(fig.house)}
  result writes          ${ph(fig.flush)}
  event loop             longest stall ${f(fig.loopMaxMs)} ms (any cause), ending ${f(fig.loopMaxAtS)} s into the measurement; most main-thread CPU between two turns ${f(fig.loopCpuMaxMs)} ms; longest GC pause ${f(fig.gcMaxMs)} ms
  peak RSS               ${fig.peakRssMiB} MiB
raw baseline (same runners and targets started at ${f(CHECKS / INTERVAL_S)}/s for ${RAW_S} s; no scheduler, state or writes)
  ${fig.raw.probes} probes, ${fig.raw.up} up; CPU ${f(fig.raw.cpuPct)}% of one core, ${f(rawPerProbeMs(fig), 3)} ms per probe; longest stall ${f(fig.raw.loopMaxMs)} ms, ending ${f(fig.raw.loopMaxAtS)} s in; most main-thread CPU between two turns ${f(fig.raw.loopCpuMaxMs)} ms
  ratio monitor / raw CPU per check ${f(cpuPerCheckMs(fig) / rawPerProbeMs(fig), 2)}x; the monitor adds ${f(cpuPerCheckMs(fig) - rawPerProbeMs(fig), 3)} ms per check
`)
}
child.kill('SIGTERM')

console.log('summary (one line per database; CPU in % of one core)')
console.log('db | checks | checks/s run | CPU % | ms CPU per check | at due rate % | raw ms per probe | ratio | lateness p50/p99 ms | housekeeping: stall / CPU block max ms | writes: stall / CPU block max ms | PG server CPU %')
for (const x of all) {
  console.log(`${x.db} | ${CHECKS} | ${f(x.probes / x.wallS)} | ${f(x.cpuPct)} | ${f(cpuPerCheckMs(x), 3)} | ${f(atDueRate(x))} | ${f(rawPerProbeMs(x), 3)} | ${f(cpuPerCheckMs(x) / rawPerProbeMs(x), 2)} | ${f(x.lateness.p50)}/${f(x.lateness.p99)} | ${f(x.house.blockMaxMs)} / ${f(x.house.blockCpuMaxMs)} | ${f(x.flush.blockMaxMs)} / ${f(x.flush.blockCpuMaxMs)} | ${x.serverCpuPct === null ? '-' : f(x.serverCpuPct)}`)
}
