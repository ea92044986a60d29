// Database probes: connect, authenticate, run one trivial query, disconnect.
// PostgreSQL through pg, MySQL and MariaDB through mysql2, Redis through the
// redis client (AUTH + PING), MongoDB through the official driver (hello + ping).
// Drivers load on first use; a driver that cannot load is an unavailable adapter.
// The kinds' declarations (DATABASE_KINDS: one runner for all five) are at the end.
import { resolveCredential, redact } from '../credentials.ts'
import { HOST, PEM, PORT, SSH } from '../config-parts.ts'
import { PROBE_REASONS } from '../errors.ts'
import { declareKind, probeAnywhere, type RunnerFactory } from './kind.ts'
import { elapsed, networkFailure, outcome, type Outcome, type ProbeContext, type ProbeTarget, type Runner } from './outcome.ts'
import { remainingMs, throughTunnel } from './tunnel.ts'

export type TlsMode = 'disable' | 'prefer' | 'require' | 'verify'
export interface DbConfig { host: string; port: number; user?: string; database?: string; tls: TlsMode; ca?: string; auth_source?: string; ssh?: boolean }

const AUTH_CODES = new Set([
  '28P01', '28000', // PostgreSQL invalid password / authorization
  'ER_ACCESS_DENIED_ERROR', 'ER_DBACCESS_DENIED_ERROR', 'ER_ACCESS_DENIED_NO_PASSWORD_ERROR',
])
const AUTH_TEXT = /WRONGPASS|NOAUTH|invalid username-password|authentication failed|Authentication failed|AuthenticationFailed|Access denied/

class DeadlineError extends Error {
  readonly code = 'ETIMEDOUT'
}

/** Settles with the work, or rejects at the deadline after starting cleanup. */
function withDeadline<T>(work: Promise<T>, ms: number, cleanup: () => void): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      cleanup()
      reject(new DeadlineError(`no answer within ${ms} ms`))
    }, ms)
  })
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer))
}

function tlsOptions(c: DbConfig): { rejectUnauthorized: boolean; ca?: string } | undefined {
  if (c.tls === 'disable') return undefined
  return c.tls === 'verify' ? { rejectUnauthorized: true, ca: c.ca } : { rejectUnauthorized: false }
}

function failure(err: unknown, timeoutMs: number, latency: number, secret: string | null): Outcome {
  const code = (err as { code?: unknown }).code
  const msg = String((err as { message?: unknown }).message ?? err).split('\n')[0]?.slice(0, 300) ?? ''
  let o: Outcome
  if ((typeof code === 'string' && AUTH_CODES.has(code)) || (err as { code?: unknown }).code === 18 || AUTH_TEXT.test(msg)) {
    o = outcome('down', PROBE_REASONS.auth, `authentication failed: ${msg}`, latency)
  } else if (typeof code === 'string' && /^[0-9A-Z]{5}$/.test(code) && !code.startsWith('E')) {
    o = outcome('down', PROBE_REASONS.query, `${msg} (SQLSTATE ${code})`, latency)
  } else if (typeof code === 'string' && code.startsWith('ER_')) {
    o = outcome('down', PROBE_REASONS.query, `${msg} (${code})`, latency)
  } else {
    o = networkFailure(err, timeoutMs, latency)
    // The Mongo driver wraps the socket error in a selection timeout message.
    if (o.code === PROBE_REASONS.network && /ECONNREFUSED/.test(msg)) o = outcome('down', PROBE_REASONS.refused, msg, latency)
    else if (o.code === PROBE_REASONS.network && /timed out|timeout/i.test(msg)) o = outcome('down', PROBE_REASONS.timeout, msg, latency)
  }
  o.reason = redact(o.reason, secret)
  return o
}

/** Where to dial instead of host:port: the SSH tunnel's Unix socket (its directory for pg). */
interface Via {
  dir: string
  path: string
}

type Driver = (c: DbConfig, password: string | undefined, timeoutMs: number, via?: Via) => Promise<Record<string, unknown>>

// libpq's "prefer": encrypted when the server offers TLS, else plain (the server says so before any credential is sent).
const NO_SSL = /does not support SSL/i

