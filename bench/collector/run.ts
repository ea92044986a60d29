// A collector at scale: BENCH_CHECKS checks (https and tcp against local targets
// in a separate process) assigned to one collector process against a real
// Lookout (in this process: api + monitor roles, PGlite). Reports the
// collector's CPU and RSS from /proc, and the delay from the probe that
// confirms a change to the confirmed state in PostgreSQL, measured on
// BENCH_DELAY_CHECKS extra tcp checks whose port this script closes and reopens.
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server, type Socket } from 'node:net'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import { createCheck, parseConfig } from '../../monitor/index.ts'
import { processCpuSeconds, processRss } from '../lib/procstat.ts'
import { startTestLookout } from '../../test/helpers/lookout.ts'
import { spawnCollector } from '../../test/helpers/collector-process.ts'

const env = (name: string, dflt: number) => (process.env[name] === undefined ? dflt : Number(process.env[name]))
const CHECKS = env('BENCH_CHECKS', 1000)
const INTERVAL_S = env('BENCH_INTERVAL_S', 30)
const MEASURE_S = env('BENCH_MEASURE_S', 90)
const DELAY_CHECKS = env('BENCH_DELAY_CHECKS', 20)
const TOGGLES = env('BENCH_TOGGLES', 6)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))] ?? NaN

const targets = spawn(process.execPath, [join(import.meta.dirname, '../monitor/targets.ts')], { stdio: ['ignore', 'pipe', 'inherit'] })
const line = await new Promise<string>((resolve) => createInterface({ input: targets.stdout }).once('line', resolve))
const t = JSON.parse(line) as { https: number; tcp: number; cert: string }

// The port the delay checks watch: closed and reopened by this script.
const sockets = new Set<Socket>()
let toggle: Server | null = null
let toggleOpen = false
const openToggle = (port: number) => new Promise<number>((resolve) => {
  toggle = createServer((s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s)).on('error', () => undefined)
    s.end()
  })
  toggle.listen(port, '127.0.0.1', () => {
    toggleOpen = true
    resolve((toggle?.address() as { port: number }).port)
  })
})
const closeToggle = () => new Promise<void>((resolve) => {
  if (!toggleOpen) return resolve()
  toggleOpen = false
  for (const s of sockets) s.destroy()
  toggle?.close(() => resolve())
})
const togglePort = await openToggle(0)

const lk = await startTestLookout({ roles: ['api', 'monitor'], deliveries: { onToast: () => undefined } })
const db = lk.lookout.db
const rid = await lk.resource('bench-private')
const P = `/v1/workspaces/${lk.workspaceId}/resources/${rid}/monitoring`
const enrolled = await lk.req('POST', `${P}/sources`, { action: 'enroll', name: 'bench', kind: 'collector' })
const sourceId: string = enrolled.body.source.id
const parsed = (kind: 'https' | 'tcp', c: Record<string, unknown>) => {
  const r = parseConfig(kind, c)
  if (!r.ok) throw new Error('bad configuration')
  return r.config
}
const https = parsed('https', { url: `https://127.0.0.1:${t.https}/`, ca: t.cert, interval_seconds: INTERVAL_S, timeout_seconds: 10 })
const tcp = parsed('tcp', { host: '127.0.0.1', port: t.tcp, interval_seconds: INTERVAL_S, timeout_seconds: 10 })
const watched = parsed('tcp', { host: '127.0.0.1', port: togglePort, interval_seconds: 1, timeout_seconds: 1 })
const delayIds: string[] = []
await db.transaction(async (tx) => {
  for (let i = 0; i < CHECKS + DELAY_CHECKS; i++) {
    const delay = i >= CHECKS
    const row = await createCheck(tx, {
      workspaceId: lk.workspaceId, resourceId: rid, name: `check ${i}`, kind: delay || i % 2 === 1 ? 'tcp' : 'https', location: 'collector',
      config: delay ? watched : i % 2 === 0 ? https : tcp, credential: null, sourceId, enabled: !delay, required: true, maintenanceUntil: null, runNow: false,
    }, Date.now())
    if (delay) delayIds.push(row.id)
  }
})
console.log(`${CHECKS} checks (half https with a full TLS handshake, half tcp) every ${INTERVAL_S} s, plus ${DELAY_CHECKS} tcp checks every 1 s for the delay`)

