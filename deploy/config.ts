// Configuration from the environment, validated once at start with messages
// that name the variable.
import { join, resolve } from 'node:path'
import { availableParallelism, homedir } from 'node:os'
import { alertSettings, type AlertSettings } from '../alerting/index.ts'
import { BROKER_DEFAULTS, INGEST_DEFAULTS, LOADER_DEFAULTS } from '../ingest/index.ts'
import { APP_DEFAULTS } from '../api/index.ts'
import { ConfigError } from './errors.ts'

export interface LookoutConfig {
  host: string
  port: number
  dataDir: string
  clickhouseUrl: string | undefined
  natsUrl: string | undefined
  databaseUrl: string | undefined
  retentionDays: number
  maxLogBytes: number
  maxBodyBytes: number
  maxDecompressedBytes: number
  maxInFlightBytes: number
  workers: number
  idleWorkers: number
  loaderMaxRows: number
  /** Rows a loader batch reaches before the flush time cuts it while a backlog waits; 0 = fixed flush time. */
  loaderMinRows: number
  loaderMaxBytes: number
  loaderFlushMs: number
  streamMaxBytes: number
  /** Free space the data directory keeps (embedded engines); below it ingestion answers 503. 0 disables. */
  minFreeDiskBytes: number
  natsReplicas: number
  /** JetStream duplicate window and how long an Idempotency-Key is remembered. */
  duplicateWindowMs: number
  /** Decode tasks waiting for a worker; past it ingestion answers 429/503. */
  decodeQueue: number
  /** Longest a request body may take to arrive once the server reads it; then 408 and the connection closes. */
  bodyTimeoutMs: number
  /** Longest the request headers may take to arrive. */
  headersTimeoutMs: number
  logLevel: string
  /** Event-loop delay (ms) past which requests are shed with 503; 0 disables. */
  maxEventLoopDelayMs: number
  /** Verified tokens kept in memory (workspace/identity/verifier.ts); 0: a token query on every request. */
  tokenCacheSize: number
  /** LOOKOUT_CACHE_DIR: this user's cache (an initialized PGlite cluster for fresh data directories); undefined: none. */
  cacheDir: string | undefined
  clickhouseLayout: 'single' | 'cluster'
  clickhouseCluster: string
  /** AES-256-GCM key for secrets at rest (SSH keys); undefined: secret writes are refused. */
  secretKey: Buffer | undefined
  /** Desktop features this server offers as a portal (X-Service-Desktop-Features); LOOKOUT_PORTAL_FEATURES, `none` for none. */
  portalFeatures: string[]
  /** The desktop service's portal sync round interval. */
  portalSyncMs: number
  /** Directories under which repository resources may name a local git repository. */
  repositoryRoots: string[]
  /** Collectors: shortest silence after which a collector is offline (its checks unknown, one incident). */
  collectorSilenceMinMs: number
  /** Collectors: how often the monitor role looks for silent collectors. */
  collectorWatchMs: number
  /** LOOKOUT_METRICS_TOKEN: GET /metrics on the API listener, behind this bearer token. */
  metricsToken: string | undefined
  /** LOOKOUT_METRICS_LISTEN (host:port): GET /metrics on a listener of its own, in every role. */
  metricsListen: { host: string; port: number } | undefined
  /** Alert delivery: LOOKOUT_ALLOW_PRIVATE_DESTINATIONS, LOOKOUT_SMTP_URL/_FROM, LOOKOUT_SMS_URL/_TOKEN (alerting/alerts/README.md). */
  alerts: AlertSettings
  /** LOOKOUT_ENGINE_MAX_MEMORY_BYTES: the embedded engine's memory ceiling (max_server_memory_usage); 0: the engine's own (90 % of RAM). */
  engineMaxMemoryBytes: number
}

type Env = Record<string, string | undefined>

