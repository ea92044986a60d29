// Configuration from the environment, validated once at start with messages
// that name the variable.
import { resolve } from 'node:path'
import { availableParallelism } from 'node:os'

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
  loaderMaxRows: number
  loaderFlushMs: number
  streamMaxBytes: number
  natsReplicas: number
  duplicateWindowMs: number
  logLevel: string
  clickhouseLayout: 'single' | 'cluster'
  clickhouseCluster: string
}

export class ConfigError extends Error {
  readonly code = 'LOOKOUT_CONFIG'
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

export function loadConfig(env: Env = process.env): LookoutConfig {
  const host = env.LOOKOUT_HOST || '127.0.0.1'
  const layout = env.LOOKOUT_CLICKHOUSE_LAYOUT || 'single'
  if (layout !== 'single' && layout !== 'cluster') throw new ConfigError('LOOKOUT_CLICKHOUSE_LAYOUT must be single or cluster')
  return {
    host,
    port: int(env, 'LOOKOUT_PORT', 8080, 0, 65535),
    dataDir: resolve(env.LOOKOUT_DATA_DIR || './data'),
    clickhouseUrl: url(env, 'CLICKHOUSE_URL', ['http', 'https']),
    natsUrl: url(env, 'NATS_URL', ['nats', 'tls', 'ws', 'wss']),
    databaseUrl: url(env, 'DATABASE_URL', ['postgres', 'postgresql']),
    retentionDays: int(env, 'LOOKOUT_RETENTION_DAYS', 7, 1, 3650),
    maxLogBytes: int(env, 'LOOKOUT_MAX_LOG_BYTES', 1024 * MiB, 1 * MiB),
    maxBodyBytes: int(env, 'LOOKOUT_MAX_BODY_BYTES', 16 * MiB, 1024, 1024 * MiB),
    maxDecompressedBytes: int(env, 'LOOKOUT_MAX_DECOMPRESSED_BYTES', 64 * MiB, 1024, 1024 * MiB),
    maxInFlightBytes: int(env, 'LOOKOUT_MAX_INFLIGHT_BYTES', 256 * MiB, 1 * MiB),
    workers: int(env, 'LOOKOUT_WORKERS', Math.max(1, availableParallelism()), 1, 256),
    loaderMaxRows: int(env, 'LOOKOUT_LOADER_MAX_ROWS', 50_000, 1),
    loaderFlushMs: int(env, 'LOOKOUT_LOADER_FLUSH_MS', 500, 10, 60_000),
    streamMaxBytes: int(env, 'LOOKOUT_STREAM_MAX_BYTES', 8 * 1024 * MiB, 1 * MiB),
    natsReplicas: int(env, 'LOOKOUT_NATS_REPLICAS', 1, 1, 5),
    duplicateWindowMs: int(env, 'LOOKOUT_DUPLICATE_WINDOW_MS', 120_000, 1000),
    logLevel: env.LOOKOUT_LOG_LEVEL || 'info',
    clickhouseLayout: layout,
    clickhouseCluster: env.LOOKOUT_CLICKHOUSE_CLUSTER || 'lookout',
  }
}
