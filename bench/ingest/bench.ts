// The run: get a pipeline, and for each scenario encode its templates, warm
// up, run the fixed-rate step or the find-the-maximum steps, then the raw
// baselines; size a deployment from the best step; write the report.
import { availableParallelism, cpus, loadavg, release, totalmem } from 'node:os'
import { BacklogReader } from './backlog.ts'
import { LocalResources, runBaselines } from './baselines.ts'
import { FreshnessTracker } from './freshness.ts'
import { SCENARIOS, type BenchOptions, type ScenarioName } from './options.ts'
import { CPU_CATEGORIES, openPipeline, type Pipeline } from './pipeline.ts'
import { Progress } from './progress.ts'
import { cpuOfProcesses, waitForQuiet } from './quiet.ts'
import { pipelineCpu } from './report.ts'
import type { BenchResult, ScenarioResult, StepResult } from './results.ts'
import { RateSearch, type Thresholds } from './schedule.ts'
import { OpenLoopSender } from './sender.ts'
import { sizeDeployment } from './sizing.ts'
import { fmtK, runStep, type StepContext } from './step.ts'
import { encodeTemplates, TrafficSource } from './traffic-source.ts'

export interface BenchIo {
  progress: Progress
  log(line: string): void
  /** Polled: true ends the run early (what was measured is still reported). */
  aborted(): boolean
}

export async function runIngestBench(o: BenchOptions, io: BenchIo): Promise<BenchResult> {
  const startedAt = new Date()
  const load = loadavg()
  io.log(`starting the pipeline (${o.pipeline})...`)
  const pipeline = await openPipeline(o, io.log)
  const local = new LocalResources()
  let backlog: BacklogReader | null = null
  const notes: string[] = []
  try {
    if (pipeline.natsUrl !== null) {
      try {
        backlog = await BacklogReader.open(pipeline.natsUrl)
      } catch (err) {
        notes.push(`JetStream backlog not measured: ${(err as Error).message}`)
      }
    }
    if (availableParallelism() <= 2) notes.push(`this machine has ${availableParallelism()} cores shared by the harness, the pipeline and nats-server: figures are a floor`)
    const originMs = performance.now()
    const thresholds: Thresholds = { maxP99Ms: o.maxP99Ms, maxErrorRate: o.maxErrorRate, maxFreshnessMs: o.maxFreshnessMs, maxSenderLagMs: 250 }
    const scenarios: ScenarioResult[] = []
    for (const name of o.scenarios) {
      if (io.aborted()) break
      scenarios.push(await runScenario(name, o, io, pipeline, backlog, local, thresholds, originMs))
    }
    const result: BenchResult = {
      version: 1,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      machine: { cpuModel: cpus()[0]?.model ?? 'unknown', cores: availableParallelism(), memoryBytes: totalmem(), node: process.version, kernel: release(), loadAverageAtStart: load },
      pipeline: {
        kind: pipeline.kind, url: pipeline.url, workers: pipeline.workers, loaderMaxRows: pipeline.loaderMaxRows,
        freshness: pipeline.lookup?.kind ?? null, processes: pipeline.processes.map((p) => `${p.name} (pid ${p.pid})`), notes: pipeline.notes,
      },
      options: { ...o, token: o.token === undefined ? undefined : '(hidden)' },
      mode: o.findMax ? 'find-max' : 'fixed',
      scenarios,
      sizing: null,
      notes,
      files: [],
    }
    result.sizing = sizing(result, o)
    return result
  } finally {
    io.progress.clear()
    await backlog?.close().catch(() => undefined)
    await local.close().catch(() => undefined)
    await pipeline.close()
  }
}

