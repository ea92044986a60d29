// The Fastify application: one encapsulated plugin per route group, schemas
// compiled once at start, errors turned into HTTP by one handler.
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Fastify, { type FastifyBaseLogger, type FastifyInstance, type FastifyReply, type FastifyRequest, type FastifyServerOptions, type RouteOptions } from 'fastify'
import underPressure from '@fastify/under-pressure'
import { type Broker, type IngestService, type LogStore } from '../ingest/index.ts'
import { createAjv } from '../core/index.ts'
import type { Database } from '../core/index.ts'
import { auth, type AuthOptions } from './auth/plugin.ts'
import { TokenVerifier, type TokenVerifierOptions } from '../workspace/index.ts'
import { errorHandler } from './edge/error-handler.ts'
import { clientErrorHandler } from './edge/client-error.ts'
import { bodyDeadline } from './edge/body-deadline.ts'
import { healthRoutes, type ReadinessCheck } from './health.ts'
import { operations } from './operations.ts'
import { withRedaction } from '../core/index.ts'
import { Readiness } from './readiness.ts'
import type { LookoutMetrics } from '../metrics/index.ts'
import { resourceRoutes } from './resources/routes.ts'
import { ingestRoutes } from './logs/ingest-routes.ts'
import { queryRoutes } from './logs/query-routes.ts'
import { monitoringRoutes } from './monitoring/routes.ts'
import { senderRoutes } from './logs/sender-routes.ts'
import { projectRoutes } from './projects/routes/plugin.ts'
import { serviceRoutes } from './services/routes.ts'
import { sshRoutes } from './ssh/routes.ts'
import { repositoryRoutes } from './repository/routes.ts'
import { SshKeyRuntime } from '../workspace/index.ts'
import { identityRoutes } from './identity/routes.ts'
import { alertRoutes } from './alerts/routes.ts'
import type { AlertSettings } from '../alerting/index.ts'
import { notificationRoutes } from './notifications/routes.ts'
import { inboxRoutes } from './notifications/inbox-routes.ts'
import { ackRoutes } from './alerts/ack-routes.ts'
import { notificationFeedRoutes } from './notifications/feed-routes.ts'
import { webhookRoutes } from './webhooks/routes.ts'
import { desktopRoutes } from './desktop/routes.ts'
import { portalRoutes } from './portal/routes.ts'
import { grantRoutes } from './desktop/grant-routes.ts'
import { profileRoutes } from './desktop/profile-routes.ts'
import { loopbackGuard } from '../desktop/index.ts'
import { grantAccess } from './desktop/access-plugin.ts'
import type { DeclaredRoute, DesktopService } from '../desktop/index.ts'
import { sharedWorkspace } from './edge/shared-workspace.ts'
import { serviceGate, type ServiceGate } from './edge/service-gate.ts'
import { requestUsage } from './usage/plugin.ts'
import type { RecorderOptions } from '../workspace/index.ts'
import { CursorCodec, serverSecret } from '../core/index.ts'
import { NotFoundError } from '../core/index.ts'
import { OVERLOADED } from './errors.ts'
import { contractOf, type Contract } from './edge/contract.ts'
import { ConsoleSessions, consolePlugin, sessionPrincipal } from '../console/index.ts'
import { principalById } from '../workspace/index.ts'
import { PipelineSamples } from '../metrics/index.ts'
import { pipelineRoute } from './metrics/pipeline-route.ts'

/**
 * The listen queue of connections the kernel has accepted and the server not yet
 * (the kernel caps it at net.core.somaxconn, 4096 by default). Node's 511 overflowed
 * under test/ingest/flood.test.ts's 2,000 senders at once (10,247 ListenOverflows in
 * one run); past the queue, connections wait on SYN cookies and a few end reset
 * (a sender's ECONNRESET instead of the 429 it would retry).
 */
export const LISTEN_BACKLOG = 4096

/** The edge's defaults; deploy/config.ts reads them for its LOOKOUT_* variables. */
export const APP_DEFAULTS = {
  bodyTimeoutMs: 30_000, headersTimeoutMs: 10_000, maxBodyBytes: 16 * 1024 * 1024, maxEventLoopDelayMs: 1000,
} as const

