// The Fastify application: one encapsulated plugin per route group, schemas
// compiled once at start, errors turned into HTTP by one handler.
import Fastify, { type FastifyInstance, type FastifyServerOptions } from 'fastify'
import underPressure from '@fastify/under-pressure'
import { createAjv, type IngestService, type LogStore } from '../ingest/index.ts'
import type { Database } from './db/index.ts'
import { auth, type AuthOptions } from './auth/plugin.ts'
import { errorHandler } from './edge/error-handler.ts'
import { healthRoutes, type ReadinessCheck } from './health.ts'
import { resourceRoutes } from './resources/routes.ts'
import { ingestRoutes } from './logs/ingest-routes.ts'
import { CursorCodec, serverSecret } from './cursor.ts'
import { NotFoundError } from './errors.ts'
import type { Contract } from './edge/contract.ts'

export interface AppOptions {
  db: Database
  ingest: IngestService
  /** The ClickHouse log store, for the query routes. */
  store: LogStore
  version?: string
  /** Largest request body as sent; default 16 MiB. */
  maxBodyBytes?: number
  readiness?: readonly ReadinessCheck[]
  /** Contract of the shared OTLP path on this listener; default cloud. */
  otlpContract?: Contract
  ownerPrincipal?: AuthOptions['ownerPrincipal']
  logger?: FastifyServerOptions['logger']
  /** Event-loop delay (ms) past which requests are shed with 503; 0 disables. */
  maxEventLoopDelayMs?: number
}

// Bodies are judged strictly (no coercion); query strings and paths are text, so coerce.
const bodyAjv = createAjv()
const queryAjv = createAjv({ coerceTypes: 'array' })

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const app = Fastify({
    logger: opts.logger ?? false,
    bodyLimit: 1024 * 1024,
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
  })
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema))
  app.setErrorHandler(errorHandler)
  app.setNotFoundHandler((req) => {
    throw new NotFoundError(`route ${req.method} ${req.url.split('?')[0]}`)
  })
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id)
  })
  const maxDelay = opts.maxEventLoopDelayMs ?? 1000
  if (maxDelay > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: maxDelay,
      retryAfter: 1,
      pressureHandler: (_req, reply) => {
        void reply.code(503).header('retry-after', '1').send({ error: { message: 'the server is overloaded, retry later', code: 'LOOKOUT_OVERLOADED' } })
      },
    })
  }
  await app.register(auth, { db: opts.db, ownerPrincipal: opts.ownerPrincipal })
  const cursors = new CursorCodec(await serverSecret(opts.db, 'cursor'))
  // Route groups: one encapsulated plugin each.
  await app.register(healthRoutes, { version: opts.version ?? '0.0.0', checks: opts.readiness ?? [] })
  await app.register(resourceRoutes, { db: opts.db, cursors })
  await app.register(ingestRoutes, {
    db: opts.db,
    ingest: opts.ingest,
    maxBodyBytes: opts.maxBodyBytes ?? 16 * 1024 * 1024,
    otlpContract: opts.otlpContract ?? 'cloud',
  })
  return app
}
