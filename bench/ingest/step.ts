// One measured step: offer a rate for a duration (open loop), then drain (the
// backlog empties, every freshness marker is seen), and account the requests,
// latencies, CPU of every watched process, peak memory and the backlog.
import { loadavg } from 'node:os'
import { cpuBetween, cpuSnapshot, processRss, type CpuSnapshot } from '../lib/procstat.ts'
import { summarize } from '../lib/stats.ts'
import type { BacklogReader } from './backlog.ts'
import type { FreshnessTracker } from './freshness.ts'
import { CPU_CATEGORIES, type Pipeline } from './pipeline.ts'
import type { Progress } from './progress.ts'
import type { RequestCounts, RssPoint, StepResult } from './results.ts'
import { judgeStep, OpenLoopSchedule, type Thresholds } from './schedule.ts'
import { DROPPED, NETWORK_ERROR, TIMED_OUT, type OpenLoopSender, type RequestResult } from './sender.ts'
import type { TrafficSource } from './traffic-source.ts'
import type { ScenarioName } from './options.ts'

export const HARNESS = 'harness (load generator)'
/** RSS samples (every 250 ms) per timeline point. */
const RSS_TIMELINE_EVERY = 20

export interface StepContext {
  pipeline: Pipeline
  sender: OpenLoopSender
  source: TrafficSource
  freshness: FreshnessTracker | null
  backlog: BacklogReader | null
  progress: Progress
  thresholds: Thresholds
  drainTimeoutMs: number
  /** The run's clock origin (performance.now()), shared with the freshness samples. */
  originMs: number
  /** Set when the run is being interrupted: the step stops sending. */
  aborted: () => boolean
}

