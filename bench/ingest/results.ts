// The shape of a run's results: what the JSON file holds and the report reads.
import type { Summary } from '../lib/stats.ts'
import type { Baselines } from './baselines.ts'
import type { FreshnessSample } from './freshness.ts'
import type { Verdict } from './schedule.ts'
import type { SizingReport } from './sizing.ts'
import type { Scenario, ScenarioName } from './options.ts'
import type { TrafficShape } from '../lib/traffic.ts'

export interface RequestCounts {
  due: number
  ok: number
  refused429: number
  refused503: number
  /** Other HTTP statuses by code. */
  otherStatus: Record<string, number>
  networkErrors: number
  timeouts: number
  /** Not sent: the harness's in-flight cap was reached. */
  dropped: number
}

export interface RssPoint {
  /** Seconds since the run's clock origin. */
  tS: number
  bytes: Record<string, number>
}

export interface StepResult {
  scenario: ScenarioName
  /** 1-based within the scenario. */
  step: number
  /** Events per second asked for. */
  rate: number
  /** When the step started, seconds since the run's clock origin (as freshness samples). */
  startS: number
  durationS: number
  requests: RequestCounts
  offered: { eventsPerSec: number; mbPerSec: number }
  accepted: { events: number; eventsPerSec: number; mbPerSec: number }
  errorRate: number
  ackMs: Summary
  senderLagMs: Summary
  /** `lookups`: searches the harness made to find its markers (their cost is in the pipeline's CPU). */
  freshnessMs: (Summary & { lost: number; lookups: number }) | null
  backlog: { maxMessages: number; maxBytes: number } | null
  /** From the last send until the backlog was empty and every marker seen. */
  drainS: number
  /** CPU seconds from the step's start to the end of its drain, by component. */
  cpuSeconds: Record<string, number>
  cpuSecondsPerMillion: Record<string, number>
  peakRssBytes: Record<string, number>
  /** Resident memory by process every 5 s of the step and at the end of its drain. */
  rssTimeline: RssPoint[]
  /** The machine's 1-minute load average at the end of the step (other work on it shows here). */
  loadAverage: number
  verdict: Verdict
}

export interface ScenarioResult {
  name: ScenarioName
  scenario: Scenario
  shape: TrafficShape
  mix: string
  eventsPerRequest: number
  templates: number
  /** Mean request body as sent. */
  bytesPerRequest: number
  steps: StepResult[]
  baselines: Baselines | null
  /** The step with the highest accepted rate among those that passed. */
  bestStep: number | null
  freshnessSamples: FreshnessSample[]
  notes: string[]
}

export interface BenchResult {
  version: 1
  startedAt: string
  finishedAt: string
  machine: { cpuModel: string; cores: number; memoryBytes: number; node: string; kernel: string; loadAverageAtStart: number[] }
  pipeline: { kind: string; url: string; workers: number | null; loaderMaxRows: number; freshness: string | null; processes: string[]; notes: string[] }
  options: Record<string, unknown>
  mode: 'fixed' | 'find-max'
  scenarios: ScenarioResult[]
  sizing: (SizingReport & { basedOn: string }) | null
  notes: string[]
  files: string[]
}
