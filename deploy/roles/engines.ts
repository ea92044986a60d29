// The engines every role shares: NATS (managed or given), the JetStream broker,
// the log store (chdb or a ClickHouse server) and the PostgreSQL port, migrated.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { Broker, migrateLogStore, openLogStore, type LogStore } from '../../ingest/index.ts'
import { PG_MIGRATIONS } from '../migrations.ts'
import { plugAssignmentFanout } from '../../workspace/index.ts'
import { webhookFanout } from '../../alerting/index.ts'
import { migrate, openPglite, openPostgres, type Database } from '../../core/index.ts'
import type { LookoutMetrics } from '../../metrics/index.ts'
import type { LookoutConfig } from '../config.ts'
import { ManagedNats } from '../nats-server.ts'
import { withSecretKey } from '../secret-key.ts'
import type { Cleanups } from './cleanups.ts'

export interface Engines {
  config: LookoutConfig
  nats: ManagedNats | null
  broker: Broker
  store: LogStore
  db: Database
}

export async function startEngines(
  config: LookoutConfig, cleanups: Cleanups, metrics: LookoutMetrics, log: Logger | null, secretKeyFile: boolean,
): Promise<Engines> {
  let nats: ManagedNats | null = null
  let natsUrl = config.natsUrl
  if (natsUrl === undefined) {
    nats = new ManagedNats({ dir: join(config.dataDir, 'nats'), maxFileStore: config.streamMaxBytes * 2 })
    natsUrl = await nats.start()
    const n = nats
    cleanups.add(() => n.stop())
  }
  const broker = new Broker({
    observer: metrics,
    servers: natsUrl.split(','),
    replicas: config.natsReplicas,
    maxBytes: config.streamMaxBytes,
    duplicateWindowMs: config.duplicateWindowMs,
    soleClient: nats !== null,
  })
  // Registered before start: a start that fails half-way must not leave a reconnecting connection behind.
  cleanups.add(() => broker.close())
  await broker.start()
  if (broker.consumerReset !== null) {
    log?.warn(broker.consumerReset, 'the loader consumer was recreated: its books disagreed with the stream after a crash (every message held is checked against ClickHouse before it loads)')
  }
  metrics.watchBroker(broker)

  if (config.clickhouseUrl === undefined) mkdirSync(join(config.dataDir, 'clickhouse'), { recursive: true })
  const store = openLogStore({
    url: config.clickhouseUrl, path: join(config.dataDir, 'clickhouse'), layout: config.clickhouseLayout, cluster: config.clickhouseCluster,
    engineMemory: { maxMemoryBytes: config.engineMaxMemoryBytes }, openOnFirstUse: true,
  })
  cleanups.add(() => store.close())
  await migrateLogStore(store, { retentionDays: config.retentionDays, layout: config.clickhouseLayout, cluster: config.clickhouseCluster })

  const db = config.databaseUrl === undefined
    ? await openPglite(join(config.dataDir, 'postgres'), { templateDir: config.cacheDir, migrations: PG_MIGRATIONS })
    : await openPostgres(config.databaseUrl)
  cleanups.add(() => db.close())
  await migrate(db, PG_MIGRATIONS)
  // The ports a stage declares and a higher one implements, plugged where the process is composed.
  plugAssignmentFanout(webhookFanout)
  if (secretKeyFile) config = await withSecretKey(config, db, log)
  return { config, nats, broker, store, db }
}

/** Retention is configuration: apply the table TTL a desktop's settings asked for. */
export async function applyRetention(store: LogStore, config: LookoutConfig): Promise<void> {
  await migrateLogStore(store, { retentionDays: config.retentionDays, layout: config.clickhouseLayout, cluster: config.clickhouseCluster })
}
