// Starts Lookout's roles on the embedded default (managed nats-server, chdb,
// PGlite) or on servers, and stops them in the order that loses nothing.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import {
  Broker, DecoderPool, IngestService, Loader, migrateLogStore, openLogStore, scheduleSizeCap, type LogStore,
} from '../ingest/index.ts'
import { PG_MIGRATIONS, buildApp, migrate, openPglite, openPostgres, ownerResolver, type AppOptions, type Database } from '../api/index.ts'
import type { LookoutConfig } from './config.ts'
import { ManagedNats } from './nats-server.ts'
import { acquireDataDir } from './lock.ts'
import { startAdminSocket } from './admin.ts'

export const ROLES = { api: 'api', loader: 'loader', monitor: 'monitor' } as const
export type Role = (typeof ROLES)[keyof typeof ROLES]
export const ALL_ROLES: readonly Role[] = Object.values(ROLES)

export interface StartOptions {
  roles?: readonly Role[]
  /** Fastify logger options; false for none. */
  logger?: boolean | object
  /** Serve the admin Unix socket (default: yes). */
  adminSocket?: boolean
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
  ingest: IngestService | null
  app: FastifyInstance | null
  stop(): Promise<void>
}

const VERSION = '0.1.0'

export async function startLookout(config: LookoutConfig, options: StartOptions = {}): Promise<Lookout> {
  const roles = new Set(options.roles ?? ALL_ROLES)
  const embedded = config.databaseUrl === undefined || config.clickhouseUrl === undefined
  const release = embedded ? acquireDataDir(config.dataDir) : () => undefined
  const cleanups: (() => Promise<void> | void)[] = [release]
  const stopAll = async () => {
    for (const c of cleanups.reverse()) await c()
  }
  try {
    let nats: ManagedNats | null = null
    let natsUrl = config.natsUrl
    if (natsUrl === undefined) {
      nats = new ManagedNats({ dir: join(config.dataDir, 'nats'), maxFileStore: config.streamMaxBytes * 2 })
      natsUrl = await nats.start()
      const n = nats
      cleanups.push(() => n.stop())
    }
    const broker = new Broker({
      servers: natsUrl.split(','),
      replicas: config.natsReplicas,
      maxBytes: config.streamMaxBytes,
      duplicateWindowMs: config.duplicateWindowMs,
    })
    await broker.start()
    cleanups.push(() => broker.close())

    if (config.clickhouseUrl === undefined) mkdirSync(join(config.dataDir, 'clickhouse'), { recursive: true })
    const store = openLogStore({ url: config.clickhouseUrl, path: join(config.dataDir, 'clickhouse') })
    cleanups.push(() => store.close())
    await migrateLogStore(store, { retentionDays: config.retentionDays, layout: config.clickhouseLayout, cluster: config.clickhouseCluster })

    const db = config.databaseUrl === undefined
      ? await openPglite(join(config.dataDir, 'postgres'))
      : await openPostgres(config.databaseUrl)
    cleanups.push(() => db.close())
    await migrate(db, PG_MIGRATIONS)

    let loader: Loader | null = null
    if (roles.has('loader')) {
      loader = new Loader(broker, store, { maxRows: config.loaderMaxRows, flushMs: config.loaderFlushMs })
      await loader.start()
      const l = loader
      cleanups.push(() => l.stop())
      const stopCap = scheduleSizeCap(store, config.maxLogBytes, 60_000, () => undefined)
      cleanups.push(stopCap)
    }

    let app: FastifyInstance | null = null
    let appOptions: AppOptions | undefined
    let ingest: IngestService | null = null
    let url = ''
    if (roles.has('api')) {
      const pool = new DecoderPool({ threads: config.workers })
      cleanups.push(() => pool.close())
      ingest = new IngestService(pool, broker, {
        maxInFlightBytes: config.maxInFlightBytes,
        maxDecompressedBytes: config.maxDecompressedBytes,
        retentionDays: config.retentionDays,
      })
      const ing = ingest
      appOptions = {
        db, ingest, store, version: VERSION, maxBodyBytes: config.maxBodyBytes,
        logger: options.logger === undefined ? { level: config.logLevel } : options.logger,
        readiness: [
          { name: 'nats', check: async () => !broker.connection.isClosed() },
          { name: 'clickhouse', check: () => store.ping() },
          { name: 'postgresql', check: async () => (await db.query('SELECT 1')).rows.length === 1 },
          { name: 'workers', check: async () => pool.threads > 0 },
        ],
      }
      app = await buildApp(appOptions)
      const a = app
      // Stop accepting first, then wait for in-flight publishes.
      cleanups.push(async () => {
        await ing.drain()
      })
      cleanups.push(() => a.close())
      url = await app.listen({ host: config.host, port: config.port })
    }

    if (options.adminSocket !== false && embedded) {
      const ownerApp = appOptions === undefined ? undefined : await buildApp({ ...appOptions, ownerPrincipal: ownerResolver(db), logger: false })
      const admin = await startAdminSocket(config.dataDir, db, ownerApp)
      cleanups.push(() => admin.close())
    }

    let stopped: Promise<void> | null = null
    return {
      config, url, db, store, broker, nats, loader, ingest, app,
      stop: () => (stopped ??= stopAll()),
    }
  } catch (err) {
    await stopAll().catch(() => undefined)
    throw err
  }
}