function int(env: Env, name: string, dflt: number, min: number, max = Number.MAX_SAFE_INTEGER): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return dflt
  const v = Number(raw)
  if (!Number.isInteger(v) || v < min || v > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got ${JSON.stringify(raw)}`)
  return v
}

function url(env: Env, name: string, schemes: readonly string[]): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  for (const part of raw.split(',')) {
    let u: URL
    try {
      u = new URL(part.trim())
    } catch {
      throw new ConfigError(`${name} must be a URL (${schemes.join(', ')}), got an unparsable value`)
    }
    if (!schemes.includes(u.protocol.replace(':', ''))) throw new ConfigError(`${name} must use ${schemes.join(' or ')}, got ${u.protocol}`)
  }
  return raw
}

const MiB = 1024 * 1024

/** 32 bytes as 64 hex digits or base64 (standard or url-safe). */
function secretKey(env: Env, name: string): Buffer | undefined {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return undefined
  const key = /^[0-9a-fA-F]{64}$/.test(raw) ? Buffer.from(raw, 'hex')
    : /^[A-Za-z0-9+/_-]{43}=?$/.test(raw) ? Buffer.from(raw, raw.includes('-') || raw.includes('_') ? 'base64url' : 'base64')
      : undefined
  if (key === undefined || key.length !== 32) throw new ConfigError(`${name} must be 32 bytes as 64 hex digits or base64 (openssl rand -base64 32)`)
  return key
}

const KNOWN_PORTAL_FEATURES = ['task-taxonomy-v1', 'task-batch-v1']

function portalFeatures(env: Env, name: string): string[] {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return [...KNOWN_PORTAL_FEATURES]
  if (raw === 'none') return []
  const list = raw.split(',').map((s) => s.trim()).filter((s) => s !== '')
  for (const f of list) if (!KNOWN_PORTAL_FEATURES.includes(f)) throw new ConfigError(`${name}: unknown feature ${f} (known: ${KNOWN_PORTAL_FEATURES.join(', ')}, or none)`)
  return list
}

function metricsToken(env: Env, name: string): string | undefined {
  const raw = env[name]
  if (raw === undefined || raw === '') return undefined
  if (!/^[\x21-\x7e]{16,256}$/.test(raw)) throw new ConfigError(`${name} must be 16 to 256 printable characters without spaces (openssl rand -hex 32)`)
  return raw
}

/** host:port, [v6]:port or :port (all interfaces). */
function listenAddress(env: Env, name: string): { host: string; port: number } | undefined {
  const raw = env[name]?.trim()
  if (raw === undefined || raw === '') return undefined
  const m = /^(?:\[([0-9a-fA-F:.]+)\]|([^:\s]*)):(\d{1,5})$/.exec(raw)
  const port = Number(m?.[3])
  if (m === null || !(port >= 0 && port <= 65535)) throw new ConfigError(`${name} must be host:port (e.g. 127.0.0.1:9464), got ${JSON.stringify(raw)}`)
  return { host: m[1] ?? (m[2] || '0.0.0.0'), port }
}

export function loadConfig(env: Env = process.env): LookoutConfig {
  const host = env.LOOKOUT_HOST || '127.0.0.1'
  const layout = env.LOOKOUT_CLICKHOUSE_LAYOUT || 'single'
  if (layout !== 'single' && layout !== 'cluster') throw new ConfigError('LOOKOUT_CLICKHOUSE_LAYOUT must be single or cluster')
  const clickhouseUrl = url(env, 'CLICKHOUSE_URL', ['http', 'https'])
  return {
    host,
    port: int(env, 'LOOKOUT_PORT', 8080, 0, 65535),
    dataDir: resolve(env.LOOKOUT_DATA_DIR || './data'),
    clickhouseUrl,
    natsUrl: url(env, 'NATS_URL', ['nats', 'tls', 'ws', 'wss']),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres', 'postgresql']),
    retentionDays: int(env, 'LOOKOUT_RETENTION_DAYS', INGEST_DEFAULTS.retentionDays, 1, 3650),
    maxLogBytes: int(env, 'LOOKOUT_MAX_LOG_BYTES', 1024 * MiB, 1 * MiB),
    maxBodyBytes: int(env, 'LOOKOUT_MAX_BODY_BYTES', APP_DEFAULTS.maxBodyBytes, 1024, 1024 * MiB),
    maxDecompressedBytes: int(env, 'LOOKOUT_MAX_DECOMPRESSED_BYTES', INGEST_DEFAULTS.maxDecompressedBytes, 1024, 1024 * MiB),
    maxInFlightBytes: int(env, 'LOOKOUT_MAX_INFLIGHT_BYTES', INGEST_DEFAULTS.maxInFlightBytes, 1 * MiB),
    workers: int(env, 'LOOKOUT_WORKERS', defaultWorkers(clickhouseUrl === undefined ? 'embedded' : 'server'), 1, 256),
    idleWorkers: int(env, 'LOOKOUT_IDLE_WORKERS', 0, 0, 256),
    loaderMaxRows: int(env, 'LOOKOUT_LOADER_MAX_ROWS', LOADER_DEFAULTS.maxRows, 1),
    loaderMaxBytes: int(env, 'LOOKOUT_LOADER_MAX_BYTES', LOADER_DEFAULTS.maxBytes, 1 * MiB, 1024 * MiB),
    loaderFlushMs: int(env, 'LOOKOUT_LOADER_FLUSH_MS', LOADER_DEFAULTS.flushMs, 10, 60_000),
    loaderMinRows: int(env, 'LOOKOUT_LOADER_MIN_ROWS', LOADER_DEFAULTS.minRows, 0),
    streamMaxBytes: int(env, 'LOOKOUT_STREAM_MAX_BYTES', BROKER_DEFAULTS.maxBytes, 1 * MiB),
    minFreeDiskBytes: int(env, 'LOOKOUT_MIN_FREE_DISK_BYTES', 512 * MiB, 0),
    natsReplicas: int(env, 'LOOKOUT_NATS_REPLICAS', BROKER_DEFAULTS.replicas, 1, 5),
    duplicateWindowMs: int(env, 'LOOKOUT_DUPLICATE_WINDOW_MS', BROKER_DEFAULTS.duplicateWindowMs, 1000),
    decodeQueue: int(env, 'LOOKOUT_DECODE_QUEUE', 256, 1, 1_000_000),
    ...requestTimeouts(env),
    logLevel: env.LOOKOUT_LOG_LEVEL || 'info',
    maxEventLoopDelayMs: int(env, 'LOOKOUT_MAX_EVENT_LOOP_DELAY_MS', APP_DEFAULTS.maxEventLoopDelayMs, 0, 60_000),
    tokenCacheSize: int(env, 'LOOKOUT_TOKEN_CACHE_SIZE', 10_000, 0, 10_000_000),
    cacheDir: cacheDir(env),
    clickhouseLayout: layout,
    clickhouseCluster: env.LOOKOUT_CLICKHOUSE_CLUSTER || 'lookout',
    secretKey: secretKey(env, 'LOOKOUT_SECRET_KEY'),
    portalFeatures: portalFeatures(env, 'LOOKOUT_PORTAL_FEATURES'),
    portalSyncMs: int(env, 'LOOKOUT_PORTAL_SYNC_MS', 30_000, 100, 3_600_000),
    repositoryRoots: (env.LOOKOUT_REPOSITORY_ROOTS ?? '').split(':').filter((d) => d !== '').map((d) => resolve(d)),
    collectorSilenceMinMs: int(env, 'LOOKOUT_COLLECTOR_SILENCE_MIN_SECONDS', 60, 1, 86_400) * 1000,
    collectorWatchMs: int(env, 'LOOKOUT_COLLECTOR_WATCH_MS', 5000, 100, 600_000),
    metricsToken: metricsToken(env, 'LOOKOUT_METRICS_TOKEN'),
    metricsListen: listenAddress(env, 'LOOKOUT_METRICS_LISTEN'),
    alerts: configured(() => alertSettings(env)),
    engineMaxMemoryBytes: engineMaxMemory(env),
  }
}

function requestTimeouts(env: Env): { bodyTimeoutMs: number; headersTimeoutMs: number } {
  const bodyTimeoutMs = int(env, 'LOOKOUT_BODY_TIMEOUT_MS', APP_DEFAULTS.bodyTimeoutMs, 1000, 3_600_000)
  const headersTimeoutMs = int(env, 'LOOKOUT_HEADERS_TIMEOUT_MS', APP_DEFAULTS.headersTimeoutMs, 1000, 300_000)
  return { bodyTimeoutMs, headersTimeoutMs }
}

function cacheDir(env: Env): string | undefined {
  const raw = env.LOOKOUT_CACHE_DIR
  if (raw === 'off') return undefined
  if (raw !== undefined && raw !== '') return resolve(raw)
  // The test helpers pass an environment without HOME: the process's home is still this user's.
  return join(env.XDG_CACHE_HOME || join(env.HOME || homedir(), '.cache'), 'lookout')
}

/** 0 (the engine's default) or at least 128 MiB: one insert of a 32 MiB loader batch needs several times that. */
function engineMaxMemory(env: Env): number {
  const v = int(env, 'LOOKOUT_ENGINE_MAX_MEMORY_BYTES', 0, 0)
  if (v !== 0 && v < 128 * MiB) throw new ConfigError(`LOOKOUT_ENGINE_MAX_MEMORY_BYTES must be 0 or at least ${128 * MiB}, got ${v}`)
  return v
}

function configured<T>(read: () => T): T {
  try {
    return read()
  } catch (err) {
    throw new ConfigError((err as Error).message)
  }
}

/**
 * Decoder workers by default: one per core, but one core fewer when the log
 * engine runs in this process. There the engine's inserts and merges need a
 * core of their own: on two cores one decoder acknowledges about 100k events/s,
 * above what the engine stores, and stores as fast as two with less memory
 * (bench/e2e README, "one decoder beside the embedded engine").
 */
export function defaultWorkers(engine: 'embedded' | 'server', cores: number = availableParallelism()): number {
  return Math.max(1, engine === 'embedded' ? cores - 1 : cores)
}
