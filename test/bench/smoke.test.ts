// A short run of the real harness against a real pipeline, so it cannot rot:
// every route, gzip on and off, freshness, backlog, CPU accounting, baselines,
// sizing and the output files; then the `lookout bench ingest` command.
import t from 'tap'
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { formatReport, parseBenchArgs, runIngestBench, writeOutputs, type BenchResult } from '../../bench/ingest/index.ts'
import { Progress } from '../../bench/ingest/progress.ts'

const out = mkdtempSync(join(tmpdir(), 'lookout-bench-smoke-'))
t.teardown(() => rmSync(out, { recursive: true, force: true }))
const LOOKOUT = fileURLToPath(new URL('../../deploy/lookout.ts', import.meta.url))

t.test('in-process: four scenarios at a fixed rate, baselines, sizing, files', async (t) => {
  const o = parseBenchArgs([
    '--pipeline', 'in-process', '--workers', '1',
    '--scenario', 'otlp-proto', '--scenario', 'otlp-json-gzip', '--scenario', 'json', '--scenario', 'legacy-gzip',
    '--records', '50', '--templates', '3', '--mix', 'mixed', '--resources', '2',
    '--rate', '1000', '--duration', '1s', '--warmup', '0', '--fresh-every', '50ms', '--drain-timeout', '60s',
    '--baseline-events', '300', '--target', '400k', '--retention', '7d', '--out', out, '--name', 'smoke', '--quiet',
  ], out)
  const lines: string[] = []
  const r: BenchResult = await runIngestBench(o, { progress: new Progress(false), log: (l) => lines.push(l), aborted: () => false })
  t.equal(r.pipeline.kind, 'in-process')
  t.equal(r.pipeline.freshness === 'clickhouse' || r.pipeline.freshness === 'query-route', true, 'freshness is measured')
  t.same(r.scenarios.map((s) => s.name), ['otlp-proto', 'otlp-json-gzip', 'json', 'legacy-gzip'])
  for (const s of r.scenarios) {
    t.equal(s.steps.length, 1, `${s.name}: one fixed-rate step`)
    const step = s.steps[0]
    if (step === undefined) continue
    // 1000 events/s in requests of 50 for 1 s: 20 requests. A loaded machine may see some refused
    // (503 when the event loop lags): every request is accounted for either way.
    const r = step.requests
    t.equal(r.due, 20, `${s.name}: requests on schedule`)
    t.equal(r.ok + r.refused429 + r.refused503 + r.networkErrors + r.timeouts + r.dropped + Object.values(r.otherStatus).reduce((a, b) => a + b, 0), 20, `${s.name}: every request has one outcome`)
    t.same(r.otherStatus, {}, `${s.name}: no request was malformed`)
    t.ok(r.ok >= 1, `${s.name}: acknowledged (${r.ok} of 20)`)
    t.equal(step.accepted.events, r.ok * 50, `${s.name}: events accepted`)
    t.equal(step.errorRate, (20 - r.ok) / 20, `${s.name}: error rate`)
    t.equal(step.ackMs.count, 20 - r.dropped)
    t.ok(step.ackMs.p50 > 0 && step.ackMs.p50 <= step.ackMs.p99 && step.ackMs.p99 <= step.ackMs.max, `${s.name}: ordered percentiles`)
    t.ok(step.freshnessMs !== null && step.freshnessMs.count >= 1, `${s.name}: freshness samples`)
    t.equal(step.freshnessMs?.lost, 0, `${s.name}: every marker became queryable`)
    t.ok(step.backlog !== null, `${s.name}: backlog read`)
    t.ok(step.drainS < 60, `${s.name}: drained`)
    t.ok(Object.keys(step.cpuSecondsPerMillion).includes('node main thread'), `${s.name}: CPU of the pipeline process`)
    t.ok(Object.keys(step.cpuSecondsPerMillion).includes('nats-server'), `${s.name}: CPU of nats-server`)
    t.ok((step.peakRssBytes.lookout ?? 0) > 0 && (step.peakRssBytes['nats-server'] ?? 0) > 0, `${s.name}: peak memory`)
    // A point at the start and one at the end of the drain at least, each at most the peak.
    t.ok(step.rssTimeline.length >= 2, `${s.name}: memory timeline`)
    t.ok(step.rssTimeline.every((p) => (p.bytes.lookout ?? 0) > 0 && (p.bytes.lookout ?? 0) <= (step.peakRssBytes.lookout ?? 0)), `${s.name}: timeline within the peak`)
    t.ok(step.rssTimeline.every((p, i) => i === 0 || p.tS >= (step.rssTimeline[i - 1]?.tS ?? 0)), `${s.name}: timeline in time order`)
    t.ok(s.freshnessSamples.length >= 1)
    const b = s.baselines
    t.ok(b !== null, `${s.name}: baselines`)
    if (b === null) continue
    t.ok(b.decode.eventsPerSec > 0 && b.publish.eventsPerSec > 0 && b.insert.eventsPerSec > 0, `${s.name}: baseline rates`)
    t.ok(b.decode.events >= 300, `${s.name}: baseline size`)
    t.ok(b.storage.bytesPerEvent > 0 && b.storage.compression > 1, `${s.name}: storage per event`)
    t.ok(b.rowBytesPerEvent > 100, `${s.name}: row bytes`)
  }
  t.ok(r.sizing !== null, 'a sizing report')
  t.equal(r.sizing?.target, 400_000)
  t.equal(r.sizing?.retentionDays, 7)
  t.ok((r.sizing?.totals.cores ?? 0) > 0 && (r.sizing?.totals.diskBytes ?? 0) > 0)
  t.ok(lines.some((l) => l.includes('baselines: decode')), 'progress log lines')

  const files = writeOutputs(r, out, 'smoke')
  t.equal(files.length, 6)
  for (const f of files) t.ok(existsSync(f), f)
  const json = JSON.parse(readFileSync(join(out, 'smoke.json'), 'utf8')) as BenchResult
  t.equal(json.scenarios.length, 4)
  t.equal(json.options.token, undefined, 'no token in the file')
  for (const plot of ['latency', 'freshness', 'cpu', 'memory']) {
    const svg = readFileSync(join(out, `smoke-${plot}.svg`), 'utf8')
    t.ok(svg.startsWith('<svg ') && svg.trimEnd().endsWith('</svg>'), `${plot} plot`)
    t.notMatch(svg, /NaN/, `${plot}: no NaN coordinates`)
  }
  const text = formatReport(r)
  t.match(text, /Throughput and acknowledgement latency/)
  t.match(text, /Raw baselines/)
  t.match(text, /Sizing for 400\.0k events\/s with 7 d retention/)
})

