// Command-line options of `lookout bench ingest`, validated once with messages
// that name the option.
import { parseArgs } from 'node:util'
import { MIXES, MESSAGE_KINDS, type MessageKind, type MessageMix } from '../lib/traffic.ts'

export const SCENARIOS = {
  'otlp-proto': { route: 'otlp', format: 'protobuf', gzip: false },
  'otlp-proto-gzip': { route: 'otlp', format: 'protobuf', gzip: true },
  'otlp-json': { route: 'otlp', format: 'json', gzip: false },
  'otlp-json-gzip': { route: 'otlp', format: 'json', gzip: true },
  json: { route: 'json', format: 'json', gzip: false },
  'json-gzip': { route: 'json', format: 'json', gzip: true },
  legacy: { route: 'legacy', format: 'json', gzip: false },
  'legacy-gzip': { route: 'legacy', format: 'json', gzip: true },
} as const
export type ScenarioName = keyof typeof SCENARIOS
export type Scenario = (typeof SCENARIOS)[ScenarioName]

export const PIPELINES = { child: 'child', inProcess: 'in-process', running: 'running', url: 'url' } as const
export type PipelineKind = (typeof PIPELINES)[keyof typeof PIPELINES]

/** Largest events per request the routes accept. */
export const ROUTE_MAX_RECORDS = { otlp: 100_000, json: 1000, legacy: 100 } as const

export interface BenchOptions {
  pipeline: PipelineKind
  url?: string
  token?: string
  workspace?: string
  resourceIds?: string[]
  natsUrl?: string
  serverPid?: number
  natsPid?: number
  /** Decoder threads of a pipeline the harness starts; undefined: the pipeline's default. */
  workers?: number
  scenarios: ScenarioName[]
  records: number
  mix: MessageMix
  mixName: string
  messageLength: number
  attributes: number
  resources: number
  otelResources: number
  templates?: number
  findMax: boolean
  /** Events per second: the fixed rate, or the first step of find-max. */
  rate: number
  durationMs: number
  stepMs: number
  factor: number
  maxSteps: number
  refine: number
  maxP99Ms: number
  maxErrorRate: number
  maxFreshnessMs: number
  connections: number
  warmupMs: number
  freshEveryMs: number
  timeoutMs: number
  drainTimeoutMs: number
  baselineEvents: number
  target?: number
  retentionDays: number
  headroom: number
  replicas: number
  bufferHours: number
  out: string
  name?: string
  progress: boolean
}

export class BenchUsageError extends Error {
  // The launcher prints usage errors and exits 2 on this code.
  readonly code = 'LOOKOUT_USAGE'
}

