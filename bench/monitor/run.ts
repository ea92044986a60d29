// Monitoring at scale: BENCH_CHECKS checks (https and tcp against local
// targets in a separate process) on one Monitor with the embedded PostgreSQL
// (PGlite), at a compressed interval. Reports sustained checks/s, schedule
// lateness, CPU per 1000 checks (extrapolated to 10,000 checks at 120 s), RSS,
// and the same probes run raw (no scheduler, no state, no database) as the baseline.
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { PG_MIGRATIONS } from '../../api/index.ts'
import { createWorkspace, registerResource } from '../../workspace/index.ts'
import { migrate, openPglite, openPostgres } from '../../core/index.ts'
import { HttpsRunner, Monitor, TcpRunner, createCheck, parseConfig, type ProbeTarget, type Runner } from '../../monitor/index.ts'
import { mib, rssSampler, summarize } from '../lib/stats.ts'
import { processCpuSeconds } from '../lib/procstat.ts'
import { startPostgresServer, type TestDatabase } from '../../test/helpers/servers.ts'

const env = (name: string, dflt: number) => (process.env[name] === undefined ? dflt : Number(process.env[name]))
const CHECKS = env('BENCH_CHECKS', 10_000)
const INTERVAL_S = env('BENCH_INTERVAL_S', 24)
const HTTPS_SHARE = env('BENCH_HTTPS_SHARE', 0.5)
const WARMUP = env('BENCH_WARMUP_INTERVALS', 1)
const MEASURE = env('BENCH_MEASURE_INTERVALS', 3)
const RAW_PROBES = env('BENCH_RAW_PROBES', 4_000)
const RAW_PACED_S = env('BENCH_RAW_PACED_S', 20)
const FLUSH_MS = process.env.BENCH_FLUSH_MS === undefined ? undefined : Number(process.env.BENCH_FLUSH_MS)
const REAL_INTERVAL_S = 120

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** CPU seconds of a process and its live children (a PostgreSQL server forks a backend per connection). */
function treeCpu(pid: number): number {
  let total = processCpuSeconds(pid)
  try {
    for (const c of readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)) if (c !== '') total += treeCpu(Number(c))
  } catch {
    // gone
  }
  return total
}

// ---- targets in a child process ----
const child = spawn(process.execPath, [join(import.meta.dirname, 'targets.ts')], { stdio: ['ignore', 'pipe', 'inherit'] })
const line = await new Promise<string>((resolve) => createInterface({ input: child.stdout }).once('line', resolve))
const targets = JSON.parse(line) as { https: number; tcp: number; cert: string }
const httpsConfig = { url: `https://127.0.0.1:${targets.https}/`, ca: targets.cert, interval_seconds: INTERVAL_S, timeout_seconds: Math.min(10, INTERVAL_S) }
const tcpConfig = { host: '127.0.0.1', port: targets.tcp, interval_seconds: INTERVAL_S, timeout_seconds: Math.min(10, INTERVAL_S) }

// ---- state: PGlite in this process (the embedded default), or a PostgreSQL server (BENCH_PG=1) ----
const dir = mkdtempSync(join(tmpdir(), 'lookout-bench-monitor-'))
let server: TestDatabase | null = null
if (process.env.BENCH_PG === '1') server = await startPostgresServer()
const db = server === null
  ? await openPglite(dir)
  : await openPostgres(`postgres://${server.user}:${encodeURIComponent(server.password)}@${server.host}:${server.port}/postgres`)
const dbName = server === null ? 'PGlite (in process)' : 'PostgreSQL 15 server (separate process)'
await migrate(db, PG_MIGRATIONS)
const ws = await createWorkspace(db, 'bench')
const resources: string[] = []
for (let i = 0; i < 100; i++) resources.push((await registerResource(db, ws.id, { external_id: `bench-${i}`, name: `bench ${i}` })).resource.id)
const httpsParsed = parseConfig('https', httpsConfig)
const tcpParsed = parseConfig('tcp', tcpConfig)
if (!httpsParsed.ok || !tcpParsed.ok) throw new Error('bad bench configuration')
const tCreate = performance.now()
const httpsCount = Math.round(CHECKS * HTTPS_SHARE)
for (let start = 0; start < CHECKS; start += 1000) {
  await db.transaction(async (tx) => {
    for (let i = start; i < Math.min(CHECKS, start + 1000); i++) {
      const https = i < httpsCount
      await createCheck(tx, {
        workspaceId: ws.id, resourceId: resources[i % resources.length] as string, name: `check ${i}`, kind: https ? 'https' : 'tcp',
        location: 'public', config: https ? httpsParsed.config : tcpParsed.config, credential: null, sourceId: null, enabled: true,
        required: true, maintenanceUntil: null, runNow: false,
      }, Date.now())
    }
  })
}
console.log(`created ${CHECKS} checks (${httpsCount} https, ${CHECKS - httpsCount} tcp) in ${((performance.now() - tCreate) / 1000).toFixed(1)} s; interval ${INTERVAL_S} s`)

