// Per-kind configuration: one strict JSON schema each (unknown keys refused,
// defaults filled in), plus the checks a schema cannot express. Problems come
// back in Ajv's error shape so the api edge renders them like its own.
import { Ajv, type ErrorObject } from 'ajv'
import { createSecureContext } from 'node:tls'
import { DEFAULT_INTERVAL_SECONDS, DEFAULT_TIMEOUT_SECONDS, type Kind } from './kinds.ts'
import { LOG_PROPERTIES, logConfigProblems, type LogConfig } from './log-config.ts'

export type ConfigIssue = Pick<ErrorObject, 'instancePath' | 'keyword' | 'params' | 'message'> & { data?: unknown }

export type TlsMode = 'disable' | 'prefer' | 'require' | 'verify'

export interface HttpsConfig {
  url: string
  method: string
  headers: Record<string, string>
  body?: string
  status_min: number
  status_max: number
  body_contains?: string
  body_regex?: string
  follow_redirects: boolean
  max_redirects: number
  tls_verify: boolean
  ca?: string
  cert_expiry_warn_days: number
  /** Down (LOOKOUT_PROBE_CERT_EXPIRING) when fewer days are left; absent: never. */
  cert_expiry_alert_days?: number
  credential_header?: string
  ssh?: boolean
}
export interface TcpConfig { host: string; port: number; send?: string; expect?: string; ssh?: boolean }
export interface IcmpConfig { host: string; count: number; max_loss_percent: number; max_rtt_ms?: number }
export interface DbConfig { host: string; port: number; user?: string; database?: string; tls: TlsMode; ca?: string; auth_source?: string; ssh?: boolean }
export interface HeartbeatConfig { grace_seconds: number; missing: 'unhealthy' | 'unknown' }

export type KindConfig = HttpsConfig | TcpConfig | IcmpConfig | DbConfig | HeartbeatConfig | LogConfig

export interface CheckConfig {
  /** The configuration as stored and shown: defaults filled in. */
  stored: Record<string, unknown>
  intervalMs: number
  timeoutMs: number
  /** Heartbeat grace; 0 for other kinds. */
  graceMs: number
}

const LIMITS = { intervalMax: 86_400, timeoutMax: 600 } as const
// A leading '-' would read as a ping option: names start with a letter, digit, '_' or ':'.
const HOST = { type: 'string', minLength: 1, maxLength: 253, pattern: '^[A-Za-z0-9_:][A-Za-z0-9._:%-]*$' } as const
const PORT = { type: 'integer', minimum: 1, maximum: 65535 } as const
const PEM = { type: 'string', minLength: 1, maxLength: 65536 } as const
const TLS = { type: 'string', enum: ['disable', 'require', 'verify'], default: 'disable' } as const
/** Reach the target through an SSH tunnel with the resource's registered key (location neura only; host and port as the SSH server sees them). */
const SSH = { type: 'boolean' } as const
const TIMING = {
  interval_seconds: { type: 'integer', minimum: 1, maximum: LIMITS.intervalMax, default: DEFAULT_INTERVAL_SECONDS },
  timeout_seconds: { type: 'number', exclusiveMinimum: 0, maximum: LIMITS.timeoutMax },
} as const
const HEADER_NAME = '^[!#$%&\'*+.^_`|~0-9A-Za-z-]+$'
// Secrets belong in a credential reference, never in the stored configuration.
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key'])

const obj = (properties: Record<string, object>, required: string[] = []) => ({
  type: 'object', additionalProperties: false, required, properties,
})

const db = (port: number, extra: Record<string, object> = {}) => obj({
  ...TIMING,
  host: HOST,
  port: { ...PORT, default: port },
  user: { type: 'string', minLength: 1, maxLength: 128 },
  database: { type: 'string', minLength: 1, maxLength: 128 },
  tls: TLS,
  ca: PEM,
  ...extra,
}, ['host'])

