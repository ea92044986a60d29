// Starts Lookout's roles on the embedded default (managed nats-server, chdb,
// PGlite) or on servers, and stops them in the order that loses nothing.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import {
  Broker, DecoderPool, DiskGuard, IngestService, Loader, migrateLogStore, openLogStore, scheduleSizeCap, type IngestServiceOptions, type LogStore,
} from '../ingest/index.ts'
import { PG_MIGRATIONS, TokenVerifier, buildApp, migrate, openPglite, openPostgres, ownerResolver, type AppOptions, type Database } from '../api/index.ts'
import {
  LookoutMetrics, MeteredBroker, MeteredIngestService, createLogger, meteredLogStore, readinessChecks, startMetricsListener,
} from '../api/index.ts'
import { SshKeyRuntime, startDeliveryWorkers, type DeliveryWorkerOptions, type DeliveryWorkers } from '../api/index.ts'
import type { DestinationStream } from 'pino'
import { CollectorWatch, Monitor } from '../monitor/index.ts'
import type { LookoutConfig } from './config.ts'
import { ManagedNats } from './nats-server.ts'
import { acquireDataDir } from './lock.ts'
import { startAdminSocket } from './admin.ts'
import { withSecretKey } from './secret-key.ts'

export const ROLES = { api: 'api', loader: 'loader', monitor: 'monitor' } as const
export type Role = (typeof ROLES)[keyof typeof ROLES]
export const ALL_ROLES: readonly Role[] = Object.values(ROLES)

export interface StartOptions {
  roles?: readonly Role[]
  /** Logging: false for none; { level } to override LOOKOUT_LOG_LEVEL. */
  logger?: boolean | { level?: string }
  /** Where log lines go (default stdout); tests read them here. */
  logStream?: DestinationStream
  /** Serve the admin Unix socket (default: yes). */
  adminSocket?: boolean
  /** Alert, toast and webhook workers of the monitor role: toast sink, resolver, retry tuning (tests). */
  deliveries?: Partial<Omit<DeliveryWorkerOptions, 'settings' | 'secretKey'>>
  /** Where the owner socket listens (default <dataDir>/admin.sock); served even with servers when given. */
  ownerSocketPath?: string
  /** Start the HTTP listener on config.host:port (default yes). The desktop service has none: its loopback listener is optional. */
  listen?: boolean
  /**
   * Without LOOKOUT_SECRET_KEY, on the embedded database: seal secrets with the data directory's key file,
   * made on first start (deploy/secret-key.ts). Set by `lookout serve` and `lookout desktop`; library users opt in.
   */
  secretKeyFile?: boolean
  /** Called once the database is migrated, before the roles start (the desktop service's settings and hooks). */
  prepare?: (db: Database, config: LookoutConfig) => Promise<Prepared>
}

/** What `prepare` hands back: configuration read from the database, and hooks for the roles. */
export interface Prepared {
  config?: Partial<Pick<LookoutConfig, 'retentionDays' | 'maxLogBytes'>>
  /** false: the caller enforces the size cap itself (its value can change while running). */
  sizeCap?: boolean
  onAccepted?: IngestServiceOptions['onAccepted']
  app?: Pick<AppOptions, 'desktop'>
}

export interface Lookout {
  config: LookoutConfig
  /** Base URL of the HTTP listener, when the api role runs. */
  url: string
  db: Database
  store: LogStore
  broker: Broker
  nats: ManagedNats | null
  loader: Loader | null
  monitor: Monitor | null
  /** Alert dispatch and delivery, toasts, assignment webhooks (monitor role). */
  deliveries: DeliveryWorkers | null
  ingest: IngestService | null
  app: FastifyInstance | null
  /** This process's metrics (served per LOOKOUT_METRICS_TOKEN / LOOKOUT_METRICS_LISTEN). */
  metrics: LookoutMetrics
  /** URL of the LOOKOUT_METRICS_LISTEN listener, '' without one. */
  metricsUrl: string
  /** What the api role built its apps with (the desktop service builds its loopback listener from it). */
  appOptions: AppOptions | null
  stop(): Promise<void>
}

const VERSION = '0.1.0'

