// The end of a run: text tables (also saved), the JSON file, and the plots.
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { BenchResult, ScenarioResult, StepResult } from './results.ts'
import { CPU_CATEGORIES } from './pipeline.ts'
import { HARNESS, fmtK } from './step.ts'
import { fmtBytes } from './sizing.ts'
import { lineChart, stackedBars } from './svg.ts'

/** A plain-text table: first column left-aligned, the rest right-aligned. */
export function textTable(headers: readonly string[], rows: readonly (readonly string[])[]): string {
  const widths = headers.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = (cells: readonly string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i] as number) : c.padStart(widths[i] as number))).join('  ')
  return [line(headers), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)].join('\n')
}

const ms = (v: number) => (Number.isFinite(v) ? (v >= 100 ? v.toFixed(0) : v.toFixed(1)) : '-')
const sec = (v: number) => (Number.isFinite(v) ? (v / 1000).toFixed(2) : '-')
const num = (v: number, d = 2) => (Number.isFinite(v) ? v.toFixed(d) : '-')
const ratio = (a: number, b: number | undefined) => (b !== undefined && b > 0 && Number.isFinite(a) ? (a / b).toFixed(2) : '-')

const CPU_COLUMNS = [CPU_CATEGORIES.main, CPU_CATEGORIES.workers, CPU_CATEGORIES.v8, CPU_CATEGORIES.clickhouse, CPU_CATEGORIES.nats, HARNESS] as const
const CPU_SHORT: Record<string, string> = {
  [CPU_CATEGORIES.main]: 'main', [CPU_CATEGORIES.workers]: 'workers', [CPU_CATEGORIES.v8]: 'V8',
  [CPU_CATEGORIES.clickhouse]: 'ClickHouse', [CPU_CATEGORIES.nats]: 'nats', [HARNESS]: 'harness',
}

function stepName(s: StepResult): string {
  return `${s.scenario} #${s.step}`
}

function errorsOf(s: StepResult): number {
  const r = s.requests
  return r.networkErrors + r.timeouts + r.dropped + Object.values(r.otherStatus).reduce((a, b) => a + b, 0)
}

/** A process's resident memory at the end of a step's drain (NaN when not measured). */
function endRss(s: StepResult, name: string): number {
  return s.rssTimeline[s.rssTimeline.length - 1]?.bytes[name] ?? Number.NaN
}

/** Pipeline CPU per million events (everything but the harness). */
export function pipelineCpu(s: StepResult): number {
  let t = 0
  for (const [k, v] of Object.entries(s.cpuSecondsPerMillion)) if (k !== HARNESS) t += v
  return t
}