export const BENCH_USAGE = `lookout bench ingest [options]   measure ingest: events/s, latency, freshness, CPU; size a deployment

Pipeline (default: start the embedded default as a child process on a temporary data directory)
  --pipeline child|in-process|running   running: the server holding LOOKOUT_DATA_DIR (asked over its admin socket)
  --url URL --token T --workspace WS [--resource ID,...]   any running pipeline (resources are registered if not given)
  --nats-url URL                   with --url: JetStream backlog and the raw publish baseline
  --server-pid PID --nats-pid PID  with --url on this machine: processes to measure CPU and RSS of
  --workers N                      decoder threads of a pipeline the harness starts
Traffic
  --scenario NAME      repeatable: ${Object.keys(SCENARIOS).join(', ')} (default otlp-proto)
  --records N          events per request (default 1000; legacy at most 100)
  --mix M              ${Object.keys(MIXES).join(', ')}, or weights like access=0.7,app=0.25,stack=0.05 (default app)
  --message-length N   characters of an app message (default 300)
  --attributes N       attributes per event (default 8)
  --resources N        Lookout resources the traffic is spread over (default 1)
  --otel-resources N   OTel resources per request (default 1)
  --templates N        distinct request templates (default: as many as fit in 64 MiB, 8 to 128)
Load
  --rate R             events/s (50k, 1.5M); fixed rate, or find-max's first step (default 20k)
  --duration D         fixed-rate length (default 30s)
  --find-max           step the rate up until ack p99, error rate or freshness breaks a threshold
  --step D             find-max step length (default 30s)    --factor F   rate per step (default 1.5)
  --max-steps N        (default 12)                          --refine N   bisections after the break (default 2)
  --max-p99 D          ack latency p99 threshold (default 1s)
  --max-error-rate X   refused or failed requests threshold (default 0.01)
  --max-freshness D    freshness p99 threshold (default 30s)
  --connections N      HTTP connections (default 64)         --timeout D  per request (default 30s)
  --warmup D           unrecorded warm-up at the first rate (default 3s)
  --fresh-every D      freshness sample interval (default 1s; 0: off) --drain-timeout D (default 120s)
Baselines
  --baseline-events N  events through each raw baseline (default 200k; 0 skips them)
Sizing
  --target R           events/s to size for (default: the highest passing rate)
  --retention D        (default 7d)     --headroom X  CPU utilisation to plan for (default 0.6)
  --replicas N         copies JetStream and ClickHouse keep (default 1)
  --buffer D           loader outage the JetStream buffer must absorb (default 1h)
Output
  --out DIR            (default bench/results)   --name NAME  file name stem (default ingest-<time>)
  --quiet              no progress bar`

const UNITS_MS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 }

/** '500ms', '30s', '2m', '1h', '7d'; a bare number is seconds. */
export function parseDuration(name: string, raw: string): number {
  const m = /^(\d+(?:\.\d+)?)(ms|s|m|h|d)?$/.exec(raw.trim())
  if (m === null) throw new BenchUsageError(`--${name} must be a duration like 500ms, 30s, 2m, 1h or 7d, got ${JSON.stringify(raw)}`)
  return Number(m[1]) * (UNITS_MS[m[2] ?? 's'] as number)
}

/** '50000', '50k', '1.5M'. */
export function parseRate(name: string, raw: string): number {
  const m = /^(\d+(?:\.\d+)?)([kKmM])?$/.exec(raw.trim())
  if (m === null) throw new BenchUsageError(`--${name} must be a rate like 50000, 50k or 1.5M, got ${JSON.stringify(raw)}`)
  const v = Number(m[1]) * (m[2] === undefined ? 1 : m[2].toLowerCase() === 'k' ? 1e3 : 1e6)
  if (!(v > 0)) throw new BenchUsageError(`--${name} must be above 0`)
  return v
}

