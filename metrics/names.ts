// Every metric Lookout exports, with its type and meaning: the registry builds
// from this table, README.md documents it, and the Grafana dashboard's queries
// are checked against it.

export const METRIC_TYPES = { counter: 'counter', gauge: 'gauge', histogram: 'histogram' } as const
export type MetricType = (typeof METRIC_TYPES)[keyof typeof METRIC_TYPES]

export interface MetricSpec {
  type: MetricType
  help: string
  labels: readonly string[]
  buckets?: readonly number[]
}

const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10] as const
const SIZE_BUCKETS = [16 * 1024, 64 * 1024, 256 * 1024, 1024 ** 2, 4 * 1024 ** 2, 16 * 1024 ** 2, 32 * 1024 ** 2, 64 * 1024 ** 2] as const
const LATENESS_BUCKETS = [0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60] as const

const m = (type: MetricType, help: string, labels: readonly string[] = [], buckets?: readonly number[]): MetricSpec =>
  buckets === undefined ? { type, help, labels } : { type, help, labels, buckets }

export const METRICS = {
  // HTTP, per route template (404s: route="unmatched").
  lookout_http_requests_total: m('counter', 'HTTP requests answered, by method, route template and status code', ['method', 'route', 'status_code']),
  lookout_http_request_duration_seconds: m('histogram', 'HTTP request latency from arrival to the last byte sent', ['method', 'route'], LATENCY_BUCKETS),
  lookout_http_errors_total: m('counter', 'HTTP requests that ended in a coded error, by error code', ['method', 'route', 'code']),

  // Readiness.
  lookout_ready: m('gauge', '1 once every dependency has been ready (the readiness gate is open)'),
  lookout_dependency_ready: m('gauge', 'Result of the last readiness check of each dependency (1 ready, 0 unavailable)', ['dependency']),

  // Ingest (route: json, otlp, legacy), counted per request, never per event.
  lookout_ingest_requests_accepted_total: m('counter', 'Ingest requests acknowledged after the durable publish', ['route']),
  lookout_ingest_events_accepted_total: m('counter', 'Log events acknowledged (durably published)', ['route']),
  lookout_ingest_bytes_accepted_total: m('counter', 'Request body bytes (as sent, possibly gzip) of acknowledged requests', ['route']),
  lookout_ingest_events_rejected_total: m('counter', 'Log records refused inside an otherwise accepted OTLP request (partial success)', ['route', 'reason']),
  lookout_ingest_requests_rejected_total: m('counter', 'Ingest requests refused, by reason (the error code the sender got)', ['route', 'reason']),
  lookout_ingest_bytes_rejected_total: m('counter', 'Request body bytes (as sent) of refused ingest requests, by reason', ['route', 'reason']),
  lookout_ingest_duplicate_messages_total: m('counter', 'Broker messages a sender retry repeated (dropped by JetStream deduplication)', ['route']),
  lookout_ingest_inflight_bytes: m('gauge', 'Request bytes being decoded or published now'),
  lookout_ingest_inflight_limit_bytes: m('gauge', 'In-flight byte budget past which ingest answers 429/503'),

  // Decoder worker pool.
  lookout_worker_pool_threads: m('gauge', 'Decoder worker threads running now (none at idle unless LOOKOUT_IDLE_WORKERS; requests start them)'),
  lookout_worker_pool_max_threads: m('gauge', 'Decoder worker threads the pool may start (LOOKOUT_WORKERS)'),
  lookout_worker_pool_queue_size: m('gauge', 'Decode tasks waiting for a worker'),
  lookout_worker_pool_utilization: m('gauge', 'Share of time the workers were busy since the pool started (0..1)'),

  // JetStream.
  lookout_jetstream_publish_duration_seconds: m('histogram', 'Time from publish to the stream acknowledgement, per broker message', [], LATENCY_BUCKETS),
  lookout_jetstream_publishes_total: m('counter', 'Broker messages published, by result (stored, duplicate, buffer_full, unavailable)', ['result']),
  lookout_jetstream_publish_bytes_total: m('counter', 'Bytes of broker messages stored or deduplicated'),
  lookout_jetstream_up: m('gauge', '1 when the last scrape could read the stream and consumer state'),
  lookout_jetstream_stream_messages: m('gauge', 'Messages held in the LOGS stream (the backlog not yet loaded)'),
  lookout_jetstream_stream_bytes: m('gauge', 'Bytes held in the LOGS stream'),
  lookout_jetstream_consumer_pending: m('gauge', 'Messages the loader consumer has not been delivered yet'),
  lookout_jetstream_consumer_ack_pending: m('gauge', 'Messages delivered to loaders and not acknowledged yet'),
  lookout_jetstream_consumer_redelivered: m('gauge', 'Messages delivered more than once and still unacknowledged'),
  lookout_jetstream_dead_letter_messages: m('gauge', 'Messages in the dead-letter stream'),

  // Loader.
  lookout_loader_batches_total: m('counter', 'Batches loaded into ClickHouse and acknowledged'),
  lookout_loader_rows_total: m('counter', 'Rows loaded into ClickHouse'),
  lookout_loader_messages_total: m('counter', 'Broker messages acknowledged by the loader'),
  lookout_loader_insert_errors_total: m('counter', 'Failed ClickHouse insert or lookup attempts (each retry counts)'),
  lookout_loader_fetch_errors_total: m('counter', 'Failed pulls from JetStream'),
  lookout_loader_dead_lettered_total: m('counter', 'Messages moved to the dead-letter stream (data ClickHouse refuses)'),
  lookout_loader_duplicates_skipped_total: m('counter', 'Rows skipped because a redelivered message was already stored'),
  lookout_loader_last_batch_rows: m('gauge', 'Rows in the last loaded batch'),
  lookout_loader_insert_duration_seconds: m('histogram', 'ClickHouse insert latency per attempt, by result (ok, error)', ['result'], LATENCY_BUCKETS),
  lookout_loader_batch_bytes: m('histogram', 'Size of each ClickHouse insert body', [], SIZE_BUCKETS),

  // Stores.
  lookout_clickhouse_up: m('gauge', '1 when ClickHouse answered a ping at the last scrape (also 1 while an embedded engine that never held logs waits for its first use)'),
  lookout_clickhouse_ping_seconds: m('gauge', 'ClickHouse ping round trip at the last scrape'),
  lookout_postgres_up: m('gauge', '1 when PostgreSQL answered SELECT 1 at the last scrape'),
  lookout_postgres_ping_seconds: m('gauge', 'PostgreSQL SELECT 1 round trip at the last scrape'),
  lookout_postgres_pool_connections: m('gauge', 'PostgreSQL pool connections by state (total, idle, waiting clients); server only', ['state']),

  // Monitor.
  lookout_monitor_checks_owned: m('gauge', 'Checks this process holds a lease on'),
  lookout_monitor_probes_total: m('counter', 'Probes started'),
  lookout_monitor_observations_total: m('counter', 'Probe results, by observed status', ['result']),
  lookout_monitor_checks_total: m('counter', 'Probe results by check kind and status (reported by the monitor through its observer)', ['kind', 'result']),
  lookout_monitor_results_written_total: m('counter', 'Results written (accepted by the revision and lease fence)'),
  lookout_monitor_results_rejected_total: m('counter', 'Results refused by the fence (check edited, paused or taken over)'),
  lookout_monitor_skipped_busy_total: m('counter', 'Due probes skipped because the previous one was still running'),
  lookout_monitor_write_seconds_total: m('counter', 'Time spent writing result batches'),
  lookout_monitor_lateness_seconds: m('histogram', 'How late each probe started after its scheduled time', [], LATENESS_BUCKETS),

  // Outbound deliveries (webhooks, alert notifications).
  lookout_deliveries_total: m('counter', 'Outbound delivery attempts, by channel and outcome (delivered, retry, failed, refused)', ['channel', 'outcome']),
  lookout_delivery_duration_seconds: m('histogram', 'Outbound delivery attempt latency', ['channel'], LATENCY_BUCKETS),
} as const satisfies Record<string, MetricSpec>

export type MetricName = keyof typeof METRICS

/** Node's process metrics come from prom-client's defaults under their usual names. */
export const PROCESS_METRICS = [
  'process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_heap_size_total_bytes',
  'nodejs_eventloop_lag_seconds', 'nodejs_eventloop_lag_p99_seconds', 'nodejs_gc_duration_seconds', 'nodejs_active_handles_total',
] as const