export function formatReport(r: BenchResult): string {
  const out: string[] = []
  const steps = r.scenarios.flatMap((s) => s.steps)
  out.push(`Lookout ingest benchmark, ${r.startedAt}`)
  out.push(`machine: ${r.machine.cores} cores (${r.machine.cpuModel}), ${fmtBytes(r.machine.memoryBytes)} RAM, Node ${r.machine.node}, load average at start ${r.machine.loadAverageAtStart.map((v) => v.toFixed(2)).join(' ')}`)
  out.push(`pipeline: ${r.pipeline.kind} at ${r.pipeline.url}, decoder workers ${r.pipeline.workers ?? 'unknown'}, loader batch ${r.pipeline.loaderMaxRows} rows, freshness via ${r.pipeline.freshness ?? 'nothing (not measured)'}`)
  for (const s of r.scenarios) {
    out.push(`scenario ${s.name}: ${s.scenario.route} route, ${s.scenario.format}${s.scenario.gzip ? ' gzip' : ''}, ${s.eventsPerRequest} events/request, mix ${s.mix}, ${s.shape.attributes} attributes, ${s.shape.resources ?? 1} OTel resource(s)/request, ${s.templates} templates, ${fmtBytes(s.bytesPerRequest)}/request as sent`)
  }
  out.push('')
  out.push('Throughput and acknowledgement latency (from the intended send time: open loop)')
  out.push(textTable(
    ['step', 'asked ev/s', 'offered ev/s', 'accepted ev/s', 'MB/s', 'ack p50 ms', 'p90', 'p99', 'max', '429', '503', 'errors', 'verdict'],
    steps.map((s) => [
      stepName(s), fmtK(s.rate), fmtK(s.offered.eventsPerSec), fmtK(s.accepted.eventsPerSec), num(s.accepted.mbPerSec, 1),
      ms(s.ackMs.p50), ms(s.ackMs.p90), ms(s.ackMs.p99), ms(s.ackMs.max),
      String(s.requests.refused429), String(s.requests.refused503), String(errorsOf(s)), s.verdict.pass ? 'pass' : 'FAIL',
    ])))
  out.push('')
  out.push('Freshness (send to queryable, sampled), JetStream backlog, drain after the last send, harness lag behind its schedule, machine load')
  out.push(textTable(
    ['step', 'fresh p50 s', 'p90', 'p99', 'max', 'samples', 'lost', 'lookups', 'backlog max msgs', 'bytes', 'drain s', 'send lag p99 ms', 'load avg'],
    steps.map((s) => {
      const f = s.freshnessMs
      return [
        stepName(s), f === null ? '-' : sec(f.p50), f === null ? '-' : sec(f.p90), f === null ? '-' : sec(f.p99), f === null ? '-' : sec(f.max),
        f === null ? '-' : String(f.count), f === null ? '-' : String(f.lost), f === null ? '-' : String(f.lookups),
        s.backlog === null ? '-' : String(s.backlog.maxMessages), s.backlog === null ? '-' : fmtBytes(s.backlog.maxBytes),
        num(s.drainS, 1), ms(s.senderLagMs.p99), num(s.loadAverage),
      ]
    })))
  const failures = steps.filter((s) => !s.verdict.pass)
  for (const s of failures) out.push(`  ${stepName(s)} failed: ${s.verdict.reasons.join('; ')}`)
  out.push('')
  out.push('CPU seconds per million accepted events, and peak memory')
  out.push(textTable(
    ['step', 'accepted ev/s', ...CPU_COLUMNS.map((c) => CPU_SHORT[c] as string), 'pipeline total', 'lookout RSS peak', 'end', 'nats RSS peak'],
    steps.map((s) => [
      stepName(s), fmtK(s.accepted.eventsPerSec),
      ...CPU_COLUMNS.map((c) => num(s.cpuSecondsPerMillion[c] ?? Number.NaN)),
      num(pipelineCpu(s)), fmtBytes(s.peakRssBytes.lookout ?? Number.NaN), fmtBytes(endRss(s, 'lookout')), fmtBytes(s.peakRssBytes['nats-server'] ?? Number.NaN),
    ])))
  const withBaselines = r.scenarios.filter((s) => s.baselines !== null)
  if (withBaselines.length > 0) {
    out.push('')
    out.push('Raw baselines, same machine, same rows, measured in this run (each stage alone)')
    out.push(textTable(
      ['scenario', 'decode ev/s', 'MB/s', 'publish ev/s', 'MB/s', 'insert ev/s', 'MB/s', 'row B/event', 'disk B/event', 'compression'],
      withBaselines.map((s) => {
        const b = s.baselines as NonNullable<ScenarioResult['baselines']>
        return [s.name, fmtK(b.decode.eventsPerSec), num(b.decode.mbPerSec, 1), fmtK(b.publish.eventsPerSec), num(b.publish.mbPerSec, 1),
          fmtK(b.insert.eventsPerSec), num(b.insert.mbPerSec, 1), num(b.rowBytesPerEvent, 0), num(b.storage.bytesPerEvent, 1), `${num(b.storage.compression, 1)}x`]
      })))
    const b0 = withBaselines[0]?.baselines
    if (b0 !== undefined && b0 !== null) {
      out.push(`  decode: ${b0.decode.threads} worker threads; publish: ${b0.publish.messages} messages to ${b0.publish.where}; insert: ${b0.insert.inserts} inserts of ~${b0.insert.rowsPerInsert} rows into ${b0.insert.where}`)
    }
    out.push('')
    out.push('Pipeline as a ratio to the raw baselines (accepted events/s divided by each stage alone; 1.00 = as fast as that stage by itself)')
    out.push(textTable(
      ['step', 'accepted ev/s', '/ decode', '/ publish', '/ insert'],
      steps.map((s) => {
        const b = r.scenarios.find((x) => x.name === s.scenario)?.baselines
        return [stepName(s), fmtK(s.accepted.eventsPerSec), ratio(s.accepted.eventsPerSec, b?.decode.eventsPerSec), ratio(s.accepted.eventsPerSec, b?.publish.eventsPerSec), ratio(s.accepted.eventsPerSec, b?.insert.eventsPerSec)]
      })))
  }
  if (r.mode === 'find-max') {
    out.push('')
    for (const s of r.scenarios) {
      const best = s.steps.find((x) => x.step === s.bestStep)
      out.push(best === undefined
        ? `${s.name}: no step passed the thresholds`
        : `${s.name}: highest passing step #${best.step}: ${fmtK(best.accepted.eventsPerSec)} events/s accepted, ack p99 ${ms(best.ackMs.p99)} ms, freshness p99 ${best.freshnessMs === null ? '-' : sec(best.freshnessMs.p99) + ' s'}`)
    }
  }
  if (r.sizing !== null) {
    const z = r.sizing
    out.push('')
    out.push(`Sizing for ${fmtK(z.target)} events/s with ${z.retentionDays} d retention (from ${z.basedOn})`)
    out.push(textTable(['component', 'cores', 'processes', 'disk', 'memory'], z.lines.map((l) => [l.component, l.cores === 0 ? '(in main)' : num(l.cores, 1), String(l.processes), l.disk, l.memory])))
    for (const l of z.lines) out.push(`  ${l.component}: ${l.basis}`)
    out.push(`  total: ${num(z.totals.cores, 1)} cores, ${fmtBytes(z.totals.diskBytes)} disk, ${fmtBytes(z.totals.diskBytesPerDay)}/day into ClickHouse, ${num(z.totals.ingressMBps, 1)} MB/s ingress`)
    out.push('  assumptions:')
    for (const a of z.assumptions) out.push(`  - ${a}`)
  }
  const notes = [...r.pipeline.notes, ...r.notes, ...r.scenarios.flatMap((s) => s.notes.map((n) => `${s.name}: ${n}`))]
  if (notes.length > 0) {
    out.push('')
    for (const n of notes) out.push(`note: ${n}`)
  }
  return out.join('\n') + '\n'
}