// ---- the monitor ----
// Imports (chdb is mapped by the api stage) and PGlite's WebAssembly heap are here before the monitor starts.
const rssBefore = process.memoryUsage.rss()
const monitor = new Monitor(db, { logger: { warn: (o, m) => console.error(m, o) }, ...(FLUSH_MS === undefined ? {} : { flushMs: FLUSH_MS }) })
await monitor.start()
await sleep(WARMUP * INTERVAL_S * 1000)
monitor.takeLateness()
const s0 = monitor.stats()
const cpu0 = process.cpuUsage()
const dbCpu0 = server === null ? 0 : treeCpu(server.pid)
const rss = rssSampler()
const loopDelay = monitorEventLoopDelay({ resolution: 10 })
loopDelay.enable()
const t0 = performance.now()
await sleep(MEASURE * INTERVAL_S * 1000)
const wallS = (performance.now() - t0) / 1000
const cpu = process.cpuUsage(cpu0)
const dbCpuS = server === null ? 0 : treeCpu(server.pid) - dbCpu0
loopDelay.disable()
const peakRss = rss.stop()
const s1 = monitor.stats()
const heapUsed = process.memoryUsage().heapUsed
const lateness = summarize(Array.from(monitor.takeLateness()))
await monitor.stop()

const probes = s1.probes - s0.probes
const results = s1.results - s0.results
const cpuS = (cpu.user + cpu.system) / 1e6
const cpuPer1000 = (cpuS / probes) * 1000
const realRate = CHECKS / REAL_INTERVAL_S
const coreShareAtReal = (cpuPer1000 / 1000) * realRate

// ---- raw baseline: the same probes, no scheduler, no state, no database ----
const httpsTarget: ProbeTarget = { checkId: 'raw', kind: 'https', config: httpsParsed.config.stored, credential: null, timeoutMs: 10_000, intervalMs: 0, graceMs: 0, activeSince: 0 }
const tcpTarget: ProbeTarget = { ...httpsTarget, kind: 'tcp', config: tcpParsed.config.stored }
const runners: [Runner, ProbeTarget][] = [[new HttpsRunner(), httpsTarget], [new TcpRunner(), tcpTarget]]
const ctx = { credentials: { fileDirs: [] }, now: Date.now() }
let next = 0
let rawUp = 0
const rawCpu0 = process.cpuUsage()
const rawT0 = performance.now()
await Promise.all(Array.from({ length: 64 }, async () => {
  while (next < RAW_PROBES) {
    const i = next++
    const [runner, target] = (i / RAW_PROBES < HTTPS_SHARE ? runners[0] : runners[1]) as [Runner, ProbeTarget]
    if ((await runner.run(target, ctx)).status === 'up') rawUp++
  }
}))
const rawWall = (performance.now() - rawT0) / 1000
const rawCpu = process.cpuUsage(rawCpu0)
const rawCpuPer1000 = ((rawCpu.user + rawCpu.system) / 1e6 / RAW_PROBES) * 1000