export interface AppOptions {
  db: Database
  /** Closed by a restore on the running service: every request then answers 503 LOOKOUT_RESTORING (edge/service-gate.ts). */
  gate?: ServiceGate
  ingest: IngestService
  /** The ClickHouse log store, for the query routes. */
  store: LogStore
  /** The broker, for the live log tail (without it the tail routes answer 503). */
  broker?: Broker
  /** Live tails this app serves at once; default 256. */
  maxTails?: number
  /** Days the log store keeps (LOOKOUT_RETENTION_DAYS): the search horizon; default 7. */
  retentionDays?: number
  version?: string
  /** Largest request body as sent; default 16 MiB. */
  maxBodyBytes?: number
  readiness?: readonly ReadinessCheck[]
  /** Contract of the shared OTLP path on this listener; default cloud. */
  otlpContract?: Contract
  ownerPrincipal?: AuthOptions['ownerPrincipal']
  logger?: FastifyServerOptions['logger']
  /** A logger built by the caller (core/logging.ts), shared with the other roles; wins over `logger`. */
  loggerInstance?: FastifyBaseLogger
  /** Process metrics: per-route request metrics are recorded into it. */
  metrics?: LookoutMetrics
  /** LOOKOUT_METRICS_TOKEN: serve GET /metrics on this app behind this bearer token. */
  metricsToken?: string
  /** Event-loop delay (ms) past which requests are shed (429 cloud, 503 desktop); 0 disables. */
  maxEventLoopDelayMs?: number
  /** Longest a request body may take to arrive once the server reads it (then 408 and close); default 30 s. */
  bodyTimeoutMs?: number
  /** Longest its headers may take to arrive; default 10 s. */
  headersTimeoutMs?: number
  /** LOOKOUT_SECRET_KEY (32 bytes): seals SSH private keys at rest; without it they cannot be stored. */
  secretKey?: Buffer
  /** Clones of repository resources (cache directory) and where local repositories may live. */
  repositories?: { cacheDir: string; roots: readonly string[] }
  /** Request recording batch settings (tests). */
  recorder?: RecorderOptions
  /** Verified-token cache (auth/verifier.ts); maxEntries 0 asks the database on every request. Ignored with `tokens`. */
  tokenCache?: TokenVerifierOptions
  /**
   * A verifier shared by the apps of one process (one cache, one LISTEN connection), started
   * and closed by whoever made it; absent: this app makes, starts and closes its own.
   */
  tokens?: TokenVerifier
  /** Alert delivery settings (LOOKOUT_ALLOW_PRIVATE_DESTINATIONS, SMTP, SMS); default: none configured. */
  alerts?: AlertSettings
  /** The desktop service (lookout desktop): its owner-only settings and status routes are served. */
  desktop?: DesktopService
  /** Desktop features this server offers as a portal, answered in X-Service-Desktop-Features (not on a desktop service); default task-taxonomy-v1. */
  portalFeatures?: readonly string[]
  /** The desktop loopback listener: browser and chunked requests refused, a token on every route (desktop/loopback.ts). */
  loopback?: boolean
  /** Serve the web console under / (console/); default: on, except on the owner socket and the desktop loopback listener. */
  console?: boolean
  /** Where the built console lives (tests); default console/dist. */
  consoleDist?: string
}

const ROUTES = new WeakMap<FastifyInstance, () => readonly DeclaredRoute[]>()

/** The routes an app built by buildApp registered (method, pattern, HEAD included, and the access rule each declared). */
export function registeredRoutes(app: FastifyInstance): readonly DeclaredRoute[] {
  return ROUTES.get(app)?.() ?? []
}

// Bodies are judged strictly (no coercion); query strings and paths are text, so coerce.
const bodyAjv = createAjv()
const queryAjv = createAjv({ coerceTypes: 'array' })

// How often Node looks for requests past their timeouts (its default, 30 s, would let a 30 s limit run to 60).
const TIMEOUT_CHECK_MS = 1000
const BACKSTOP_MS = 300_000

