// The api role: the decoder pool, the ingest service, one token verifier, and the
// Fastify apps (the HTTP listener and the owner socket's app) built from one set of options.
import { join } from 'node:path'
import type { FastifyInstance } from 'fastify'
import type { Logger } from 'pino'
import { DecoderPool, DiskGuard, IngestService, type IngestServiceOptions } from '../../ingest/index.ts'
import { buildApp, LISTEN_BACKLOG, readinessChecks, type AppOptions } from '../../api/index.ts'
import { TokenVerifier, ownerResolver } from '../../workspace/index.ts'
import type { LookoutMetrics } from '../../metrics/index.ts'
import type { LookoutConfig } from '../config.ts'
import type { Engines } from './engines.ts'
import type { Cleanups } from './cleanups.ts'
import { drainingClose } from '../close-draining.ts'

const VERSION = '0.1.0'

export interface ApiRoleOptions {
  /** Build the owner socket's app too. */
  ownerSocket: boolean
  /** Start the HTTP listener on config.host:port. */
  listen: boolean
  /** Data directories the engines write into, where a disk reserve is kept. */
  guardedDirs: string[]
  onAccepted?: IngestServiceOptions['onAccepted']
  app?: Pick<AppOptions, 'desktop' | 'gate'>
}

export interface ApiRole {
  ingest: IngestService
  appOptions: AppOptions
  app: FastifyInstance | null
  ownerApp: FastifyInstance | undefined
  url: string
}

export async function startApiRole(
  config: LookoutConfig, engines: Pick<Engines, 'db' | 'store' | 'broker'>, metrics: LookoutMetrics, log: Logger | null, cleanups: Cleanups, opts: ApiRoleOptions,
): Promise<ApiRole> {
  const { db, store, broker } = engines
  const pool = new DecoderPool({ threads: config.workers, maxQueue: config.decodeQueue, idleThreads: config.idleWorkers })
  cleanups.add(() => pool.close())
  // One worker started now (it exits when idle): a decoder that cannot load fails the start, not the first request.
  await pool.warm()
  // Engines writing into the data directory (managed JetStream, chdb): keep a reserve free there.
  const diskGuard = new DiskGuard({ dirs: opts.guardedDirs, minFreeBytes: config.minFreeDiskBytes })
  await diskGuard.start()
  cleanups.add(() => diskGuard.stop())
  metrics.watchPool(pool)
  const ingest = new IngestService(pool, broker, {
    observer: metrics,
    maxInFlightBytes: config.maxInFlightBytes,
    maxDecompressedBytes: config.maxDecompressedBytes,
    retentionDays: config.retentionDays,
    onAccepted: stopAfterPublishes(opts.onAccepted, process.env.LOOKOUT_TEST_STOP_AFTER_PUBLISHES),
    diskGuard,
  })
  metrics.watchIngest(ingest)
  // One verifier for every app of this process (listener, owner socket, desktop loopback):
  // one cache, and on a PostgreSQL server one LISTEN connection. Closed after the apps.
  const tokens = new TokenVerifier(db, { maxEntries: config.tokenCacheSize })
  await tokens.start()
  cleanups.add(() => tokens.close())
  const appOptions: AppOptions = {
    db, ingest, store, broker, retentionDays: config.retentionDays, version: VERSION, maxBodyBytes: config.maxBodyBytes, maxEventLoopDelayMs: config.maxEventLoopDelayMs,
    bodyTimeoutMs: config.bodyTimeoutMs, headersTimeoutMs: config.headersTimeoutMs,
    secretKey: config.secretKey, alerts: config.alerts, tokens, portalFeatures: config.portalFeatures,
    repositories: { cacheDir: join(config.dataDir, 'repositories'), roots: config.repositoryRoots },
    ...(log === null ? { logger: false } : { loggerInstance: log }),
    metrics, metricsToken: config.metricsToken,
    readiness: readinessChecks({ broker, store, db, pool }),
    ...opts.app,
  }
  // The owner socket's app is compiled first: the listener's load shedding samples
  // event-loop delay from its own start, which must not count this compilation.
  let ownerApp: FastifyInstance | undefined
  if (opts.ownerSocket) {
    ownerApp = await buildApp({
      ...appOptions, ownerPrincipal: ownerResolver(db), logger: false, loggerInstance: undefined, metrics: undefined, metricsToken: undefined,
      maxEventLoopDelayMs: 0,
    })
  }
  // Stop accepting first, then wait for in-flight publishes.
  cleanups.add(async () => {
    await ingest.drain()
  })
  let app: FastifyInstance | null = null
  let url = ''
  if (opts.listen) {
    const a = await buildApp(appOptions)
    app = a
    cleanups.add(drainingClose(a))
    url = await a.listen({ host: config.host, port: config.port, backlog: LISTEN_BACKLOG })
  }
  return { ingest, appOptions, app, ownerApp, url }
}

/**
 * A fault tests' trace point (test/faults/api-kill.test.ts): with
 * LOOKOUT_TEST_STOP_AFTER_PUBLISHES=N the process stops itself (SIGSTOP) once its
 * Nth request is durably published and before that request is answered, so a kill
 * lands exactly between publish and answer. Unset (always, outside that test): the hook as given.
 */
function stopAfterPublishes(onAccepted: IngestServiceOptions['onAccepted'], setting: string | undefined): IngestServiceOptions['onAccepted'] {
  if (setting === undefined || setting === '') return onAccepted
  const limit = Number(setting)
  if (!Number.isInteger(limit) || limit < 1) throw new Error(`LOOKOUT_TEST_STOP_AFTER_PUBLISHES must be an integer >= 1, got ${setting}`)
  let published = 0
  return async (batch) => {
    await onAccepted?.(batch)
    if (++published === limit) process.kill(process.pid, 'SIGSTOP')
  }
}
