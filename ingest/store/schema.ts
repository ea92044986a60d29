// ClickHouse schema of the log store, created and changed by versioned,
// idempotent migrations recorded in a table of their own.
import { COLUMN_DDL } from '../row-model.ts'
import type { LogStore } from './store.ts'
import { isWaiting } from './embedded-store.ts'
import { regranulate } from './regranulate.ts'

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
  /** What only the embedded engine in the single layout runs after the statements (a change no statement can make). */
  embedded?: (store: LogStore) => Promise<unknown>
}

// The row model's columns (row-model.ts), then the indexes.
const COLUMNS = `${COLUMN_DDL},
  INDEX idx_message lower(message) TYPE text(tokenizer = 'splitByNonAlpha'),
  INDEX idx_trace_id trace_id TYPE bloom_filter(0.001) GRANULARITY 1,
  INDEX idx_event_id event_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_batch_id batch_id TYPE bloom_filter(0.01) GRANULARITY 1,
  INDEX idx_received_at received_at TYPE minmax GRANULARITY 1,
  INDEX idx_severity severity_number TYPE minmax GRANULARITY 1`

// The cluster layout (deploy/clickhouse/): on every shard a ReplicatedMergeTree
// `logs_local` (macros {shard} and {replica} per server, Keeper), and on every
// server a Distributed `logs` over them that inserts and queries go through.
// Every statement runs ON CLUSTER, so one process migrates the whole cluster.
function engine(o: Required<SchemaOptions>): string {
  return o.layout === 'cluster'
    ? `ReplicatedMergeTree('/clickhouse/tables/{shard}/{database}/logs_local', '{replica}')`
    : 'MergeTree'
}

function onCluster(o: Required<SchemaOptions>): string {
  return o.layout === 'cluster' ? ` ON CLUSTER '${o.cluster}'` : ''
}

/**
 * Insert deduplication (the loader's tokens): a plain MergeTree keeps its
 * window locally; a replicated table keeps it in Keeper, shared by the replicas,
 * so a retry that lands on another replica is still recognised.
 */
function dedupSettings(o: Required<SchemaOptions>): string {
  return o.layout === 'cluster'
    ? 'replicated_deduplication_window = 10000, replicated_deduplication_window_seconds = 604800'
    : 'non_replicated_deduplication_window = 10000'
}

/**
 * Rows per granule, the unit the engine reads: a page of the newest lines across
 * every resource reads the newest granule of each, so smaller ones read fewer
 * rows (56 -> 39 ms p50 at 20M lines); a scan pays a little per granule and an
 * insert 2.6 % more CPU (bench/search README, granule size).
 */
export const INDEX_GRANULARITY = 2048

/** The merge selector's setting of the log table (migration 5); bench/merges compares it with the engine's default. */
export const MERGE_SETTINGS = 'merge_selector_base = 10'

/** The compressed block size of the log table's columns (migration 8). */
const BLOCK_SETTINGS = 'min_compress_block_size = 4096'