async function runScenario(
  name: ScenarioName, o: BenchOptions, io: BenchIo, pipeline: Pipeline, backlog: BacklogReader | null,
  local: LocalResources, thresholds: Thresholds, originMs: number,
): Promise<ScenarioResult> {
  const scenario = SCENARIOS[name]
  const shape = { records: o.records, messageLength: o.messageLength, attributes: o.attributes, mix: o.mix, resources: o.otelResources }
  const plan = { scenario, shape, workspaceId: pipeline.workspaceId, resources: pipeline.resources, token: pipeline.token, legacyToken: pipeline.legacyToken, templates: o.templates }
  const templates = encodeTemplates(plan, (done, total) => io.progress.update(done / total, `${name}: encoding request templates with the OpenTelemetry serializers (${done}/${total})`))
  io.progress.clear()
  const source = new TrafficSource(plan, templates)
  const sample = Array.from({ length: Math.min(16, templates.length) }, (_, i) => source.request(i).body.byteLength)
  const bytesPerRequest = sample.reduce((a, b) => a + b, 0) / sample.length
  io.log(`${name}: ${templates.length} templates of ${source.eventsPerRequest} events, ~${(bytesPerRequest / 1024).toFixed(0)} KiB per request as sent`)

  const sender = new OpenLoopSender(pipeline.url, { connections: o.connections, timeoutMs: o.timeoutMs })
  const freshness = pipeline.lookup === null || o.freshEveryMs <= 0 ? null : new FreshnessTracker(pipeline.lookup, { everyMs: o.freshEveryMs, originMs })
  freshness?.start()
  const ctx: StepContext = {
    pipeline, sender, source, freshness, backlog, progress: io.progress, thresholds,
    drainTimeoutMs: o.drainTimeoutMs, originMs, aborted: io.aborted,
  }
  const steps: StepResult[] = []
  const scenarioNotes: string[] = []
  try {
    if (o.warmupMs > 0) {
      await runStep(ctx, name, -1, o.rate, o.warmupMs, `${name} warm-up`)
      io.progress.clear()
    }
    const report = (s: StepResult) => {
      steps.push(s)
      io.log(`${name} #${s.step}: asked ${fmtK(s.rate)} ev/s, accepted ${fmtK(s.accepted.eventsPerSec)} ev/s, ack p50/p99 ${s.ackMs.p50.toFixed(1)}/${s.ackMs.p99.toFixed(1)} ms, ` +
        `freshness p99 ${s.freshnessMs === null ? '-' : (s.freshnessMs.p99 / 1000).toFixed(2) + ' s'}, pipeline CPU ${pipelineCpu(s).toFixed(2)} s/M events: ${s.verdict.pass ? 'pass' : 'FAIL (' + s.verdict.reasons.join('; ') + ')'}`)
    }
    if (!o.findMax) {
      report(await runStep(ctx, name, 1, o.rate, o.durationMs, `${name}`))
    } else {
      const search = new RateSearch({ start: o.rate, factor: o.factor, maxSteps: o.maxSteps, refine: o.refine })
      for (let rate = search.next(), n = 1; rate !== null && !io.aborted(); rate = search.next(), n++) {
        const s = await runStep(ctx, name, n, rate, o.stepMs, `${name} step ${n}`)
        report(s)
        search.record(rate, s.verdict.pass)
        if (s.verdict.harnessLimited) {
          scenarioNotes.push(`the harness could not keep its schedule at ${fmtK(rate)} events/s: the search stopped there (run the harness on another machine, or with --pipeline child on more cores)`)
          search.stop()
        }
      }
    }
  } finally {
    await freshness?.stop()
    await sender.close()
  }

  let baselines = null
  if (o.baselineEvents > 0 && !io.aborted()) {
    const q = await waitForQuiet({ cpuSeconds: cpuOfProcesses(pipeline.processes.map((p) => p.pid)) })
    io.log(q.quiet
      ? `${name}: pipeline idle after ${(q.waitedMs / 1000).toFixed(0)} s; measuring the raw baselines`
      : `${name}: pipeline still busy (${q.cores.toFixed(2)} cores) after ${(q.waitedMs / 1000).toFixed(0)} s; the raw baselines share the machine with it`)
    baselines = await runBaselines({
      scenario, source, events: o.baselineEvents, threads: pipeline.workers ?? availableParallelism(),
      workspaceId: pipeline.workspaceId, resourceId: pipeline.resources[0] as string, natsUrl: pipeline.natsUrl,
      store: pipeline.store, rowsPerInsert: pipeline.loaderMaxRows, log: io.log,
    }, local)
    io.log(`${name} baselines: decode ${fmtK(baselines.decode.eventsPerSec)} ev/s, JetStream publish ${fmtK(baselines.publish.eventsPerSec)} ev/s (${baselines.publish.mbPerSec.toFixed(0)} MB/s), ClickHouse insert ${fmtK(baselines.insert.eventsPerSec)} ev/s`)
  }
  const passing = steps.filter((s) => s.verdict.pass)
  const best = passing.reduce<StepResult | null>((b, s) => (b === null || s.accepted.eventsPerSec > b.accepted.eventsPerSec ? s : b), null)
  return {
    name, scenario, shape, mix: o.mixName, eventsPerRequest: source.eventsPerRequest, templates: templates.length, bytesPerRequest,
    steps, baselines, bestStep: best?.step ?? null,
    freshnessSamples: freshness?.samples.filter((s) => s.step > 0) ?? [],
    notes: scenarioNotes,
  }
}

/** Sizes from the first scenario's best passing step (or its last step when none passed). */
function sizing(r: BenchResult, o: BenchOptions): BenchResult['sizing'] {
  const s = r.scenarios[0]
  if (s === undefined || s.steps.length === 0) return null
  if (s.baselines === null) {
    r.notes.push('no sizing report: it needs the raw baselines (bytes per event, insert rate); leave out --baseline-events 0')
    return null
  }
  const step = s.steps.find((x) => x.step === s.bestStep) ?? (s.steps[s.steps.length - 1] as StepResult)
  if (!(step.accepted.events > 0)) return null
  if (r.pipeline.processes.length === 0) {
    r.notes.push('no sizing report: no pipeline process was measured (give --server-pid and --nats-pid with --url)')
    return null
  }
  const c = step.cpuSecondsPerMillion
  const at = step.accepted.eventsPerSec
  const report = sizeDeployment({
    targetEventsPerSec: o.target ?? at,
    retentionDays: o.retentionDays,
    headroom: o.headroom,
    replicas: o.replicas,
    bufferHours: o.bufferHours,
    measuredAtEventsPerSec: at,
    cpu: {
      nodeMain: c[CPU_CATEGORIES.main] ?? 0,
      workers: c[CPU_CATEGORIES.workers] ?? 0,
      v8: c[CPU_CATEGORIES.v8] ?? 0,
      clickhouse: c[CPU_CATEGORIES.clickhouse] ?? 0,
      nats: c[CPU_CATEGORIES.nats] ?? 0,
    },
    wireBytesPerEvent: s.baselines.wireBytesPerEvent,
    streamBytesPerEvent: s.baselines.rowBytesPerEvent,
    diskBytesPerEvent: s.baselines.storage.bytesPerEvent,
    insertEventsPerSec: s.baselines.insert.eventsPerSec,
    peakRss: { lookout: step.peakRssBytes.lookout ?? Number.NaN, nats: step.peakRssBytes['nats-server'] ?? Number.NaN },
    machineCores: r.machine.cores,
  })
  const extra = r.pipeline.kind === 'in-process' ? ' (in-process: the main thread also carried the harness\'s client, so its cost is overstated)' : ''
  return { ...report, basedOn: `${s.name} step #${step.step} at ${fmtK(at)} events/s${step.verdict.pass ? '' : ', which did not pass the thresholds'}${extra}` }
}