export function latencyPlot(r: BenchResult): string {
  const series = r.scenarios.flatMap((s) => {
    const pts = [...s.steps].sort((a, b) => a.accepted.eventsPerSec - b.accepted.eventsPerSec)
    const p = (name: string, f: (x: StepResult) => number) => ({ name: `${s.name} ${name}`, points: pts.map((x) => [x.accepted.eventsPerSec, f(x)] as const) })
    return [p('ack p50', (x) => x.ackMs.p50), p('ack p90', (x) => x.ackMs.p90), p('ack p99', (x) => x.ackMs.p99)]
  })
  return lineChart({ title: 'Throughput vs acknowledgement latency', xLabel: 'accepted events/s', yLabel: 'ack latency, ms (log scale)', series, logY: true, xFromZero: true })
}

export function freshnessPlot(r: BenchResult): string {
  const series = r.scenarios.map((s) => ({
    name: `${s.name} freshness`,
    scatter: true,
    points: s.freshnessSamples.filter((x) => x.step > 0).map((x) => [x.sentMs / 1000, x.freshnessMs / 1000] as const),
  }))
  const markers = r.scenarios.flatMap((s) => s.steps.map((x) => ({ x: x.startS, label: `#${x.step} ${fmtK(x.rate)}/s` })))
  return lineChart({ title: 'End-to-end freshness over time (send to queryable)', xLabel: 'time since the run started, s', yLabel: 'freshness, s', series, markers })
}

export function memoryPlot(r: BenchResult): string {
  const steps = r.scenarios.flatMap((s) => s.steps)
  const names = [...new Set(steps.flatMap((s) => s.rssTimeline.flatMap((p) => Object.keys(p.bytes))))]
  const series = names.map((name) => ({
    name: `${name} RSS`,
    points: steps.flatMap((s) => s.rssTimeline.filter((p) => p.bytes[name] !== undefined).map((p) => [p.tS, (p.bytes[name] as number) / 1048576] as const)),
  }))
  const markers = steps.map((x) => ({ x: x.startS, label: `#${x.step} ${fmtK(x.rate)}/s` }))
  return lineChart({ title: 'Resident memory over time', xLabel: 'time since the run started, s', yLabel: 'RSS, MiB', series, markers })
}

export function cpuPlot(r: BenchResult): string {
  const steps = r.scenarios.flatMap((s) => s.steps)
  const keys = [...new Set(steps.flatMap((s) => Object.keys(s.cpuSecondsPerMillion)))]
  const order = (k: string) => {
    const i = (CPU_COLUMNS as readonly string[]).indexOf(k)
    return i === -1 ? 99 : i
  }
  keys.sort((a, b) => order(a) - order(b))
  return stackedBars({
    title: 'CPU split: seconds per million accepted events',
    yLabel: 'CPU seconds per million events',
    categories: steps.map((s) => `${stepName(s)} ${fmtK(s.accepted.eventsPerSec)}/s`),
    stacks: keys.map((k) => ({ name: k, values: steps.map((s) => s.cpuSecondsPerMillion[k] ?? 0) })),
  })
}

/** Writes the text report, the JSON and the four plots; returns their paths. */
export function writeOutputs(r: BenchResult, dir: string, stem: string): string[] {
  mkdirSync(dir, { recursive: true })
  const files = {
    text: join(dir, `${stem}.txt`),
    json: join(dir, `${stem}.json`),
    latency: join(dir, `${stem}-latency.svg`),
    freshness: join(dir, `${stem}-freshness.svg`),
    cpu: join(dir, `${stem}-cpu.svg`),
    memory: join(dir, `${stem}-memory.svg`),
  }
  r.files = Object.values(files)
  writeFileSync(files.text, formatReport(r))
  writeFileSync(files.latency, latencyPlot(r))
  writeFileSync(files.freshness, freshnessPlot(r))
  writeFileSync(files.cpu, cpuPlot(r))
  writeFileSync(files.memory, memoryPlot(r))
  writeFileSync(files.json, JSON.stringify(r, (_k, v: unknown) => (typeof v === 'number' && !Number.isFinite(v) ? null : v), 2) + '\n')
  return r.files
}