const MIGRATIONS: Migration[] = [
  {
    version: 1,
    name: 'logs table',
    statements: (db, o) => {
      const local = o.layout === 'cluster' ? 'logs_local' : 'logs'
      const out = [
        `CREATE TABLE IF NOT EXISTS ${db}.${local}${onCluster(o)} (${COLUMNS}
        ) ENGINE = ${engine(o)}
        PARTITION BY toDate(timestamp)
        ORDER BY (workspace_id, resource_id, timestamp)
        TTL toDateTime(timestamp) + INTERVAL ${o.retentionDays} DAY
        SETTINGS ttl_only_drop_parts = 1, ${dedupSettings(o)}, index_granularity = ${INDEX_GRANULARITY}`,
      ]
      if (o.layout === 'cluster') {
        // The sharding key must be deterministic: a retried insert has to send each
        // row to the same shard again for the shard's deduplication to see it.
        // By resource: a resource's rows (and a message's) live on one shard.
        out.push(`CREATE TABLE IF NOT EXISTS ${db}.logs${onCluster(o)} AS ${db}.logs_local
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
      const table = `${db}.${o.layout === 'cluster' ? 'logs_local' : 'logs'}${onCluster(o)}`
      return [
        `ALTER TABLE ${table} ADD INDEX IF NOT EXISTS idx_attr_values arrayMap(v -> lower(v), mapValues(attributes)) TYPE text(tokenizer = 'splitByNonAlpha')`,
        // A background mutation for parts written before; they are searched by reading until it ends.
        `ALTER TABLE ${table} MATERIALIZE INDEX idx_attr_values`,
      ]
    },
  },
  {
    // The loader's redelivery lookups by batch id are bounded by receive time
    // (stored.ts): the minmax index on received_at already picks the granules
    // the bloom filter would, and ClickHouse skips a bloom filter for IN lists
    // of about 100 ids or more anyway. Measured in bench/index-tax: README.md
    // ("Log table indexes") has the figures. The event id filter stays: the
    // legacy route's per-resource lookup covers the whole retention.
    version: 3,
    name: 'drop the bloom filter on batch_id',
    statements: (db, o) => [
      `ALTER TABLE ${db}.${o.layout === 'cluster' ? 'logs_local' : 'logs'}${onCluster(o)} DROP INDEX IF EXISTS idx_batch_id`,
    ],
  },
  {
    // A loader insert (up to 32 MiB) and the first merges of them are written
    // as compact parts (all columns in one file) rather than wide ones (files
    // per column): bench/e2e measured the loader's insert time at 27-30 s per
    // 300k rows against 42-49 s, and 55-56 CPU-s per million events against
    // 60-63 (bench/e2e README, 2026-11-25). Larger merged parts are wide as before.
    version: 4,
    name: 'compact parts up to 256 MiB',
    statements: (db, o) => [
      `ALTER TABLE ${db}.${o.layout === 'cluster' ? 'logs_local' : 'logs'}${onCluster(o)} MODIFY SETTING min_bytes_for_wide_part = 268435456`,
    ],
  },
  {
    // Merges wait for about ten parts of a size rather than five: each row
    // (and its text indexes) is rewritten fewer times while a flood loads.
    // The engine alone fed 60k rows/s spent 12-30 % less CPU per row and kept
    // more active parts until they aged (14 against 4 after five minutes, a
    // rare-term search 2.7 ms slower: bench/merges); in the pipeline, 8-19 %
    // less engine CPU per event and a lower freshness p99 (bench/ingest
    // README, "The merge selector").
    version: 5,
    name: 'merges of ten parts',
    statements: (db, o) => [
      `ALTER TABLE ${db}.${o.layout === 'cluster' ? 'logs_local' : 'logs'}${onCluster(o)} MODIFY SETTING ${MERGE_SETTINGS}`,
    ],
  },
  {
    // resource.<key>=<value> filters (query/attrs.ts): a resource's attributes
    // are few and repeat, so a bloom filter on their values lets a search over
    // many resources skip the granules of the others (bench/search, 2M lines:
    // 8-15x fewer rows read across the workspace, load CPU within noise).
    // Log-attribute filters use the attribute-value text index of migration 2.
    version: 6,
    name: 'bloom filter on resource attribute values',
    statements: (db, o) => {
      const table = `${db}.${o.layout === 'cluster' ? 'logs_local' : 'logs'}${onCluster(o)}`
      return [
        `ALTER TABLE ${table} ADD INDEX IF NOT EXISTS idx_resource_values mapValues(resource_attributes) TYPE bloom_filter(0.01) GRANULARITY 1`,
        // Parts written before are searched by reading until this background mutation ends.
        `ALTER TABLE ${table} MATERIALIZE INDEX idx_resource_values`,
      ]
    },
  },
  {
    // Migration 1 now makes the table with INDEX_GRANULARITY; the engine cannot
    // change a made table's, so an embedded store is rebuilt with it (regranulate.ts:
    // hard links, no copy). A ClickHouse server's table keeps its granules
    // (deploy/clickhouse/README.md says how to rebuild one).
    version: 7,
    name: 'finer granules',
    statements: () => [],
    embedded: (store) => regranulate(store, INDEX_GRANULARITY),
  },
  {
    // A wide part compresses each column in blocks of at least 64 KiB by default,
    // so one row of a narrow column decompresses 32 granules of it. A page of the
    // newest lines across resources reads a row or two in each resource's granules
    // of every column: on a merged day (one wide part) 265 ms uncached against 129
    // with 4 KiB blocks, and 276 against 51 with the block cache, which the default
    // blocks' working set kept missing; disk +0.7 %, merge CPU within noise, inserts
    // (compact parts) unchanged (bench/search README, 2026-11-28 evening). New parts
    // get them; merges rewrite the old.
    version: 8,
    name: 'small compressed blocks',
    statements: (db, o) => [
      `ALTER TABLE ${db}.${o.layout === 'cluster' ? 'logs_local' : 'logs'}${onCluster(o)} MODIFY SETTING ${BLOCK_SETTINGS}`,
    ],
  },
]

export const SCHEMA_VERSION = MIGRATIONS.length

/** Creates the database and applies every migration not yet recorded; safe to run at every start. */
export async function migrateLogStore(store: LogStore, options: SchemaOptions): Promise<number> {
  const o: Required<SchemaOptions> = { layout: 'single', cluster: 'lookout', ...options }
  if (!Number.isInteger(o.retentionDays) || o.retentionDays < 1) throw new Error('retentionDays must be an integer >= 1')
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(o.cluster)) throw new Error('cluster must be a plain identifier')
  if (isWaiting(store)) {
    // An engine nobody needed yet: the schema is made when it starts, with the latest options.
    store.deferPreparation((started) => migrateLogStore(started, options))
    return 0
  }
  const db = store.database
  await store.command(`CREATE DATABASE IF NOT EXISTS ${db}${onCluster(o)}`)
  // On a cluster the record is one replicated table (every server a replica of it):
  // whichever server a process reaches knows what was applied.
  const migrationsEngine = o.layout === 'cluster'
    ? `ReplicatedMergeTree('/clickhouse/tables/{database}/schema_migrations', '{replica}')`
    : 'MergeTree'
  await store.command(`CREATE TABLE IF NOT EXISTS ${db}.schema_migrations${onCluster(o)} (version UInt32, name String, applied_at DateTime DEFAULT now()) ENGINE = ${migrationsEngine} ORDER BY version`)
  const done = new Set((await store.query<{ version: number }>(`SELECT version FROM ${db}.schema_migrations`)).rows.map((r) => Number(r.version)))
  let applied = 0
  for (const m of MIGRATIONS) {
    if (done.has(m.version)) continue
    for (const sql of m.statements(db, o)) await store.command(sql)
    if (m.embedded !== undefined && store.embedded && o.layout === 'single') await m.embedded(store)
    await store.command(`INSERT INTO ${db}.schema_migrations (version, name) VALUES ({v:UInt32}, {n:String})`, { v: m.version, n: m.name })
    applied++
  }
  // Retention is configuration, not schema: apply the configured TTL each start.
  const table = o.layout === 'cluster' ? 'logs_local' : 'logs'
  await store.command(`ALTER TABLE ${db}.${table}${onCluster(o)} MODIFY TTL toDateTime(timestamp) + INTERVAL ${o.retentionDays} DAY SETTINGS materialize_ttl_after_modify = 0`)
  return applied
}