// ---- paced raw baseline: the same runners started at the monitor's rate, spread evenly (no scheduler/state/database) ----
// Spread-out probes cost more each than a tight loop (every socket event is its own wakeup), so this is the fair
// baseline for "what does the monitor add at this rate".
const rate = CHECKS / INTERVAL_S
let paced = 0
let pacedUp = 0
let pacedInflight = 0
let pacedDone = false
const pacedCpu0 = process.cpuUsage()
const pacedT0 = performance.now()
await new Promise<void>((resolve) => {
  const tick = setInterval(() => {
    const elapsedS = (performance.now() - pacedT0) / 1000
    const due = Math.min(Math.floor(elapsedS * rate), Math.floor(RAW_PACED_S * rate))
    for (; paced < due; paced++) {
      const [runner, target] = (paced % 1000 < HTTPS_SHARE * 1000 ? runners[0] : runners[1]) as [Runner, ProbeTarget]
      pacedInflight++
      void runner.run(target, ctx).then((o) => {
        if (o.status === 'up') pacedUp++
        if (--pacedInflight === 0 && pacedDone) resolve()
      })
    }
    if (elapsedS >= RAW_PACED_S) {
      clearInterval(tick)
      pacedDone = true
      if (pacedInflight === 0) resolve()
    }
  }, 5)
})
const pacedWall = (performance.now() - pacedT0) / 1000
const pacedCpu = process.cpuUsage(pacedCpu0)
const pacedCpuS = (pacedCpu.user + pacedCpu.system) / 1e6
const pacedCpuPer1000 = (pacedCpuS / Math.max(1, paced)) * 1000

child.kill('SIGTERM')
await db.close()
await server?.stop()
rmSync(dir, { recursive: true, force: true })

const f = (n: number, d = 1) => n.toFixed(d)
console.log(`
monitor (${CHECKS} checks, ${INTERVAL_S} s interval, ${dbName}, measured ${f(wallS)} s after ${WARMUP} warm-up interval(s); load average ${loadavg().map((x) => x.toFixed(1)).join(' ')})
  probes run             ${probes}  (${f(probes / wallS)} checks/s sustained; target ${f(CHECKS / INTERVAL_S)} checks/s)
  results written        ${results}  (${s1.rejected - s0.rejected} rejected, ${s1.skippedBusy - s0.skippedBusy} skipped while busy)
  outcomes               ${JSON.stringify(s1.byStatus)}
  write batches          ${s1.flushes - s0.flushes}, ${f((s1.flushMs - s0.flushMs) / Math.max(1, s1.flushes - s0.flushes))} ms each, ${f(results / Math.max(1, s1.flushes - s0.flushes))} results each
  schedule lateness ms   p50 ${f(lateness.p50)}  p90 ${f(lateness.p90)}  p99 ${f(lateness.p99)}  max ${f(lateness.max)}  (n=${lateness.count})
  event-loop delay ms    p50 ${f(loopDelay.percentile(50) / 1e6)}  p99 ${f(loopDelay.percentile(99) / 1e6)}  max ${f(loopDelay.max / 1e6)}
  CPU                    ${f(cpuS)} s = ${f((cpuS / wallS) * 100)}% of one core; ${f(cpuPer1000 * 1000, 0)} ms per 1000 checks${server === null ? ' (PGlite included)' : `
  PostgreSQL server CPU  ${f(dbCpuS)} s = ${f((dbCpuS / wallS) * 100)}% of one core; ${f((dbCpuS / probes) * 1e6, 0)} ms per 1000 checks (not in the figures above)`}
  at ${CHECKS} checks / ${REAL_INTERVAL_S} s   ${f(realRate)} checks/s -> ${f(coreShareAtReal * 100, 2)}% of one core (aim < 10%)
  peak RSS               ${mib(peakRss)} MiB (${mib(rssBefore)} MiB before the monitor started: imports and PGlite; +${mib(peakRss - rssBefore)} MiB); V8 heap used ${mib(heapUsed)} MiB
raw probes (same runners, 64 at a time, no scheduler/state/database)
  ${RAW_PROBES} probes in ${f(rawWall)} s, ${rawUp} up; ${f(rawCpuPer1000 * 1000, 0)} ms CPU per 1000 probes
paced raw probes (same runners started at ${f(rate)}/s, spread evenly, no scheduler/state/database)
  ${paced} probes in ${f(pacedWall)} s, ${pacedUp} up; ${f(pacedCpuS)} s CPU = ${f((pacedCpuS / pacedWall) * 100)}% of one core; ${f(pacedCpuPer1000 * 1000, 0)} ms CPU per 1000 probes
ratio monitor/raw CPU per check: ${f(cpuPer1000 / rawCpuPer1000, 2)}x (tight loop), ${f(cpuPer1000 / pacedCpuPer1000, 2)}x (paced at the same rate)
`)
