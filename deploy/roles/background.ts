// The loader role (JetStream → ClickHouse, the size cap) and the monitor role
// (probes, collector watch, and the alert, toast and webhook delivery workers).
import { join } from 'node:path'
import type { Logger } from 'pino'
import { Loader, scheduleSizeCap, type Broker, type LogStore } from '../../ingest/index.ts'
import { SshKeyRuntime } from '../../workspace/index.ts'
import type { Database } from '../../core/index.ts'
import type { LookoutMetrics } from '../../metrics/index.ts'
import { startDeliveryWorkers, type DeliveryWorkerOptions, type DeliveryWorkers } from '../../alerting/index.ts'
import { CollectorWatch, Monitor } from '../../monitor/index.ts'
import type { LookoutConfig } from '../config.ts'
import type { Cleanups } from './cleanups.ts'
import { StoreLogSource } from './log-source.ts'

export async function startLoaderRole(
  config: LookoutConfig, broker: Broker, store: LogStore, metrics: LookoutMetrics, cleanups: Cleanups, sizeCap: boolean,
): Promise<Loader> {
  const loader = new Loader(broker, store, { observer: metrics, maxRows: config.loaderMaxRows, maxBytes: config.loaderMaxBytes, flushMs: config.loaderFlushMs, minRows: config.loaderMinRows, duplicateWindowMs: config.duplicateWindowMs })
  metrics.watchLoader(loader)
  await loader.start()
  cleanups.add(() => loader.stop())
  if (sizeCap) cleanups.add(scheduleSizeCap(store, config.maxLogBytes, 60_000, () => undefined))
  return loader
}

export interface MonitorRole {
  monitor: Monitor
  deliveries: DeliveryWorkers
}

export async function startMonitorRole(
  config: LookoutConfig, db: Database, store: LogStore, broker: Broker | null, metrics: LookoutMetrics, log: Logger | null, cleanups: Cleanups,
  deliveries: Partial<Omit<DeliveryWorkerOptions, 'settings' | 'secretKey'>> | undefined,
): Promise<MonitorRole> {
  // Probe credentials: LOOKOUT_SECRET_* variables, or files under <data dir>/secrets.
  const monitor = new Monitor(db, {
    credentials: { fileDirs: [join(config.dataDir, 'secrets')] },
    observer: metrics,
    // Log checks count lines in this deployment's log store.
    logs: new StoreLogSource(store, broker),
    // The monitor role is the managed runtime: it holds the workspace's runtime secrets (resource SSH keys) for neura checks.
    ...(config.secretKey === undefined ? {} : { runtime: new SshKeyRuntime(db, config.secretKey), sshWorkDir: join(config.dataDir, 'ssh') }),
    ...(log === null ? {} : { logger: log.child({ role: 'monitor' }) }),
  })
  metrics.watchMonitor(monitor)
  await monitor.start()
  cleanups.add(() => monitor.stop())
  // Collectors that stopped reporting: their checks unknown, one incident per source (monitor/collectors/watch.ts).
  const watch = new CollectorWatch(db, {
    silenceMinMs: config.collectorSilenceMinMs, everyMs: config.collectorWatchMs,
    ...(log === null ? {} : { logger: log.child({ role: 'collector-watch' }) }),
  })
  watch.start()
  cleanups.add(() => watch.stop())
  // Alerts, notifications and webhooks go out from durable queues here, beside (never inside) the probe loop.
  const d = startDeliveryWorkers(db, { settings: config.alerts, secretKey: config.secretKey, observer: metrics, ...deliveries })
  cleanups.add(() => d.stop())
  return { monitor, deliveries: d }
}