const tunnelled = (schema: ReturnType<typeof db>) => ({ ...schema, properties: { ...schema.properties, ssh: SSH } })
/** PostgreSQL also takes libpq's `prefer` (TLS when the server offers it, else plain). */
const withPrefer = (schema: ReturnType<typeof db>) => ({ ...schema, properties: { ...schema.properties, tls: { ...TLS, enum: ['disable', 'prefer', 'require', 'verify'] } } })

export const CONFIG_SCHEMAS: Readonly<Record<Kind, object>> = {
  https: obj({
    ...TIMING,
    url: { type: 'string', minLength: 1, maxLength: 2000 },
    method: { type: 'string', enum: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'], default: 'GET' },
    headers: {
      type: 'object', maxProperties: 30, default: {},
      propertyNames: { minLength: 1, maxLength: 100, pattern: HEADER_NAME },
      additionalProperties: { type: 'string', maxLength: 4000 },
    },
    body: { type: 'string', maxLength: 65536 },
    status_min: { type: 'integer', minimum: 100, maximum: 599, default: 200 },
    status_max: { type: 'integer', minimum: 100, maximum: 599, default: 399 },
    body_contains: { type: 'string', minLength: 1, maxLength: 1000 },
    body_regex: { type: 'string', minLength: 1, maxLength: 500 },
    follow_redirects: { type: 'boolean', default: false },
    max_redirects: { type: 'integer', minimum: 1, maximum: 20, default: 5 },
    tls_verify: { type: 'boolean', default: true },
    ca: PEM,
    cert_expiry_warn_days: { type: 'integer', minimum: 0, maximum: 3650, default: 14 },
    cert_expiry_alert_days: { type: 'integer', minimum: 1, maximum: 3650 },
    credential_header: { type: 'string', minLength: 1, maxLength: 100, pattern: HEADER_NAME },
    ssh: SSH,
  }, ['url']),
  tcp: obj({
    ...TIMING,
    host: HOST,
    port: PORT,
    send: { type: 'string', minLength: 1, maxLength: 4096 },
    expect: { type: 'string', minLength: 1, maxLength: 4096 },
    ssh: SSH,
  }, ['host', 'port']),
  icmp: obj({
    ...TIMING,
    host: HOST,
    count: { type: 'integer', minimum: 1, maximum: 10, default: 3 },
    max_loss_percent: { type: 'number', minimum: 0, maximum: 100, default: 50 },
    max_rtt_ms: { type: 'number', exclusiveMinimum: 0, maximum: 600_000 },
  }, ['host']),
  postgresql: tunnelled(withPrefer(db(5432))),
  mysql: tunnelled(db(3306)),
  mariadb: tunnelled(db(3306)),
  redis: tunnelled(db(6379)),
  mongodb: db(27017, { auth_source: { type: 'string', minLength: 1, maxLength: 128, default: 'admin' } }),
  heartbeat: obj({
    interval_seconds: TIMING.interval_seconds,
    grace_seconds: { type: 'integer', minimum: 0, maximum: LIMITS.intervalMax, default: 30 },
    // The desktop spec: "missing heartbeat goes to unknown"; `unhealthy` is the opt-in alerting mode.
    missing: { type: 'string', enum: ['unhealthy', 'unknown'], default: 'unknown' },
  }),
  log: obj({ ...TIMING, ...LOG_PROPERTIES }, ['threshold']),
}

const ajv = new Ajv({ allErrors: true, strict: false, coerceTypes: false, useDefaults: true, verbose: true })
const validators = Object.fromEntries(Object.entries(CONFIG_SCHEMAS).map(([k, s]) => [k, ajv.compile(s)])) as Record<Kind, ReturnType<Ajv['compile']>>

function issue(path: string, message: string, data?: unknown): ConfigIssue {
  return { instancePath: path, keyword: 'value_error', params: {}, message, data }
}

function clip(v: unknown): unknown {
  if (typeof v === 'string') return v.length > 200 ? v.slice(0, 200) + '…' : v
  return v !== null && typeof v === 'object' ? undefined : v
}

/** Validates and normalizes a kind's configuration; the input is not modified. */
export function parseConfig(kind: Kind, input: unknown): { ok: true; config: CheckConfig } | { ok: false; issues: ConfigIssue[] } {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, issues: [{ instancePath: '', keyword: 'type', params: { type: 'object' }, message: 'must be object', data: input }] }
  }
  const c = structuredClone(input) as Record<string, unknown>
  const validate = validators[kind]
  if (!validate(c)) {
    return { ok: false, issues: (validate.errors ?? []).map((e) => ({ instancePath: e.instancePath, keyword: e.keyword, params: e.params, message: e.message, data: clip(e.data) })) }
  }
  const issues: ConfigIssue[] = []
  const interval = c.interval_seconds as number
  if (kind !== 'heartbeat') {
    if (c.timeout_seconds === undefined) c.timeout_seconds = Math.min(DEFAULT_TIMEOUT_SECONDS, interval)
    if ((c.timeout_seconds as number) > interval) issues.push(issue('/timeout_seconds', 'timeout_seconds must not exceed interval_seconds', c.timeout_seconds))
  }
  if (kind === 'https') checkHttps(c as unknown as HttpsConfig, issues)
  if (kind === 'log') for (const [path, msg] of logConfigProblems(c as unknown as LogConfig)) issues.push(issue(path, msg, c[path.slice(1)]))
  // Through a tunnel the driver dials a local socket, so the certificate cannot be checked against the host name.
  if (c.ssh === true && c.tls === 'verify') issues.push(issue('/tls', 'tls verify is not available through an SSH tunnel: use require (the tunnel itself is encrypted to a pinned host key)', c.tls))
  if (typeof c.ca === 'string') {
    try {
      createSecureContext({ ca: c.ca })
    } catch {
      issues.push(issue('/ca', 'ca must be one or more PEM certificates'))
    }
  }
  if (issues.length > 0) return { ok: false, issues }
  const timeoutMs = kind === 'heartbeat' ? 0 : Math.round((c.timeout_seconds as number) * 1000)
  const graceMs = kind === 'heartbeat' ? (c.grace_seconds as number) * 1000 : 0
  return { ok: true, config: { stored: c, intervalMs: interval * 1000, timeoutMs, graceMs } }
}

