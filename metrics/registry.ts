// The process's metrics: one prom-client registry per process (never the global
// one, so several apps in one process do not collide). Hot paths call small
// methods once per request, broker message or insert; state that already lives
// in a component (pool queue, loader stats, stream backlog, monitor stats) is
// read when Prometheus scrapes, through collect() callbacks.
import { Counter, Gauge, Histogram, Registry, collectDefaultMetrics } from 'prom-client'
import { INGEST_ROUTES } from '../ingest/index.ts'
import type { Broker, BrokerObserver, DecoderPool, IngestObserver, IngestRoute, IngestService, Loader, LoaderObserver, LogStore, PublishResult } from '../ingest/index.ts'
import type { Monitor } from '../monitor/index.ts'
import type { DeliveryObserver } from '../alerting/index.ts'
import type { Database } from '../core/index.ts'
import type { ReadinessReport } from '../core/index.ts'
import { METRICS, type MetricName } from './names.ts'
import { SeriesCounter, SeriesHistogram } from './series.ts'

/** What the monitor stage reports per probe result (it must not import the api stage: structural). */
export interface MonitorObserver {
  checkRun(kind: string, result: string): void
}

/** The ingest routes' labels: the ingest stage's route kinds (a route declares its kind next to its handler). */
const INGEST_ROUTE_LABELS = Object.values(INGEST_ROUTES)

/** How long one scrape waits for a dependency's state before reporting it down. */
const SCRAPE_TIMEOUT_MS = 1_500

function timed<T>(p: Promise<T>, ms = SCRAPE_TIMEOUT_MS): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  return Promise.race([
    p,
    new Promise<T>((_, reject) => {
      timer = setTimeout(() => reject(new Error('timed out')), ms)
      timer.unref()
    }),
  ]).finally(() => clearTimeout(timer))
}

/** One async read shared by every gauge collected in the same scrape. */
function perScrape<T>(read: () => Promise<T>, ttlMs = 500): () => Promise<T> {
  let at = 0
  let value: Promise<T> | null = null
  return () => {
    const now = performance.now()
    if (value === null || now - at > ttlMs) {
      at = now
      value = read()
    }
    return value
  }
}

export class LookoutMetrics implements MonitorObserver, DeliveryObserver, BrokerObserver, IngestObserver, LoaderObserver {
  readonly registry = new Registry()
  readonly #watched = new Set<string>()

  // Written on the request path: series kept as plain numbers (series.ts).
  readonly #httpRequests = this.#series('lookout_http_requests_total')
  readonly #httpDuration = this.#seriesHistogram('lookout_http_request_duration_seconds')
  readonly #httpErrors = this.#series('lookout_http_errors_total')
  // Created by the first readiness report: a process without the api role has no gate.
  #ready: Gauge | null = null
  #dependencyReady: Gauge | null = null
  readonly #ingestRequests = this.#series('lookout_ingest_requests_accepted_total')
  readonly #ingestEvents = this.#series('lookout_ingest_events_accepted_total')
  readonly #ingestBytes = this.#series('lookout_ingest_bytes_accepted_total')
  readonly #ingestEventsRejected = this.#series('lookout_ingest_events_rejected_total')
  readonly #ingestRejected = this.#series('lookout_ingest_requests_rejected_total')
  readonly #ingestBytesRejected = this.#series('lookout_ingest_bytes_rejected_total')
  readonly #ingestDuplicates = this.#series('lookout_ingest_duplicate_messages_total')
  readonly #publishDuration = this.#seriesHistogram('lookout_jetstream_publish_duration_seconds')
  readonly #publishes = this.#series('lookout_jetstream_publishes_total')
  readonly #publishBytes = this.#series('lookout_jetstream_publish_bytes_total')
  readonly #monitorChecks = this.#series('lookout_monitor_checks_total')
  readonly #deliveries = this.#series('lookout_deliveries_total')
  readonly #deliveryDuration = this.#seriesHistogram('lookout_delivery_duration_seconds')
  #insertDuration: SeriesHistogram | null = null
  #batchBytes: SeriesHistogram | null = null

