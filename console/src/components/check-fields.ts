// The check form's fields per kind (monitor/config.ts is the authority: the
// API validates, this only lays the keys out), the template a new check starts
// from, and the conversion between the form's text values and `configuration`.
// No DOM here: test/console/check-templates.test.ts runs every template
// through the API's own validator.

export interface Field {
  /** Path in `configuration`, dotted for nested keys (`query.q`). */
  key: string
  label: string
  type: 'text' | 'number' | 'select' | 'checkbox'
  options?: readonly string[]
  placeholder?: string
  wide?: boolean
}

export const SEVERITIES = ['', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const

const INTERVAL: Field = { key: 'interval_seconds', label: 'Every (seconds)', type: 'number', placeholder: '120' }
const TIMEOUT: Field = { key: 'timeout_seconds', label: 'Timeout (seconds)', type: 'number', placeholder: '10' }
const HOST: Field = { key: 'host', label: 'Host', type: 'text', placeholder: 'db.internal' }
const db = (port: number, extra: Field[] = []): Field[] => [
  HOST, { key: 'port', label: 'Port', type: 'number', placeholder: String(port) },
  { key: 'user', label: 'User', type: 'text' }, { key: 'database', label: 'Database', type: 'text' },
  { key: 'tls', label: 'TLS', type: 'select', options: ['disable', 'require', 'verify'] }, ...extra, INTERVAL, TIMEOUT,
]

export const FIELDS: Readonly<Record<string, readonly Field[]>> = {
  https: [
    { key: 'url', label: 'URL', type: 'text', placeholder: 'https://example.com/health', wide: true },
    { key: 'method', label: 'Method', type: 'select', options: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'] },
    { key: 'status_min', label: 'Lowest good status', type: 'number', placeholder: '200' },
    { key: 'status_max', label: 'Highest good status', type: 'number', placeholder: '399' },
    { key: 'body_contains', label: 'Body contains', type: 'text' },
    { key: 'cert_expiry_warn_days', label: 'Show a warning when the certificate expires within (days)', type: 'number', placeholder: '14' },
    { key: 'cert_expiry_alert_days', label: 'Down (alert) when the certificate expires within (days)', type: 'number', placeholder: 'off' },
    { key: 'follow_redirects', label: 'Follow redirects', type: 'checkbox' },
    { key: 'tls_verify', label: 'Verify the certificate', type: 'checkbox' },
    INTERVAL, TIMEOUT,
  ],
  tcp: [HOST, { key: 'port', label: 'Port', type: 'number' }, { key: 'send', label: 'Send', type: 'text' }, { key: 'expect', label: 'Expect', type: 'text' }, INTERVAL, TIMEOUT],
  icmp: [HOST, { key: 'count', label: 'Pings', type: 'number', placeholder: '3' }, { key: 'max_loss_percent', label: 'Most loss (%)', type: 'number', placeholder: '50' },
    { key: 'max_rtt_ms', label: 'Slowest round trip (ms)', type: 'number' }, INTERVAL, TIMEOUT],
  postgresql: db(5432).map((f) => (f.key === 'tls' ? { ...f, options: ['disable', 'prefer', 'require', 'verify'] } : f)),
  mysql: db(3306),
  mariadb: db(3306),
  redis: db(6379),
  mongodb: db(27017, [{ key: 'auth_source', label: 'Auth database', type: 'text', placeholder: 'admin' }]),
  heartbeat: [
    { key: 'interval_seconds', label: 'A beat expected every (seconds)', type: 'number', placeholder: '120' },
    { key: 'grace_seconds', label: 'Grace (seconds)', type: 'number', placeholder: '30' },
    { key: 'missing', label: 'A missed beat makes it', type: 'select', options: ['unhealthy', 'unknown'] },
  ],
  log: [
    { key: 'query.q', label: 'Search (as in the explorer)', type: 'text', placeholder: 'payment declined', wide: true },
    { key: 'query.severity', label: 'Severity (at least)', type: 'select', options: SEVERITIES },
    { key: 'query.trace_id', label: 'Trace id', type: 'text', placeholder: '32 hex digits' },
    { key: 'comparison', label: 'Down when the count is', type: 'select', options: ['above', 'below'] },
    { key: 'threshold', label: 'Threshold (lines)', type: 'number' },
    { key: 'window_seconds', label: 'Window (seconds)', type: 'number', placeholder: '300' },
    { key: 'interval_seconds', label: 'Every (seconds)', type: 'number', placeholder: '60' },
  ],
}
export const KINDS = Object.keys(FIELDS)

export type Values = Record<string, string | boolean>

/** What a new check of each kind starts with: a configuration the API accepts as it is. */
export const TEMPLATES: Readonly<Record<string, Values>> = {
  https: { url: 'https://example.com/health', method: 'GET', tls_verify: true, follow_redirects: false, interval_seconds: '60' },
  tcp: { host: 'db.internal', port: '5432', interval_seconds: '60' },
  icmp: { host: 'gateway.internal', count: '3', interval_seconds: '60' },
  postgresql: { host: 'db.internal', port: '5432', tls: 'disable', interval_seconds: '60' },
  mysql: { host: 'db.internal', port: '3306', tls: 'disable', interval_seconds: '60' },
  mariadb: { host: 'db.internal', port: '3306', tls: 'disable', interval_seconds: '60' },
  redis: { host: 'cache.internal', port: '6379', tls: 'disable', interval_seconds: '60' },
  mongodb: { host: 'mongo.internal', port: '27017', tls: 'disable', interval_seconds: '60' },
  heartbeat: { interval_seconds: '300', grace_seconds: '30', missing: 'unhealthy' },
  log: { 'query.q': '', 'query.severity': '', comparison: 'above', threshold: '0', window_seconds: '300', interval_seconds: '60' },
}

function get(o: Record<string, unknown>, path: string): unknown {
  let cur: unknown = o
  for (const k of path.split('.')) cur = cur !== null && typeof cur === 'object' ? (cur as Record<string, unknown>)[k] : undefined
  return cur
}

function put(o: Record<string, unknown>, path: string, v: unknown): void {
  const keys = path.split('.')
  let cur = o
  for (const k of keys.slice(0, -1)) {
    const next = cur[k]
    cur = (cur[k] = next !== null && typeof next === 'object' && !Array.isArray(next) ? { ...(next as object) } : {}) as Record<string, unknown>
  }
  const last = keys[keys.length - 1] as string
  if (v === undefined) delete cur[last]
  else cur[last] = v
}

/** The form's values from a stored configuration. */
export function valuesOf(kind: string, configuration: Record<string, unknown>): Values {
  const out: Values = {}
  for (const f of FIELDS[kind] ?? []) {
    const v = get(configuration, f.key)
    if (f.type === 'checkbox') out[f.key] = v === true
    else if (v !== undefined && v !== null) out[f.key] = String(v)
  }
  return out
}

/**
 * The configuration to send: `base` (keys the form does not show, e.g. https
 * headers, kept on an edit) with the form's values over it. Empty text leaves the
 * key out (the API fills in its default); a number that does not parse is sent as
 * typed, so the API names it with every other problem at once.
 */
export function configOf(kind: string, values: Values, base: Record<string, unknown> = {}): Record<string, unknown> {
  const out = structuredClone(base)
  for (const f of FIELDS[kind] ?? []) {
    const v = values[f.key]
    if (f.type === 'checkbox') put(out, f.key, v === true)
    else if (typeof v !== 'string' || v.trim() === '') put(out, f.key, undefined)
    else if (f.type === 'number') put(out, f.key, Number.isFinite(Number(v)) ? Number(v) : v)
    else put(out, f.key, v.trim())
  }
  return out
}

/** Which field a 422 item's `loc` points at (`["body","configuration","query","q"]` → `query.q`), or the top-level name. */
export function fieldOfLoc(loc: readonly (string | number)[]): string | null {
  const l = loc[0] === 'body' ? loc.slice(1) : loc
  if (l[0] === 'configuration') return l.length > 1 ? l.slice(1).join('.') : null
  return l.length > 0 ? String(l[0]) : null
}