t.test('`lookout bench ingest` runs a child pipeline and writes its files', async (t) => {
  const res = spawnSync(process.execPath, [LOOKOUT, 'bench', 'ingest',
    '--records', '50', '--templates', '2', '--rate', '500', '--duration', '1s', '--warmup', '0', '--workers', '1',
    '--baseline-events', '100', '--out', out, '--name', 'cli', '--quiet'], { encoding: 'utf8', timeout: 120_000 })
  t.equal(res.status, 0, res.stderr)
  t.match(res.stdout, /Throughput and acknowledgement latency/)
  t.match(res.stdout, /written: .*cli\.json/)
  const json = JSON.parse(readFileSync(join(out, 'cli.json'), 'utf8')) as BenchResult
  t.equal(json.pipeline.kind, 'child')
  t.ok(json.pipeline.processes.some((p) => p.startsWith('nats-server')), 'the managed nats-server is measured')
  const step = json.scenarios[0]?.steps[0]
  t.equal(step?.requests.due, 10)
  t.ok((step?.requests.ok ?? 0) >= 1)
  t.ok((step?.cpuSeconds['harness (load generator)'] ?? -1) >= 0, 'the harness is measured apart')
  t.ok(step?.cpuSeconds['node main thread'] !== undefined, 'the server process is measured')
})

t.test('usage errors exit 2', async (t) => {
  const bad = spawnSync(process.execPath, [LOOKOUT, 'bench', 'ingest', '--rate', 'fast'], { encoding: 'utf8' })
  t.equal(bad.status, 2)
  t.match(bad.stderr, /--rate must be a rate/)
  const none = spawnSync(process.execPath, [LOOKOUT, 'bench'], { encoding: 'utf8' })
  t.equal(none.status, 2)
  const help = spawnSync(process.execPath, [LOOKOUT, 'bench', 'ingest', '--help'], { encoding: 'utf8' })
  t.equal(help.status, 0)
  t.match(help.stdout, /--find-max/)
})