  constructor(options: { processMetrics?: boolean } = {}) {
    // Memory, CPU, GC and event-loop lag (nodejs_eventloop_lag_*) under their usual names.
    if (options.processMetrics !== false) collectDefaultMetrics({ register: this.registry })
    for (const r of INGEST_ROUTE_LABELS) {
      // Present from the start, so rate() sees the first request.
      this.#ingestRequests.inc([r], 0)
      this.#ingestEvents.inc([r], 0)
      this.#ingestBytes.inc([r], 0)
    }
    this.#publishBytes.inc([], 0)
  }

  get contentType(): string {
    return this.registry.contentType
  }

  /** The exposition text (a scrape). */
  text(): Promise<string> {
    return this.registry.metrics()
  }

  // ---- calls from the request and message paths ----

  httpRequest(method: string, route: string, status: number, seconds: number): void {
    this.#httpRequests.inc([method, route, status])
    this.#httpDuration.observe([method, route], seconds)
  }

  httpError(method: string, route: string, code: string): void {
    this.#httpErrors.inc([method, route, code])
  }

  ingestAccepted(route: IngestRoute, events: number, bytes: number, rejectedEvents: number, duplicateMessages: number): void {
    this.#ingestRequests.inc([route])
    this.#ingestEvents.inc([route], events)
    this.#ingestBytes.inc([route], bytes)
    if (rejectedEvents > 0) this.#ingestEventsRejected.inc([route, 'invalid_record'], rejectedEvents)
    if (duplicateMessages > 0) this.#ingestDuplicates.inc([route], duplicateMessages)
  }

  ingestRejected(route: IngestRoute, reason: string, bytes: number): void {
    this.#ingestRejected.inc([route, reason])
    if (bytes > 0) this.#ingestBytesRejected.inc([route, reason], bytes)
  }

  published(result: PublishResult, seconds: number, bytes: number): void {
    this.#publishes.inc([result])
    if (result === 'stored' || result === 'duplicate') {
      this.#publishDuration.observe([], seconds)
      this.#publishBytes.inc([], bytes)
    }
  }

  loaderInsert(ok: boolean, seconds: number, bytes: number): void {
    this.#insertDuration ??= this.#seriesHistogram('lookout_loader_insert_duration_seconds')
    this.#batchBytes ??= this.#seriesHistogram('lookout_loader_batch_bytes')
    this.#insertDuration.observe([ok ? 'ok' : 'error'], seconds)
    if (ok) this.#batchBytes.observe([], bytes)
  }

  readiness(report: ReadinessReport, opened: boolean): void {
    this.#ready ??= this.#gauge('lookout_ready')
    this.#dependencyReady ??= this.#gauge('lookout_dependency_ready')
    this.#ready.set(opened ? 1 : 0)
    for (const [dependency, state] of Object.entries(report.dependencies)) this.#dependencyReady.set({ dependency }, state === 'ready' ? 1 : 0)
  }

  /** MonitorObserver: one probe result. */
  checkRun(kind: string, result: string): void {
    this.#monitorChecks.inc([kind, result])
  }

  /** DeliveryObserver: one outbound delivery attempt. */
  delivery(channel: string, outcome: string, seconds?: number): void {
    this.#deliveries.inc([channel, outcome])
    if (seconds !== undefined) this.#deliveryDuration.observe([channel], seconds)
  }

  // ---- state read at scrape time ----