function int(name: string, raw: string | undefined, dflt: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  if (raw === undefined) return dflt
  const v = Number(raw)
  if (!Number.isInteger(v) || v < min || v > max) throw new BenchUsageError(`--${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  return v
}

/** A count that may be 0: '0', '200000', '200k', '1M'. */
export function parseCount(name: string, raw: string | undefined, dflt: number): number {
  if (raw === undefined) return dflt
  const m = /^(\d+(?:\.\d+)?)([kKmM])?$/.exec(raw.trim())
  const v = m === null ? Number.NaN : Number(m[1]) * (m[2] === undefined ? 1 : m[2].toLowerCase() === 'k' ? 1e3 : 1e6)
  if (!Number.isSafeInteger(v)) throw new BenchUsageError(`--${name} must be a count like 0, 200000 or 200k, got ${JSON.stringify(raw)}`)
  return v
}

function num(name: string, raw: string | undefined, dflt: number, min: number, max: number): number {
  if (raw === undefined) return dflt
  const v = Number(raw)
  if (!Number.isFinite(v) || v < min || v > max) throw new BenchUsageError(`--${name} must be a number from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  return v
}

export function parseMix(raw: string): MessageMix {
  if (raw in MIXES) return { ...MIXES[raw as keyof typeof MIXES] }
  const mix: MessageMix = {}
  for (const part of raw.split(',')) {
    const [k, w] = part.split('=')
    if (k === undefined || !(k in MESSAGE_KINDS) || w === undefined || !(Number(w) >= 0)) {
      throw new BenchUsageError(`--mix must be ${Object.keys(MIXES).join(', ')} or weights like access=0.7,stack=0.3, got ${JSON.stringify(raw)}`)
    }
    mix[k as MessageKind] = Number(w)
  }
  if (!Object.values(mix).some((w) => w > 0)) throw new BenchUsageError('--mix needs a weight above 0')
  return mix
}

export function parseBenchArgs(argv: readonly string[], defaultOut: string): BenchOptions {
  let parsed
  try {
    parsed = parseArgs({
      args: [...argv],
      allowPositionals: false,
      options: {
        pipeline: { type: 'string' }, url: { type: 'string' }, token: { type: 'string' }, workspace: { type: 'string' },
        resource: { type: 'string' }, 'nats-url': { type: 'string' }, 'server-pid': { type: 'string' }, 'nats-pid': { type: 'string' },
        workers: { type: 'string' }, scenario: { type: 'string', multiple: true }, records: { type: 'string' }, mix: { type: 'string' },
        'message-length': { type: 'string' }, attributes: { type: 'string' }, resources: { type: 'string' },
        'otel-resources': { type: 'string' }, templates: { type: 'string' }, rate: { type: 'string' }, duration: { type: 'string' },
        'find-max': { type: 'boolean' }, step: { type: 'string' }, factor: { type: 'string' }, 'max-steps': { type: 'string' },
        refine: { type: 'string' }, 'max-p99': { type: 'string' }, 'max-error-rate': { type: 'string' }, 'max-freshness': { type: 'string' },
        connections: { type: 'string' }, warmup: { type: 'string' }, 'fresh-every': { type: 'string' }, timeout: { type: 'string' },
        'drain-timeout': { type: 'string' }, 'baseline-events': { type: 'string' }, target: { type: 'string' },
        retention: { type: 'string' }, headroom: { type: 'string' }, replicas: { type: 'string' }, buffer: { type: 'string' },
        out: { type: 'string' }, name: { type: 'string' }, quiet: { type: 'boolean' },
      },
    })
  } catch (err) {
    throw new BenchUsageError(`${(err as Error).message}\n\n${BENCH_USAGE}`)
  }
  const v = parsed.values
  const scenarios = (v.scenario ?? ['otlp-proto']) as string[]
  for (const s of scenarios) if (!(s in SCENARIOS)) throw new BenchUsageError(`--scenario must be one of ${Object.keys(SCENARIOS).join(', ')}, got ${JSON.stringify(s)}`)

  let pipeline: PipelineKind = PIPELINES.child
  if (v.url !== undefined) {
    if (v.pipeline !== undefined && v.pipeline !== PIPELINES.url) throw new BenchUsageError('--url and --pipeline exclude each other')
    if (v.token === undefined || v.workspace === undefined) throw new BenchUsageError('--url needs --token and --workspace')
    pipeline = PIPELINES.url
  } else if (v.pipeline !== undefined) {
    if (v.pipeline === PIPELINES.url || !(Object.values(PIPELINES) as string[]).includes(v.pipeline)) {
      throw new BenchUsageError(`--pipeline must be child, in-process or running (or give --url), got ${JSON.stringify(v.pipeline)}`)
    }
    pipeline = v.pipeline as PipelineKind
  }
  for (const k of ['token', 'workspace', 'resource', 'nats-url', 'server-pid', 'nats-pid'] as const) {
    if (v[k] !== undefined && pipeline !== PIPELINES.url) throw new BenchUsageError(`--${k} goes with --url`)
  }
  if (v.workers !== undefined && (pipeline === PIPELINES.url || pipeline === PIPELINES.running)) {
    throw new BenchUsageError('--workers applies to a pipeline the harness starts (child or in-process)')
  }

  const legacy = scenarios.some((s) => SCENARIOS[s as ScenarioName].route === 'legacy')
  const json = scenarios.some((s) => SCENARIOS[s as ScenarioName].route === 'json')
  const maxRecords = legacy ? ROUTE_MAX_RECORDS.legacy : json ? ROUTE_MAX_RECORDS.json : ROUTE_MAX_RECORDS.otlp
  const records = int('records', v.records, Math.min(1000, maxRecords), 1, maxRecords)
  const resourceIds = v.resource?.split(',').map((s) => s.trim()).filter((s) => s !== '')

  return {
    pipeline,
    url: v.url?.replace(/\/+$/, ''),
    token: v.token,
    workspace: v.workspace,
    resourceIds,
    natsUrl: v['nats-url'],
    serverPid: v['server-pid'] === undefined ? undefined : int('server-pid', v['server-pid'], 0, 1),
    natsPid: v['nats-pid'] === undefined ? undefined : int('nats-pid', v['nats-pid'], 0, 1),
    workers: v.workers === undefined ? undefined : int('workers', v.workers, 1, 1, 256),
    scenarios: scenarios as ScenarioName[],
    records,
    mix: parseMix(v.mix ?? 'app'),
    mixName: v.mix ?? 'app',
    messageLength: int('message-length', v['message-length'], 300, 1, 60_000),
    attributes: int('attributes', v.attributes, 8, 0, 500),
    resources: resourceIds?.length ?? int('resources', v.resources, 1, 1, 10_000),
    otelResources: int('otel-resources', v['otel-resources'], 1, 1, records),
    templates: v.templates === undefined ? undefined : int('templates', v.templates, 8, 1, 100_000),
    findMax: v['find-max'] === true,
    rate: v.rate === undefined ? 20_000 : parseRate('rate', v.rate),
    durationMs: v.duration === undefined ? 30_000 : parseDuration('duration', v.duration),
    stepMs: v.step === undefined ? 30_000 : parseDuration('step', v.step),
    factor: num('factor', v.factor, 1.5, 1.01, 100),
    maxSteps: int('max-steps', v['max-steps'], 12, 1, 1000),
    refine: int('refine', v.refine, 2, 0, 20),
    maxP99Ms: v['max-p99'] === undefined ? 1000 : parseDuration('max-p99', v['max-p99']),
    maxErrorRate: num('max-error-rate', v['max-error-rate'], 0.01, 0, 1),
    maxFreshnessMs: v['max-freshness'] === undefined ? 30_000 : parseDuration('max-freshness', v['max-freshness']),
    connections: int('connections', v.connections, 64, 1, 10_000),
    warmupMs: v.warmup === undefined ? 3000 : parseDuration('warmup', v.warmup),
    freshEveryMs: v['fresh-every'] === undefined ? 1000 : parseDuration('fresh-every', v['fresh-every']),
    timeoutMs: v.timeout === undefined ? 30_000 : Math.max(100, parseDuration('timeout', v.timeout)),
    drainTimeoutMs: v['drain-timeout'] === undefined ? 120_000 : parseDuration('drain-timeout', v['drain-timeout']),
    baselineEvents: parseCount('baseline-events', v['baseline-events'], 200_000),
    target: v.target === undefined ? undefined : parseRate('target', v.target),
    retentionDays: v.retention === undefined ? 7 : parseDuration('retention', v.retention) / 86_400_000,
    headroom: num('headroom', v.headroom, 0.6, 0.05, 1),
    replicas: int('replicas', v.replicas, 1, 1, 9),
    bufferHours: v.buffer === undefined ? 1 : parseDuration('buffer', v.buffer) / 3_600_000,
    out: v.out ?? defaultOut,
    name: v.name,
    progress: v.quiet !== true,
  }
}