async function postgres(c: DbConfig, password: string | undefined, timeoutMs: number, via?: Via): Promise<Record<string, unknown>> {
  if (c.tls !== 'prefer') return postgresOnce(c, password, timeoutMs, via)
  try {
    return { ...(await postgresOnce({ ...c, tls: 'require' }, password, timeoutMs, via)), tls: true }
  } catch (err) {
    if (!NO_SSL.test(String((err as Error)?.message))) throw err
    return { ...(await postgresOnce({ ...c, tls: 'disable' }, password, timeoutMs, via)), tls: false }
  }
}

async function postgresOnce(c: DbConfig, password: string | undefined, timeoutMs: number, via?: Via): Promise<Record<string, unknown>> {
  const { default: pg } = await import('pg')
  const client = new pg.Client({
    // pg dials <dir>/.s.PGSQL.<port> when host is a directory.
    host: via?.dir ?? c.host, port: c.port, user: c.user, password, database: c.database ?? 'postgres',
    ssl: tlsOptions(c) ?? false, connectionTimeoutMillis: timeoutMs, query_timeout: timeoutMs,
    application_name: 'lookout-monitor',
  })
  client.on('error', () => undefined)
  const work = (async () => {
    await client.connect()
    const r = await client.query<{ version: string }>('SELECT 1 AS ok, current_setting(\'server_version\') AS version')
    return { server_version: r.rows[0]?.version ?? null }
  })()
  try {
    return await withDeadline(work, timeoutMs, () => void client.end().catch(() => undefined))
  } finally {
    void client.end().catch(() => undefined)
  }
}

async function mysql(c: DbConfig, password: string | undefined, timeoutMs: number, via?: Via): Promise<Record<string, unknown>> {
  const { createConnection } = await import('mysql2/promise')
  let conn: Awaited<ReturnType<typeof createConnection>> | null = null
  const work = (async () => {
    conn = await createConnection({
      host: c.host, port: c.port, user: c.user, password, database: c.database,
      connectTimeout: timeoutMs, ssl: tlsOptions(c), ...(via === undefined ? {} : { socketPath: via.path }),
    })
    conn.on('error', () => undefined)
    const [rows] = await conn.query({ sql: 'SELECT 1 AS ok, VERSION() AS version', timeout: timeoutMs })
    return { server_version: (rows as { version?: string }[])[0]?.version ?? null }
  })()
  try {
    return await withDeadline(work, timeoutMs, () => (conn as { destroy(): void } | null)?.destroy())
  } finally {
    (conn as { destroy(): void } | null)?.destroy()
  }
}

async function redis(c: DbConfig, password: string | undefined, timeoutMs: number, via?: Via): Promise<Record<string, unknown>> {
  const { createClient } = await import('redis')
  const tls = tlsOptions(c)
  const client = createClient({
    socket: via !== undefined ? { path: via.path, connectTimeout: timeoutMs, reconnectStrategy: false } : {
      host: c.host, port: c.port, connectTimeout: timeoutMs, reconnectStrategy: false,
      ...(tls === undefined ? {} : { tls: true as const, rejectUnauthorized: tls.rejectUnauthorized, ca: tls.ca }),
    },
    username: c.user, password, disableOfflineQueue: true,
  })
  let lastError: unknown = null
  client.on('error', (e: unknown) => {
    lastError ??= e
  })
  const work = (async () => {
    try {
      await client.connect()
    } catch (err) {
      throw lastError ?? err
    }
    const pong = await client.ping()
    if (pong !== 'PONG') throw Object.assign(new Error(`PING answered ${String(pong).slice(0, 50)}`), { code: 'ER_REDIS_PING' })
    return {}
  })()
  try {
    return await withDeadline(work, timeoutMs, () => client.destroy())
  } finally {
    if (client.isOpen) client.destroy()
  }
}

async function mongodb(c: DbConfig, password: string | undefined, timeoutMs: number): Promise<Record<string, unknown>> {
  const { MongoClient } = await import('mongodb')
  const tls = tlsOptions(c)
  const host = c.host.includes(':') ? `[${c.host}]` : c.host
  const client = new MongoClient(`mongodb://${host}:${c.port}/`, {
    directConnection: true, serverSelectionTimeoutMS: timeoutMs, connectTimeoutMS: timeoutMs, socketTimeoutMS: timeoutMs,
    maxPoolSize: 1, appName: 'lookout-monitor',
    ...(c.user === undefined ? {} : { auth: { username: c.user, password }, authSource: c.auth_source ?? 'admin' }),
    ...(tls === undefined ? {} : { tls: true, tlsAllowInvalidCertificates: !tls.rejectUnauthorized, ...(tls.ca === undefined ? {} : { ca: tls.ca }) }),
  })
  const work = (async () => {
    await client.connect()
    const admin = client.db(c.database ?? 'admin')
    const hello = await admin.command({ hello: 1 })
    await admin.command({ ping: 1 })
    return { server_version: null, primary: hello.isWritablePrimary === true }
  })()
  try {
    return await withDeadline(work, timeoutMs, () => void client.close(true).catch(() => undefined))
  } finally {
    void client.close(true).catch(() => undefined)
  }
}