  watchPool(pool: DecoderPool): void {
    if (!this.#watch('pool')) return
    this.#gauge('lookout_worker_pool_threads', function () { this.set(pool.threads) })
    this.#gauge('lookout_worker_pool_max_threads', function () { this.set(pool.maxThreads) })
    this.#gauge('lookout_worker_pool_queue_size', function () { this.set(pool.queueSize) })
    this.#gauge('lookout_worker_pool_utilization', function () { this.set(pool.utilization) })
  }

  watchIngest(ingest: IngestService): void {
    if (!this.#watch('ingest')) return
    this.#gauge('lookout_ingest_inflight_bytes', function () { this.set(ingest.inFlightBytes) })
    this.#gauge('lookout_ingest_inflight_limit_bytes', function () { this.set(ingest.maxInFlightBytes) })
  }

  watchBroker(broker: Broker): void {
    if (!this.#watch('broker')) return
    const read = perScrape(async () => {
      try {
        const [si, ci, dlq] = await timed(Promise.all([
          broker.jsm.streams.info(broker.stream),
          broker.jsm.consumers.info(broker.stream, broker.consumerName),
          broker.jsm.streams.info(broker.stream + '_DLQ'),
        ]))
        return { up: 1, messages: si.state.messages, bytes: si.state.bytes, pending: ci.num_pending, ackPending: ci.num_ack_pending, redelivered: ci.num_redelivered, dlq: dlq.state.messages }
      } catch {
        return null
      }
    })
    type Snapshot = NonNullable<Awaited<ReturnType<typeof read>>>
    const gauge = (name: MetricName, pick: (s: Snapshot) => number) => this.#gauge(name, async function () {
      const s = await read()
      if (s === null) this.reset()
      else this.set(pick(s))
    })
    this.#gauge('lookout_jetstream_up', async function () { this.set((await read()) === null ? 0 : 1) })
    gauge('lookout_jetstream_stream_messages', (s) => s.messages)
    gauge('lookout_jetstream_stream_bytes', (s) => s.bytes)
    gauge('lookout_jetstream_consumer_pending', (s) => s.pending)
    gauge('lookout_jetstream_consumer_ack_pending', (s) => s.ackPending)
    gauge('lookout_jetstream_consumer_redelivered', (s) => s.redelivered)
    gauge('lookout_jetstream_dead_letter_messages', (s) => s.dlq)
  }

  watchLoader(loader: Loader): void {
    if (!this.#watch('loader')) return
    const s = loader.stats
    this.#counterFrom('lookout_loader_batches_total', () => s.batches)
    this.#counterFrom('lookout_loader_rows_total', () => s.rows)
    this.#counterFrom('lookout_loader_messages_total', () => s.messages)
    this.#counterFrom('lookout_loader_insert_errors_total', () => s.insertErrors)
    this.#counterFrom('lookout_loader_fetch_errors_total', () => s.fetchErrors)
    this.#counterFrom('lookout_loader_dead_lettered_total', () => s.deadLettered)
    this.#counterFrom('lookout_loader_duplicates_skipped_total', () => s.duplicatesSkipped)
    this.#gauge('lookout_loader_last_batch_rows', function () { this.set(s.lastBatchRows) })
    this.#insertDuration ??= this.#seriesHistogram('lookout_loader_insert_duration_seconds')
    this.#batchBytes ??= this.#seriesHistogram('lookout_loader_batch_bytes')
  }

  watchLogStore(store: LogStore): void {
    if (!this.#watch('clickhouse')) return
    this.#pingGauges('lookout_clickhouse_up', 'lookout_clickhouse_ping_seconds', () => store.ping())
  }

  watchDatabase(db: Database): void {
    if (!this.#watch('postgres')) return
    this.#pingGauges('lookout_postgres_up', 'lookout_postgres_ping_seconds', async () => (await db.query('SELECT 1 AS ok')).rows.length === 1)
    const stats = db.poolStats
    if (stats !== undefined) {
      this.#gauge('lookout_postgres_pool_connections', function () {
        const p = stats.call(db)
        this.set({ state: 'total' }, p.total)
        this.set({ state: 'idle' }, p.idle)
        this.set({ state: 'waiting' }, p.waiting)
      })
    }
  }

  watchMonitor(monitor: Monitor): void {
    if (!this.#watch('monitor')) return
    const stats = perScrape(async () => monitor.stats())
    this.#gauge('lookout_monitor_checks_owned', async function () { this.set((await stats()).owned) })
    this.#counterFrom('lookout_monitor_probes_total', async () => (await stats()).probes)
    this.#counterFrom('lookout_monitor_results_written_total', async () => (await stats()).results)
    this.#counterFrom('lookout_monitor_results_rejected_total', async () => (await stats()).rejected)
    this.#counterFrom('lookout_monitor_skipped_busy_total', async () => (await stats()).skippedBusy)
    this.#counterFrom('lookout_monitor_write_seconds_total', async () => (await stats()).flushMs / 1000)
    const seen = new Map<string, number>()
    this.#counter('lookout_monitor_observations_total', async function () {
      for (const [result, n] of Object.entries((await stats()).byStatus)) {
        const prev = seen.get(result) ?? 0
        if (n > prev) this.inc({ result }, n - prev)
        seen.set(result, n)
      }
    })
    // The scheduler keeps lateness samples since the last take; each scrape takes them.
    this.#histogram('lookout_monitor_lateness_seconds', function () {
      for (const ms of monitor.takeLateness()) this.observe(Math.max(0, ms) / 1000)
    })
  }

  // ---- construction ----

  #watch(what: string): boolean {
    if (this.#watched.has(what)) return false
    this.#watched.add(what)
    return true
  }

  #pingGauges(upName: MetricName, secondsName: MetricName, ping: () => Promise<boolean>): void {
    const read = perScrape(async () => {
      const t0 = performance.now()
      const ok = await timed(ping()).catch(() => false)
      return { ok, seconds: (performance.now() - t0) / 1000 }
    })
    this.#gauge(upName, async function () { this.set((await read()).ok ? 1 : 0) })
    this.#gauge(secondsName, async function () {
      const r = await read()
      if (r.ok) this.set(r.seconds)
      else this.reset()
    })
  }

  /** A counter mirroring a monotonic number kept elsewhere (a restart of the source is followed, not subtracted). */
  #counterFrom(name: MetricName, read: () => number | Promise<number>): void {
    let last = 0
    this.#counter(name, async function () {
      const v = await read()
      if (v > last) this.inc(v - last)
      last = v
    })
  }

  #series(name: MetricName): SeriesCounter {
    const spec = METRICS[name]
    return new SeriesCounter(this.registry, name, spec.help, spec.labels)
  }

  #seriesHistogram(name: MetricName): SeriesHistogram {
    const spec = METRICS[name] as { help: string; labels: readonly string[]; buckets?: readonly number[] }
    return new SeriesHistogram(this.registry, name, spec.help, spec.labels, spec.buckets ?? [])
  }

  #counter(name: MetricName, collect?: (this: Counter) => void | Promise<void>): Counter {
    const spec = METRICS[name]
    return new Counter({ name, help: spec.help, labelNames: [...spec.labels], registers: [this.registry], ...(collect === undefined ? {} : { collect }) })
  }

  #gauge(name: MetricName, collect?: (this: Gauge) => void | Promise<void>): Gauge {
    const spec = METRICS[name]
    return new Gauge({ name, help: spec.help, labelNames: [...spec.labels], registers: [this.registry], ...(collect === undefined ? {} : { collect }) })
  }

  #histogram(name: MetricName, collect?: (this: Histogram) => void | Promise<void>): Histogram {
    const spec = METRICS[name] as { help: string; labels: readonly string[]; buckets?: readonly number[] }
    return new Histogram({
      name, help: spec.help, labelNames: [...spec.labels], buckets: [...(spec.buckets ?? [])], registers: [this.registry],
      ...(collect === undefined ? {} : { collect }),
    })
  }
}
