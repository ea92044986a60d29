// Starts Lookout's roles on the embedded default (managed nats-server, chdb,
// PGlite) or on servers, and stops them in the order that loses nothing. Each
// role's start is in deploy/roles/; this composes them.
import type { FastifyInstance } from 'fastify'
import type { Broker, IngestService, IngestServiceOptions, Loader, LogStore } from '../ingest/index.ts'
import type { AppOptions } from '../api/index.ts'
import type { Database } from '../core/index.ts'
import { createLogger } from '../core/index.ts'
import { LookoutMetrics, startMetricsListener } from '../metrics/index.ts'
import type { DeliveryWorkerOptions, DeliveryWorkers } from '../alerting/index.ts'
import type { DestinationStream } from 'pino'
import type { Monitor } from '../monitor/index.ts'
import type { LookoutConfig } from './config.ts'
import type { ManagedNats } from './nats-server.ts'
import { acquireDataDir } from './lock.ts'
import { startAdminSocket } from './admin.ts'
import type { LiveRestore } from './backup-live.ts'
import { Cleanups } from './roles/cleanups.ts'
import { applyRetention, startEngines } from './roles/engines.ts'
import { startLoaderRole, startMonitorRole } from './roles/background.ts'
import { startApiRole } from './roles/api.ts'

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
  /** A restore on the running service (deploy/backup-live.ts): its gate in every app, its route on the owner socket. */
  liveRestore?: LiveRestore
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

export async function startLookout(config: LookoutConfig, options: StartOptions = {}): Promise<Lookout> {
  const roles = new Set(options.roles ?? ALL_ROLES)
  const embedded = config.databaseUrl === undefined || config.clickhouseUrl === undefined
  const ownerSocket = options.adminSocket !== false && (embedded || options.ownerSocketPath !== undefined)
  const cleanups = new Cleanups()
  cleanups.add(embedded ? acquireDataDir(config.dataDir) : () => undefined)
  const metrics = new LookoutMetrics()
  // One logger for every role, with the redaction of core/logging.ts.
  const log = options.logger === false ? null : createLogger({
    level: (typeof options.logger === 'object' ? options.logger.level : undefined) ?? config.logLevel,
    stream: options.logStream,
  })
  try {
    const engines = await startEngines(config, cleanups, metrics, log, options.secretKeyFile === true)
    config = engines.config
    const { nats, broker, store, db } = engines
    const prepared = options.prepare === undefined ? {} : await options.prepare(db, config)
    if (prepared.config !== undefined) {
      config = { ...config, ...prepared.config }
      await applyRetention(store, config)
    }
    metrics.watchLogStore(store)
    metrics.watchDatabase(db)

    const loader = roles.has('loader') ? await startLoaderRole(config, broker, store, metrics, cleanups, prepared.sizeCap !== false) : null
    const monitorRole = roles.has('monitor') ? await startMonitorRole(config, db, store, broker, metrics, log, cleanups, options.deliveries) : null
    const api = roles.has('api')
      ? await startApiRole(config, engines, metrics, log, cleanups, {
        ownerSocket, listen: options.listen !== false, guardedDirs: embedded || nats !== null ? [config.dataDir] : [],
        onAccepted: prepared.onAccepted, app: { ...prepared.app, gate: options.liveRestore?.gate },
      })
      : null

    if (ownerSocket) {
      const admin = await startAdminSocket(config.dataDir, db, api?.ownerApp, options.ownerSocketPath, api === null || api.url === '' ? undefined : api.url,
        { dataDir: config.dataDir, db, store, broker, live: options.liveRestore })
      cleanups.add(() => admin.close())
    }

    let metricsUrl = ''
    if (config.metricsListen !== undefined) {
      const listener = await startMetricsListener(metrics, { ...config.metricsListen, token: config.metricsToken })
      cleanups.add(() => listener.close())
      metricsUrl = listener.url
    }

    let stopped: Promise<void> | null = null
    return {
      config, url: api?.url ?? '', db, store, broker, nats, loader, monitor: monitorRole?.monitor ?? null, deliveries: monitorRole?.deliveries ?? null,
      ingest: api?.ingest ?? null, app: api?.app ?? null, metrics, metricsUrl, appOptions: api?.appOptions ?? null,
      stop: () => (stopped ??= cleanups.run()),
    }
  } catch (err) {
    await cleanups.run().catch(() => undefined)
    throw err
  }
}