const DRIVERS = new Map<string, Driver>([['postgresql', postgres], ['mysql', mysql], ['mariadb', mysql], ['redis', redis], ['mongodb', mongodb]])
const NEEDS_USER = new Set(['postgresql', 'mysql', 'mariadb'])

export class DatabaseRunner implements Runner {
  async run(target: ProbeTarget, ctx: ProbeContext): Promise<Outcome> {
    const c = target.config as unknown as DbConfig
    const driver = DRIVERS.get(target.kind)
    if (driver === undefined) return outcome('unknown', PROBE_REASONS.adapter, `no database adapter for ${target.kind}`)
    if (NEEDS_USER.has(target.kind) && c.user === undefined) return outcome('unknown', PROBE_REASONS.credential, `${target.kind} needs configuration.user`)
    let secret: string | null = null
    if (target.credential !== null) {
      const r = await resolveCredential(target.credential, ctx.credentials)
      if (!r.ok) return outcome('unknown', PROBE_REASONS.credential, r.reason)
      secret = r.secret
    }
    const start = performance.now()
    const tunnel = await throughTunnel(target, ctx, `.s.PGSQL.${c.port}`)
    if (tunnel !== null && !tunnel.ok) return tunnel.outcome
    const timeoutMs = tunnel === null ? target.timeoutMs : remainingMs(target, tunnel.tunnelMs)
    let details: Record<string, unknown>
    try {
      details = await driver(c, secret ?? undefined, timeoutMs, tunnel === null ? undefined : tunnel.bridge)
    } catch (err) {
      if ((err as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') {
        return outcome('unknown', PROBE_REASONS.adapter, `the ${target.kind} driver cannot be loaded`)
      }
      return failure(err, timeoutMs, elapsed(start), secret)
    } finally {
      tunnel?.bridge.close()
    }
    const ms = elapsed(start)
    if (tunnel !== null) details = { ...details, ssh_tunnel_ms: tunnel.tunnelMs }
    return outcome('up', PROBE_REASONS.ok, `connected and queried in ${Math.round(ms)} ms${tunnel === null ? '' : ' through the SSH tunnel'}`, ms, details)
  }
}

const TLS = { type: 'string', enum: ['disable', 'require', 'verify'], default: 'disable' } as const

const keys = (port: number) => ({
  host: HOST,
  port: { ...PORT, default: port },
  user: { type: 'string', minLength: 1, maxLength: 128 },
  database: { type: 'string', minLength: 1, maxLength: 128 },
  tls: TLS,
  ca: PEM,
})

// One runner for the five kinds: one pool of drivers (kinds declaring one factory share its runner).
const sharedRunner: RunnerFactory = () => new DatabaseRunner()

export const DATABASE_KINDS = [
  declareKind({
    name: 'postgresql', spec: probeAnywhere(32), required: ['host'], runner: sharedRunner,
    // PostgreSQL also takes libpq's `prefer` (TLS when the server offers it, else plain).
    properties: { ...keys(5432), tls: { ...TLS, enum: ['disable', 'prefer', 'require', 'verify'] }, ssh: SSH },
  }),
  declareKind({ name: 'mysql', spec: probeAnywhere(32), required: ['host'], runner: sharedRunner, properties: { ...keys(3306), ssh: SSH } }),
  declareKind({ name: 'mariadb', spec: probeAnywhere(32), required: ['host'], runner: sharedRunner, properties: { ...keys(3306), ssh: SSH } }),
  declareKind({ name: 'redis', spec: probeAnywhere(64), required: ['host'], runner: sharedRunner, properties: { ...keys(6379), ssh: SSH } }),
  declareKind({
    name: 'mongodb', spec: probeAnywhere(32), required: ['host'], runner: sharedRunner,
    properties: { ...keys(27017), auth_source: { type: 'string', minLength: 1, maxLength: 128, default: 'admin' } },
  }),
] as const
