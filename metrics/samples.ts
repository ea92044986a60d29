// A small in-process ring of samples of this process's own metrics, for the
// console's ingest page: rates and gauges over the last hour without a
// Prometheus server. Multi-process deployments read /metrics instead (each
// process only knows its own counters).
import type { Broker } from '../ingest/index.ts'
import type { LookoutMetrics } from './registry.ts'

export interface PipelineSample {
  /** ms since the epoch */
  at: number
  /** Events acknowledged (durably published) per second since the previous sample. */
  accepted_per_s: number
  /** Rows loaded into ClickHouse per second since the previous sample. */
  stored_per_s: number
  /** Messages held in the JetStream stream (not loaded yet); null when unreadable. */
  backlog_messages: number | null
  /** Messages delivered to loaders and not acknowledged yet. */
  ack_pending: number | null
  /** Messages in the dead-letter stream. */
  dead_letters: number | null
  /**
   * Loader lag: age (s) of the oldest message still in the stream, i.e. the oldest event
   * not loaded yet (the stream is a work queue: loaded messages leave it); 0 when empty,
   * null when unreadable or without a broker.
   */
  loader_lag_s: number | null
  /** Ingest requests refused per second since the previous sample, by reason. */
  refused_per_s: Record<string, number>
}

interface Totals {
  at: number
  accepted: number
  stored: number
  refused: Map<string, number>
}

type MetricJson = { name: string; values: { value: number; labels: Record<string, string | number> }[] }

export class PipelineSamples {
  readonly #metrics: LookoutMetrics
  readonly #broker: Broker | null
  readonly #intervalMs: number
  readonly #keep: number
  readonly #ring: PipelineSample[] = []
  #last: Totals | null = null
  #timer: NodeJS.Timeout | null = null
  #busy = false

  constructor(metrics: LookoutMetrics, o: { intervalMs?: number; keep?: number; broker?: Broker } = {}) {
    this.#metrics = metrics
    this.#broker = o.broker ?? null
    this.#intervalMs = o.intervalMs ?? 10_000
    // An hour at the default interval.
    this.#keep = o.keep ?? Math.ceil(3_600_000 / this.#intervalMs)
  }

  start(): void {
    if (this.#timer !== null) return
    void this.sample()
    this.#timer = setInterval(() => void this.sample(), this.#intervalMs)
    this.#timer.unref()
  }

  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer)
    this.#timer = null
  }

  get intervalMs(): number {
    return this.#intervalMs
  }

  samples(): readonly PipelineSample[] {
    return this.#ring
  }

  async #loaderLag(now: number): Promise<number | null> {
    const b = this.#broker
    if (b === null) return null
    try {
      const si = await b.jsm.streams.info(b.stream)
      if (si.state.messages === 0) return 0
      return Math.max(0, (now - Date.parse(si.state.first_ts)) / 1000)
    } catch {
      return null
    }
  }

  /** Takes one sample (the timer calls it; tests may too). */
  async sample(): Promise<void> {
    if (this.#busy) return
    this.#busy = true
    try {
      const json = (await this.#metrics.registry.getMetricsAsJSON()) as unknown as MetricJson[]
      const byName = new Map(json.map((m) => [m.name, m]))
      const sum = (name: string) => (byName.get(name)?.values ?? []).reduce((a, v) => a + v.value, 0)
      const gauge = (name: string) => {
        const v = byName.get(name)?.values[0]
        return v === undefined ? null : v.value
      }
      const refused = new Map<string, number>()
      for (const v of byName.get('lookout_ingest_requests_rejected_total')?.values ?? []) {
        const reason = String(v.labels.reason ?? 'unknown')
        refused.set(reason, (refused.get(reason) ?? 0) + v.value)
      }
      const now: Totals = { at: Date.now(), accepted: sum('lookout_ingest_events_accepted_total'), stored: sum('lookout_loader_rows_total'), refused }
      const lag = await this.#loaderLag(now.at)
      const prev = this.#last
      this.#last = now
      if (prev === null) return
      const secs = Math.max(0.001, (now.at - prev.at) / 1000)
      const refusedRates: Record<string, number> = {}
      for (const [reason, n] of refused) refusedRates[reason] = Math.max(0, n - (prev.refused.get(reason) ?? 0)) / secs
      this.#ring.push({
        at: now.at,
        accepted_per_s: Math.max(0, now.accepted - prev.accepted) / secs,
        stored_per_s: Math.max(0, now.stored - prev.stored) / secs,
        backlog_messages: gauge('lookout_jetstream_stream_messages'),
        ack_pending: gauge('lookout_jetstream_consumer_ack_pending'),
        dead_letters: gauge('lookout_jetstream_dead_letter_messages'),
        loader_lag_s: lag,
        refused_per_s: refusedRates,
      })
      if (this.#ring.length > this.#keep) this.#ring.splice(0, this.#ring.length - this.#keep)
    } catch {
      // A failed read leaves a gap in the chart; the next tick tries again.
    } finally {
      this.#busy = false
    }
  }
}