export async function startLookout(config: LookoutConfig, options: StartOptions = {}): Promise<Lookout> {
  const roles = new Set(options.roles ?? ALL_ROLES)
  const embedded = config.databaseUrl === undefined || config.clickhouseUrl === undefined
  const ownerSocket = options.adminSocket !== false && (embedded || options.ownerSocketPath !== undefined)
  const release = embedded ? acquireDataDir(config.dataDir) : () => undefined
  const cleanups: (() => Promise<void> | void)[] = [release]
  const stopAll = async () => {
    for (const c of cleanups.reverse()) {
      const t0 = performance.now()
      await c()
      if (process.env.LOOKOUT_TRACE_STOP === '1') process.stderr.write(`stop: ${c.toString().slice(0, 60)} ${(performance.now() - t0).toFixed(0)} ms\n`)
    }
  }
  const metrics = new LookoutMetrics()
  // One logger for every role, with the redaction of api/logging.ts.
  const log = options.logger === false ? null : createLogger({
    level: (typeof options.logger === 'object' ? options.logger.level : undefined) ?? config.logLevel,
    stream: options.logStream,
  })
  try {
    let nats: ManagedNats | null = null
    let natsUrl = config.natsUrl
    if (natsUrl === undefined) {
      nats = new ManagedNats({ dir: join(config.dataDir, 'nats'), maxFileStore: config.streamMaxBytes * 2 })
      natsUrl = await nats.start()
      const n = nats
      cleanups.push(() => n.stop())
    }
    const broker: Broker = new MeteredBroker(metrics, {
      servers: natsUrl.split(','),
      replicas: config.natsReplicas,
      maxBytes: config.streamMaxBytes,
      duplicateWindowMs: config.duplicateWindowMs,
    })
    // Registered before start: a start that fails half-way must not leave a reconnecting connection behind.
    cleanups.push(() => broker.close())
    await broker.start()
    metrics.watchBroker(broker)

    if (config.clickhouseUrl === undefined) mkdirSync(join(config.dataDir, 'clickhouse'), { recursive: true })
    const store = openLogStore({
      url: config.clickhouseUrl, path: join(config.dataDir, 'clickhouse'), layout: config.clickhouseLayout, cluster: config.clickhouseCluster,
    })
    cleanups.push(() => store.close())
    await migrateLogStore(store, { retentionDays: config.retentionDays, layout: config.clickhouseLayout, cluster: config.clickhouseCluster })

    const db = config.databaseUrl === undefined
      ? await openPglite(join(config.dataDir, 'postgres'), { templateDir: config.cacheDir })
      : await openPostgres(config.databaseUrl)
    cleanups.push(() => db.close())
    await migrate(db, PG_MIGRATIONS)
    if (options.secretKeyFile === true) config = await withSecretKey(config, db, log)
    const prepared = options.prepare === undefined ? {} : await options.prepare(db, config)
    if (prepared.config !== undefined) {
      config = { ...config, ...prepared.config }
      // Retention is configuration: apply the table TTL the hook asked for.
      await migrateLogStore(store, { retentionDays: config.retentionDays, layout: config.clickhouseLayout, cluster: config.clickhouseCluster })
    }
    metrics.watchLogStore(store)
    metrics.watchDatabase(db)

    let loader: Loader | null = null
    if (roles.has('loader')) {
      loader = new Loader(broker, meteredLogStore(store, metrics), { maxRows: config.loaderMaxRows, maxBytes: config.loaderMaxBytes, flushMs: config.loaderFlushMs, minRows: config.loaderMinRows, duplicateWindowMs: config.duplicateWindowMs })
      metrics.watchLoader(loader)
      await loader.start()
      const l = loader
      cleanups.push(() => l.stop())
      if (prepared.sizeCap !== false) {
        const stopCap = scheduleSizeCap(store, config.maxLogBytes, 60_000, () => undefined)
        cleanups.push(stopCap)
      }
    }

    let monitor: Monitor | null = null
    let deliveries: DeliveryWorkers | null = null
    if (roles.has('monitor')) {
      // Probe credentials: LOOKOUT_SECRET_* variables, or files under <data dir>/secrets.
      monitor = new Monitor(db, {
        credentials: { fileDirs: [join(config.dataDir, 'secrets')] },
        observer: metrics,
        // The monitor role is the managed runtime: it holds the workspace's runtime secrets (resource SSH keys) for neura checks.
        ...(config.secretKey === undefined ? {} : { runtime: new SshKeyRuntime(db, config.secretKey), sshWorkDir: join(config.dataDir, 'ssh') }),
        ...(log === null ? {} : { logger: log.child({ role: 'monitor' }) }),
      })
      metrics.watchMonitor(monitor)
      await monitor.start()
      const m = monitor
      cleanups.push(() => m.stop())
      // Collectors that stopped reporting: their checks unknown, one incident per source (monitor/collectors/watch.ts).
      const watch = new CollectorWatch(db, {
        silenceMinMs: config.collectorSilenceMinMs, everyMs: config.collectorWatchMs,
        ...(log === null ? {} : { logger: log.child({ role: 'collector-watch' }) }),
      })
      watch.start()
      cleanups.push(() => watch.stop())
      // Alerts, notifications and webhooks go out from durable queues here, beside (never inside) the probe loop.
      const d = startDeliveryWorkers(db, { settings: config.alerts, secretKey: config.secretKey, observer: metrics, ...options.deliveries })
      deliveries = d
      cleanups.push(() => d.stop())
    }

    let app: FastifyInstance | null = null
    let appOptions: AppOptions | undefined
    let ownerApp: FastifyInstance | undefined
    let ingest: IngestService | null = null
    let url = ''
    if (roles.has('api')) {
      const pool = new DecoderPool({ threads: config.workers, maxQueue: config.decodeQueue })
      cleanups.push(() => pool.close())
      // Engines writing into the data directory (managed JetStream, chdb): keep a reserve free there.
      const diskGuard = new DiskGuard({ dirs: embedded || nats !== null ? [config.dataDir] : [], minFreeBytes: config.minFreeDiskBytes })
      await diskGuard.start()
      cleanups.push(() => diskGuard.stop())
      metrics.watchPool(pool)
      ingest = new MeteredIngestService(metrics, pool, broker, {
        maxInFlightBytes: config.maxInFlightBytes,
        maxDecompressedBytes: config.maxDecompressedBytes,
        retentionDays: config.retentionDays,
        onAccepted: prepared.onAccepted,
        diskGuard,
      })
      const ing = ingest
      metrics.watchIngest(ing)
      // One verifier for every app of this process (listener, owner socket, desktop loopback):
      // one cache, and on a PostgreSQL server one LISTEN connection. Closed after the apps.
      const tokens = new TokenVerifier(db, { maxEntries: config.tokenCacheSize })
      await tokens.start()
      cleanups.push(() => tokens.close())
      appOptions = {
        db, ingest, store, broker, version: VERSION, maxBodyBytes: config.maxBodyBytes, maxEventLoopDelayMs: config.maxEventLoopDelayMs,
        bodyTimeoutMs: config.bodyTimeoutMs, headersTimeoutMs: config.headersTimeoutMs,
        secretKey: config.secretKey, alerts: config.alerts, tokens, portalFeatures: config.portalFeatures,
        repositories: { cacheDir: join(config.dataDir, 'repositories'), roots: config.repositoryRoots },
        ...(log === null ? { logger: false } : { loggerInstance: log }),
        metrics, metricsToken: config.metricsToken,
        readiness: readinessChecks({ broker, store, db, pool }),
        ...prepared.app,
      }
      // The owner socket's app is compiled first: the listener's load shedding samples
      // event-loop delay from its own start, which must not count this compilation.
      if (ownerSocket) {
        ownerApp = await buildApp({
          ...appOptions, ownerPrincipal: ownerResolver(db), logger: false, loggerInstance: undefined, metrics: undefined, metricsToken: undefined,
          maxEventLoopDelayMs: 0,
        })
      }
      // Stop accepting first, then wait for in-flight publishes.
      cleanups.push(async () => {
        await ing.drain()
      })
      if (options.listen !== false) {
        const a = await buildApp(appOptions)
        app = a
        cleanups.push(() => closeDraining(a))
        url = await a.listen({ host: config.host, port: config.port })
      }
    }

    if (ownerSocket) {
      const admin = await startAdminSocket(config.dataDir, db, ownerApp, options.ownerSocketPath, url === '' ? undefined : url)
      cleanups.push(() => admin.close())
    }

    let metricsUrl = ''
    if (config.metricsListen !== undefined) {
      const listener = await startMetricsListener(metrics, { ...config.metricsListen, token: config.metricsToken })
      cleanups.push(() => listener.close())
      metricsUrl = listener.url
    }

    let stopped: Promise<void> | null = null
    return {
      config, url, db, store, broker, nats, loader, monitor, deliveries, ingest, app, metrics, metricsUrl, appOptions: appOptions ?? null,
      stop: () => (stopped ??= stopAll()),
    }
  } catch (err) {
    await stopAll().catch(() => undefined)
    throw err
  }
}

/**
 * Closes a Fastify app once its requests in flight have answered. A keep-alive
 * connection that goes idle during the close would hold it open until its
 * timeout, so idle connections are dropped as they appear.
 */
async function closeDraining(app: FastifyInstance, everyMs = 50): Promise<void> {
  const timer = setInterval(() => app.server.closeIdleConnections(), everyMs)
  try {
    await app.close()
  } finally {
    clearInterval(timer)
  }
}