const dataDir = mkdtempSync(join(tmpdir(), 'lookout-bench-collector-'))
const collector = spawnCollector(lk.url, enrolled.body.token, dataDir, {}, ['--poll-seconds', '20'])
const pid = collector.child.pid as number
await sleep(3_000)
console.log(`collector RSS after start: ${(processRss(pid) / 2 ** 20).toFixed(0)} MiB; warming up one interval`)
await sleep(INTERVAL_S * 1000)

// ---- CPU and memory over the measurement window ----
const cpu0 = processCpuSeconds(pid)
const probes0 = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_results WHERE worker = $1', [`collector:${sourceId}`])).rows[0]?.n ?? 0
const rss: number[] = []
const t0 = Date.now()
while (Date.now() - t0 < MEASURE_S * 1000) {
  rss.push(processRss(pid))
  await sleep(1000)
}
const cpuS = processCpuSeconds(pid) - cpu0
const wallS = (Date.now() - t0) / 1000
const probes = ((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM monitor_results WHERE worker = $1', [`collector:${sourceId}`])).rows[0]?.n ?? 0) - probes0

// ---- delay: confirming probe -> confirmed state committed ----
// The delay checks start now (paused during the CPU window, so the figures above are the 1,000 checks' alone).
for (const id of delayIds) await lk.req('POST', P, { id, enabled: true })
const delays: number[] = []
for (let i = 0; i <= TOGGLES; i++) {
  const to = i % 2 === 0 ? 'healthy' : 'unhealthy'
  const since = new Date().toISOString()
  if (i > 0 && to === 'unhealthy') await closeToggle()
  else if (i > 0) await openToggle(togglePort)
  const seen = new Set<string>()
  const deadline = Date.now() + 30_000
  while (seen.size < delayIds.length && Date.now() < deadline) {
    const r = await db.query<{ check_id: string; at: Date }>(
      'SELECT check_id, at FROM monitor_transitions WHERE check_id = ANY($1::uuid[]) AND to_health = $2 AND at >= $3', [delayIds, to, since])
    const now = Date.now()
    for (const x of r.rows) {
      if (seen.has(x.check_id)) continue
      seen.add(x.check_id)
      delays.push(now - new Date(x.at).getTime())
    }
    await sleep(25)
  }
}

const stats = {
  checks: CHECKS, interval_s: INTERVAL_S, probes_per_s: +(probes / wallS).toFixed(1),
  collector_cpu_percent_of_one_core: +((cpuS / wallS) * 100).toFixed(2),
  cpu_ms_per_probe: +((cpuS * 1000) / probes).toFixed(3),
  rss_mib_p50: +(pct(rss, 50) / 2 ** 20).toFixed(0), rss_mib_max: +(Math.max(...rss) / 2 ** 20).toFixed(0),
  delay_ms: { n: delays.length, p50: pct(delays, 50), p90: pct(delays, 90), p99: pct(delays, 99), max: Math.max(...delays) },
  note: 'delay: from the observation time of the confirming probe to when this script saw the transition (polling every 25 ms)',
  load_average: loadavg().map((x) => +x.toFixed(1)),
}
console.log(JSON.stringify(stats, null, 2))
// 1,000 checks every 60 s and 120 s, from the CPU per probe measured here.
for (const s of [60, 120]) console.log(`1,000 checks every ${s} s: ~${(((1000 / s) * stats.cpu_ms_per_probe) / 10).toFixed(2)}% of one core`)

await collector.stop()
targets.kill('SIGTERM')
await closeToggle()
await lk.stop()
rmSync(dataDir, { recursive: true, force: true })