function checkHttps(c: HttpsConfig, issues: ConfigIssue[]): void {
  let url: URL | null = null
  try {
    url = new URL(c.url)
  } catch {
    issues.push(issue('/url', 'url must be an absolute http:// or https:// URL', clip(c.url)))
  }
  if (url !== null && url.protocol !== 'https:' && url.protocol !== 'http:') issues.push(issue('/url', 'url must use http or https', clip(c.url)))
  if (url !== null && (url.username !== '' || url.password !== '')) issues.push(issue('/url', 'url must not carry credentials: use credential_header and a credential reference'))
  if (c.status_min > c.status_max) issues.push(issue('/status_max', 'status_max must be at least status_min', c.status_max))
  // One tunnel is one connection to one origin: a redirect elsewhere would need another tunnel.
  if (c.ssh === true && c.follow_redirects) issues.push(issue('/follow_redirects', 'redirects are not followed through an SSH tunnel', true))
  if (c.body_regex !== undefined) {
    try {
      new RegExp(c.body_regex)
    } catch {
      issues.push(issue('/body_regex', 'body_regex is not a valid regular expression', c.body_regex))
    }
  }
  for (const name of Object.keys(c.headers)) {
    if (SECRET_HEADERS.has(name.toLowerCase())) issues.push(issue(`/headers/${name}`, `${name} carries a secret: use credential_header with a credential reference`))
  }
}

/** How long an observation stays fresh: past it, the next one starts the confirmation over. */
export function staleAfterMs(intervalMs: number, timeoutMs: number, graceMs: number): number {
  return 2 * intervalMs + timeoutMs + graceMs + 1000
}