export async function buildApp(opts: AppOptions): Promise<FastifyInstance> {
  const bodyTimeout = opts.bodyTimeoutMs ?? APP_DEFAULTS.bodyTimeoutMs
  // Node's whole-request limit is only a backstop: bodies are timed by edge/body-deadline.ts from when they are read.
  const requestTimeout = Math.max(BACKSTOP_MS, 2 * bodyTimeout)
  const headersTimeout = Math.min(opts.headersTimeoutMs ?? APP_DEFAULTS.headersTimeoutMs, requestTimeout)
  const app = Fastify({
    requestTimeout,
    // Headers that trickle in are cut by Node: 408, connection closed (edge/client-error.ts answers).
    http: { headersTimeout, connectionsCheckingInterval: TIMEOUT_CHECK_MS },
    clientErrorHandler: clientErrorHandler(headersTimeout),
    ...(opts.loggerInstance !== undefined ? { loggerInstance: opts.loggerInstance } : withRedaction(opts.logger)),
    bodyLimit: 1024 * 1024,
    requestIdHeader: 'x-request-id',
    genReqId: () => crypto.randomUUID(),
    routerOptions: { ignoreTrailingSlash: true },
    // With a service gate, a request that arrives while the app closes meets the gate (503 in the contract's
    // shape, edge/service-gate.ts) or is served like one in flight (the stores close after the apps), not Fastify's bare 503.
    return503OnClosing: opts.gate === undefined,
  })
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === 'body' ? bodyAjv : queryAjv).compile(schema))
  app.setErrorHandler(errorHandler)
  await app.register(bodyDeadline, { ms: bodyTimeout })
  app.setNotFoundHandler((req) => {
    throw new NotFoundError(`route ${req.method} ${req.url.split('?')[0]}`)
  })
  // First of all: once a restore of the running service is asked for, nothing else is served.
  if (opts.gate !== undefined) await app.register(serviceGate, { gate: opts.gate })
  // A portal (this server as a cloud) tells a desktop which negotiated capabilities it offers.
  const features = opts.desktop === undefined ? (opts.portalFeatures ?? ['task-taxonomy-v1', 'task-batch-v1']).join(', ') : ''
  app.addHook('onSend', async (req, reply) => {
    reply.header('x-request-id', req.id)
    if (features !== '') reply.header('x-service-desktop-features', features)
  })
  // Every route of this app, HEAD included (the desktop route-access test walks them). Their
  // options are read when asked: a later onRoute hook may still add to a route's config (the docs').
  const declared: RouteOptions[] = []
  app.addHook('onRoute', (r) => { declared.push(r) })
  const routes = () => declared.flatMap((r) => [r.method].flat().map((method) => ({ method, url: r.url, access: r.config?.access })))
  ROUTES.set(app, routes)
  // Before anything: the loopback listener's edge refuses browsers, chunked bodies and requests without a token.
  let tokens = opts.tokens
  if (tokens === undefined) {
    const own = new TokenVerifier(opts.db, opts.tokenCache)
    await own.start()
    app.addHook('onClose', () => own.close())
    tokens = own
  }
  if (opts.loopback === true) await app.register(loopbackGuard, { tokens })
  // First: the readiness gate answers before authentication, and OpenAPI and metrics must see every route.
  const readiness = new Readiness(opts.readiness ?? [])
  await app.register(operations, { version: opts.version ?? '0.0.0', readiness, metrics: opts.metrics, metricsToken: opts.metricsToken })
  // The console: its session cookie stands for a token on every route (api/auth/plugin.ts asks it when no bearer is sent).
  const withConsole = opts.console ?? (opts.ownerPrincipal === undefined && opts.loopback !== true)
  const sessions = withConsole ? new ConsoleSessions(opts.db) : null
  const db = opts.db
  // Before authentication: a connected desktop workspace is named by its shared (portal) id too.
  if (opts.loopback === true || opts.desktop !== undefined) await app.register(sharedWorkspace, { db })
  await app.register(auth, {
    db: opts.db, tokens, ownerPrincipal: opts.ownerPrincipal,
    sessionPrincipal: sessions === null ? undefined : sessionPrincipal(sessions, (id) => principalById(db, id)),
  })
  // The desktop service: every grant (token on the listener, act-as on the socket) meets the route-access table.
  if (opts.loopback === true || opts.desktop !== undefined) await app.register(grantAccess, { loopback: opts.loopback === true, routes })
  const cursors = new CursorCodec(await serverSecret(opts.db, 'cursor'))
  // Before the routes: its onResponse hook counts every request.
  await app.register(requestUsage, { db: opts.db, cursors, recorder: opts.recorder })
  // Route groups: one encapsulated plugin each.
  await app.register(healthRoutes, { version: opts.version ?? '0.0.0', readiness })
  await app.register(resourceRoutes, { db: opts.db, cursors })
  await app.register(projectRoutes, { db: opts.db, cursors, desktop: opts.desktop !== undefined })
  await app.register(serviceRoutes, { db: opts.db, cursors, desktop: opts.desktop !== undefined })
  await app.register(sshRoutes, { db: opts.db, secretKey: opts.secretKey })
  await app.register(repositoryRoutes, {
    db: opts.db,
    cacheDir: opts.repositories?.cacheDir ?? join(tmpdir(), 'lookout-repositories'),
    roots: opts.repositories?.roots ?? [],
    // ssh:// repositories use the resource's registered key with the managed runtime's strict client.
    ...(opts.secretKey === undefined ? {} : { runtime: new SshKeyRuntime(opts.db, opts.secretKey) }),
  })
  await app.register(identityRoutes, { db: opts.db, version: opts.version ?? '0.0.0', maxBodyBytes: opts.maxBodyBytes ?? APP_DEFAULTS.maxBodyBytes })
  await app.register(senderRoutes, { db: opts.db })
  await app.register(monitoringRoutes, { db: opts.db, cursors })
  await app.register(alertRoutes, { db: opts.db, settings: opts.alerts })
  const portal = opts.desktop?.portal
  await app.register(notificationRoutes, {
    db: opts.db,
    portal: portal === undefined ? undefined : {
      refresh: (ws) => portal.refreshNotifications(ws), action: (ws, a, id) => portal.notificationAction(ws, a, id), readAll: (ws) => portal.notificationsReadAll(ws),
    },
  })
  await app.register(inboxRoutes, { db: opts.db, cursors })
  await app.register(ackRoutes, { db: opts.db })
  await app.register(webhookRoutes, { db: opts.db, cursors, secretKey: opts.secretKey })
  await app.register(grantRoutes, { db: opts.db })
  if (opts.desktop !== undefined) {
    await app.register(desktopRoutes, { service: opts.desktop })
    await app.register(profileRoutes, { db: opts.db })
    await app.register(portalRoutes, { portal: opts.desktop.portal })
  } else {
    // A portal serves its own inbox to connected desktops.
    await app.register(notificationFeedRoutes, { db: opts.db })
  }
  await app.register(ingestRoutes, {
    db: opts.db,
    ingest: opts.ingest,
    maxBodyBytes: opts.maxBodyBytes ?? APP_DEFAULTS.maxBodyBytes,
    otlpContract: opts.otlpContract ?? 'cloud',
  })
  await app.register(queryRoutes, { db: opts.db, store: opts.store, cursors, broker: opts.broker, maxTails: opts.maxTails, retentionDays: opts.retentionDays })
  const samples = opts.metrics === undefined ? null : new PipelineSamples(opts.metrics, { broker: opts.broker })
  if (samples !== null) {
    samples.start()
    app.addHook('onClose', async () => samples.stop())
  }
  await app.register(pipelineRoute, { samples })
  if (sessions !== null) {
    const verifier = tokens
    await app.register(consolePlugin, {
      sessions, verifyBearer: (b) => verifier.verify(b), workspaceOfToken: async (id) => (await principalById(db, id))?.workspaceId ?? null, dist: opts.consoleDist,
    })
  }
  // Last: its sampling must not count the schema compilation of the routes above.
  const maxDelay = opts.maxEventLoopDelayMs ?? APP_DEFAULTS.maxEventLoopDelayMs
  if (maxDelay > 0) {
    await app.register(underPressure, {
      maxEventLoopDelay: maxDelay,
      retryAfter: 1,
      // Returning the body makes under-pressure send it and stop (its types say void; its code
      // sends a returned value); sending here would let the request run on into a second response.
      pressureHandler: ((req: FastifyRequest, reply: FastifyReply) => overloaded(req, reply)) as never,
    })
  }
  return app
}

/** Load shedding's answer in the route's contract: 429 on the cloud one, 503 on the desktop one, both with Retry-After. */
function overloaded(req: FastifyRequest, reply: FastifyReply): unknown {
  const message = 'the server is overloaded, retry later'
  void reply.header('retry-after', '1')
  if (contractOf(req) === 'cloud') {
    void reply.code(429)
    return { detail: [{ loc: [], msg: message, type: OVERLOADED }] }
  }
  void reply.code(503)
  return { error: { message, code: OVERLOADED } }
}