export async function runStep(ctx: StepContext, scenario: ScenarioName, step: number, rate: number, durationMs: number, label: string): Promise<StepResult> {
  const epr = ctx.source.eventsPerRequest
  const counts: RequestCounts = { due: 0, ok: 0, refused429: 0, refused503: 0, otherStatus: {}, networkErrors: 0, timeouts: 0, dropped: 0 }
  const latencies: number[] = []
  let okEvents = 0
  let okBytes = 0
  let sentBytes = 0

  const cpu0 = ctx.pipeline.processes.map((p) => cpuSnapshot(p.pid, p.classify))
  const harness0 = process.cpuUsage()
  const peakRss: Record<string, number> = {}
  // Peaks from every 250 ms sample; a point of the timeline every 5 s (a soak shows whether memory stays flat).
  const rssTimeline: RssPoint[] = []
  let rssSamples = 0
  const sampleRss = () => {
    const now: Record<string, number> = {}
    for (const p of ctx.pipeline.processes) {
      const v = processRss(p.pid)
      if (!Number.isFinite(v)) continue
      now[p.name] = v
      peakRss[p.name] = Math.max(peakRss[p.name] ?? 0, v)
    }
    if (rssSamples++ % RSS_TIMELINE_EVERY === 0) rssTimeline.push({ tS: (performance.now() - ctx.originMs) / 1000, bytes: now })
  }
  sampleRss()
  const rssTimer = setInterval(sampleRss, 250)
  let backlogMax: { maxMessages: number; maxBytes: number } | null = ctx.backlog === null ? null : { maxMessages: 0, maxBytes: 0 }
  let lastBacklog = { messages: Number.NaN, bytes: Number.NaN }
  let reading = false
  const readBacklog = async (): Promise<void> => {
    if (ctx.backlog === null || reading) return
    reading = true
    try {
      lastBacklog = await ctx.backlog.read()
      if (backlogMax !== null) {
        backlogMax.maxMessages = Math.max(backlogMax.maxMessages, lastBacklog.messages)
        backlogMax.maxBytes = Math.max(backlogMax.maxBytes, lastBacklog.bytes)
      }
    } catch {
      backlogMax = null
    } finally {
      reading = false
    }
  }
  const backlogTimer = setInterval(() => void readBacklog(), 500)

  ctx.freshness?.setStep(step)
  const lookups0 = ctx.freshness?.lookups ?? 0
  const schedule = new OpenLoopSchedule(rate / epr, performance.now() + 5, durationMs)
  const handle = ctx.sender.run(schedule, ctx.source, {
    onSend: (req, intended) => ctx.freshness?.onSend({ nonce: req.nonce, resourceId: req.resourceId, timeMs: req.timeMs }, intended),
    onResult: (req, r: RequestResult) => {
      counts.due++
      sentBytes += r.status === DROPPED ? 0 : r.bytes
      const ok = r.status >= 200 && r.status < 300
      ctx.freshness?.onResult(req.nonce, ok)
      if (r.status === DROPPED) {
        counts.dropped++
        return
      }
      latencies.push(r.latencyMs)
      if (ok) {
        counts.ok++
        okEvents += r.events
        okBytes += r.bytes
      } else if (r.status === 429) counts.refused429++
      else if (r.status === 503) counts.refused503++
      else if (r.status === TIMED_OUT) counts.timeouts++
      else if (r.status === NETWORK_ERROR) counts.networkErrors++
      else counts.otherStatus[String(r.status)] = (counts.otherStatus[String(r.status)] ?? 0) + 1
    },
  })
  const started = schedule.startMs
  const progressTimer = setInterval(() => {
    if (ctx.aborted()) handle.stop()
    const elapsed = performance.now() - started
    const sec = Math.max(0.001, elapsed / 1000)
    ctx.progress.update(elapsed / Math.max(1, durationMs),
      `${label}: ${fmtK(rate)} ev/s asked, ${fmtK(okEvents / sec)} acked, in flight ${ctx.sender.inFlight}, ` +
      `429/503 ${counts.refused429}/${counts.refused503}, backlog ${Number.isNaN(lastBacklog.messages) ? '?' : lastBacklog.messages} msgs` +
      (ctx.freshness === null ? '' : `, markers waiting ${ctx.freshness.outstanding}`))
  }, 250)
  await handle.done
  clearInterval(progressTimer)
  const sendEnd = performance.now()
  // The schedule's window (requests answered after it still count for it); shorter only when interrupted.
  const windowS = Math.max(1e-3, (ctx.aborted() ? Math.min(durationMs, sendEnd - started) : durationMs) / 1000)
  const lags = ctx.sender.takeLags()

  // Drain: everything acknowledged has been loaded, and every marker found.
  const deadline = sendEnd + ctx.drainTimeoutMs
  if (ctx.backlog !== null) {
    for (;;) {
      await readBacklog()
      if (backlogMax === null || lastBacklog.messages === 0 || performance.now() > deadline || ctx.aborted()) break
      ctx.progress.update(1, `${label}: draining, backlog ${lastBacklog.messages} msgs`)
      await sleep(250)
    }
  }
  if (ctx.freshness !== null) {
    ctx.progress.update(1, `${label}: waiting for ${ctx.freshness.outstanding} freshness marker(s)`, true)
    await ctx.freshness.settle(ctx.aborted() ? 0 : Math.max(0, deadline - performance.now()))
  }
  const drainS = (performance.now() - sendEnd) / 1000
  clearInterval(rssTimer)
  clearInterval(backlogTimer)
  rssSamples = 0
  sampleRss()

  const cpuSeconds: Record<string, number> = {}
  ctx.pipeline.processes.forEach((p, i) => {
    const by = cpuBetween(cpu0[i] as CpuSnapshot, cpuSnapshot(p.pid, p.classify))
    for (const [k, v] of Object.entries(by)) {
      // Threads that came and went in a Lookout process are chdb's query threads.
      const key = k === 'exited' ? (p.name === 'nats-server' ? CPU_CATEGORIES.nats : CPU_CATEGORIES.clickhouse) : k
      cpuSeconds[key] = (cpuSeconds[key] ?? 0) + v
    }
  })
  if (!ctx.pipeline.sharesHarnessProcess) {
    const h = process.cpuUsage(harness0)
    cpuSeconds[HARNESS] = (h.user + h.system) / 1e6
  }
  const cpuSecondsPerMillion: Record<string, number> = {}
  for (const [k, v] of Object.entries(cpuSeconds)) cpuSecondsPerMillion[k] = okEvents > 0 ? v / (okEvents / 1e6) : Number.NaN

  const samples = ctx.freshness === null ? [] : ctx.freshness.samples.filter((s) => s.step === step)
  const found = samples.filter((s) => Number.isFinite(s.freshnessMs)).map((s) => s.freshnessMs)
  const freshnessMs = ctx.freshness === null ? null : { ...summarize(found), lost: samples.length - found.length, lookups: ctx.freshness.lookups - lookups0 }
  const ackMs = summarize(latencies)
  const senderLagMs = summarize(lags)
  const errorRate = counts.due === 0 ? 0 : (counts.due - counts.ok) / counts.due
  const verdict = judgeStep({
    ackP99Ms: ackMs.p99,
    errorRate,
    freshnessP99Ms: freshnessMs?.p99 ?? Number.NaN,
    freshnessLost: freshnessMs?.lost ?? 0,
    // In one process the pipeline's own event loop delays the sender too: not the harness's limit.
    senderLagP99Ms: ctx.pipeline.sharesHarnessProcess ? 0 : senderLagMs.p99,
  }, ctx.thresholds)
  return {
    scenario, step, rate, startS: (started - ctx.originMs) / 1000, durationS: windowS, requests: counts,
    offered: { eventsPerSec: (counts.due * epr) / windowS, mbPerSec: sentBytes / 1e6 / windowS },
    accepted: { events: okEvents, eventsPerSec: okEvents / windowS, mbPerSec: okBytes / 1e6 / windowS },
    errorRate, ackMs, senderLagMs, freshnessMs, backlog: backlogMax, drainS,
    cpuSeconds, cpuSecondsPerMillion, peakRssBytes: peakRss, rssTimeline, loadAverage: loadavg()[0] ?? Number.NaN, verdict,
  }
}

export function fmtK(v: number): string {
  if (!Number.isFinite(v)) return 'n/a'
  return v >= 1e6 ? `${(v / 1e6).toFixed(2)}M` : v >= 1e3 ? `${(v / 1e3).toFixed(1)}k` : v.toFixed(0)
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
