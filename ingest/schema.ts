// ClickHouse schema of the log store, created and changed by versioned,
// idempotent migrations recorded in a table of their own.
import type { LogStore } from './store.ts'

export interface SchemaOptions {
  /** Days a log line is kept (TTL on the event time). */
  retentionDays: number
  /** 'single' (MergeTree) or 'cluster' (ReplicatedMergeTree per shard + Distributed). */
  layout?: 'single' | 'cluster'
  /** Cluster name for ON CLUSTER statements in the cluster layout. */
  cluster?: string
}

interface Migration {
  version: number
  name: string
  statements(db: string, o: Required<SchemaOptions>): string[]
}

const COLUMNS = `
  workspace_id UUID,
  resource_id UUID,
  timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
  observed_timestamp DateTime64(9) CODEC(Delta, ZSTD(1)),
  received_at DateTime64(9) CODEC(Delta, ZSTD(1)),
  batch_id String CODEC(ZSTD(1)),
  event_id String CODEC(ZSTD(1)),
  severity_number UInt8,
  severity_text LowCardinality(String),
  message String CODEC(ZSTD(1)),
  source LowCardinality(String),
  attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
  resource_attributes Map(LowCardinality(String), String) CODEC(ZSTD(1)),
  scope_name LowCardinality(String),
  scope_version LowCardinality(String),
  trace_id String CODEC(ZSTD(1)),
  span_id String CODEC(ZSTD(1)),
  flags UInt32,
  INDEX idx_message lower(message) TYPE text(tokenizer = 'splitByNonAlpha'),
  INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
  INDEX idx_event_id event_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_batch_id batch_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_received_at received_at TYPE minmax GRANULARITY 1,
  INDEX idx_severity severity_number TYPE minmax GRANULARITY 1`

function engine(o: Required<SchemaOptions>): string {
  return o.layout === 'cluster'
    ? `ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/logs_local', '{replica}')`
    : 'MergeTree'
}

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'logs table',
    statements: (db, o) => {
      const onCluster = o.layout === 'cluster' ? ` ON CLUSTER '${o.cluster}'` : ''
      const local = o.layout === 'cluster' ? 'logs_local' : 'logs'
      const out = [
        `CREATE TABLE IF NOT EXISTS ${db}.${local}${onCluster} (${COLUMNS}
        ) ENGINE = ${engine(o)}
        PARTITION BY toDate(timestamp)
        ORDER BY (workspace_id, resource_id, timestamp)
        TTL toDateTime(timestamp) + INTERVAL ${o.retentionDays} DAY
        SETTINGS ttl_only_drop_parts = 1, non_replicated_deduplication_window = 10000, index_granularity = 8192`,
      ]
      if (o.layout === 'cluster') {
        out.push(`CREATE TABLE IF NOT EXISTS ${db}.logs${onCluster} AS ${db}.logs_local
          ENGINE = Distributed('${o.cluster}', '${db}', 'logs_local', cityHash64(resource_id))`)
      }
      return out
    },
  },
  {
    // Log search (query/) matches terms in attribute values too; without an
    // index there, the message index cannot skip a granule (a term may sit
    // in either). Measured in bench/search: query/README.md has the figures.
    version: 2,
    name: 'text index on attribute values',
    statements: (db, o) => {
      const onCluster = o.layout === 'cluster' ? ` ON CLUSTER '${o.cluster}'` : ''
      const table = `${db}.${o.layout === 'cluster' ? 'logs_local' : 'logs'}${onCluster}`
      return [
        `ALTER TABLE ${table} ADD INDEX IF NOT EXISTS idx_attr_values arrayMap(v -> lower(v), mapValues(attributes)) TYPE text(tokenizer = 'splitByNonAlpha')`,
        // A background mutation for parts written before; they are searched by reading until it ends.
        `ALTER TABLE ${table} MATERIALIZE INDEX idx_attr_values`,
      ]
    },
  },
]

export const SCHEMA_VERSION = MIGRATIONS.length

/** Creates the database and applies every migration not yet recorded; safe to run at every start. */
export async function migrateLogStore(store: LogStore, options: SchemaOptions): Promise<number> {
  const o: Required<SchemaOptions> = { layout: 'single', cluster: 'lookout', ...options }
  if (!Number.isInteger(o.retentionDays) || o.retentionDays < 1) throw new Error('retentionDays must be an integer >= 1')
  const db = store.database
  await store.command(`CREATE DATABASE IF NOT EXISTS ${db}`)
  await store.command(`CREATE TABLE IF NOT EXISTS ${db}.schema_migrations (version UInt32, name String, applied_at DateTime DEFAULT now()) ENGINE = MergeTree ORDER BY version`)
  const done = new Set((await store.query<{ version: number }>(`SELECT version FROM ${db}.schema_migrations`)).rows.map((r) => Number(r.version)))
  let applied = 0
  for (const m of MIGRATIONS) {
    if (done.has(m.version)) continue
    for (const sql of m.statements(db, o)) await store.command(sql)
    await store.command(`INSERT INTO ${db}.schema_migrations (version, name) VALUES ({v:UInt32}, {n:String})`, { v: m.version, n: m.name })
    applied++
  }
  // Retention is configuration, not schema: apply the configured TTL each start.
  const table = o.layout === 'cluster' ? 'logs_local' : 'logs'
  await store.command(`ALTER TABLE ${db}.${table} MODIFY TTL toDateTime(timestamp) + INTERVAL ${o.retentionDays} DAY SETTINGS materialize_ttl_after_modify = 0`)
  return applied
}
