// HTTP(S) probe on undici: a fresh connection per probe (so every run sees the
// certificate the server presents now), status range, optional body match,
// redirects policy, and the certificate's expiry reported with a warning window.
// The kind's declaration (HTTPS_KIND: schema, checks, runner) is at the end.
import { Agent, Client, buildConnector, interceptors, request, type Dispatcher } from 'undici'
import { TLSSocket, checkServerIdentity, createSecureContext, type PeerCertificate, type SecureContext } from 'node:tls'
import type { Socket } from 'node:net'
import { resolveCredential, redact } from '../credentials.ts'
import { PEM, SSH, clip, issue, type ConfigIssue } from '../config-parts.ts'
import { PROBE_REASONS } from '../errors.ts'
import { declareKind, probeAnywhere } from './kind.ts'
import { elapsed, networkFailure, outcome, type Outcome, type ProbeContext, type ProbeTarget, type Runner } from './outcome.ts'
import { remainingMs, throughTunnel } from './tunnel.ts'

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

const BODY_MATCH_BYTES = 64 * 1024
const DAY_MS = 86_400_000
const CONTEXTS_MAX = 256

// Building a TLS context (parsing the trust store) costs more than the handshake itself: one per CA, reused.
const contexts = new Map<string, SecureContext>()
function secureContext(ca: string | undefined): SecureContext {
  const key = ca ?? ''
  let ctx = contexts.get(key)
  if (ctx === undefined) {
    ctx = createSecureContext(ca === undefined ? {} : { ca })
    if (contexts.size >= CONTEXTS_MAX) contexts.delete(contexts.keys().next().value as string)
    contexts.set(key, ctx)
  }
  return ctx
}

class TlsVerifyError extends Error {
  readonly code: string
  constructor(code: string) {
    super(`certificate verification failed: ${code}`)
    this.code = code
  }
}

/** One probe's connection: verifies the peer itself so the certificate is known even when it is refused. */
class ProbeConnection {
  cert: PeerCertificate | null = null
  authorizationError: string | null = null
  readonly #base: buildConnector.connector
  readonly #verify: boolean

  constructor(verify: boolean, ca: string | undefined, timeoutMs: number, socketPath?: string) {
    this.#verify = verify
    // No session cache: every probe does a full handshake and sees the certificate served now.
    // Through an SSH tunnel it dials the tunnel's socket; TLS still names and verifies the URL's host.
    this.#base = buildConnector({
      rejectUnauthorized: false, secureContext: secureContext(ca), timeout: timeoutMs, maxCachedSessions: 0, ...(socketPath === undefined ? {} : { socketPath }),
      // Node reads the peer certificate to check the host name (after a verified chain): keep that
      // copy rather than converting the certificate a second time (a tenth of a probe's CPU).
      checkServerIdentity: (host: string, cert: PeerCertificate) => {
        if (cert !== null && typeof cert === 'object' && 'valid_to' in cert) this.cert ??= cert
        return checkServerIdentity(host, cert)
      },
    })
    this.connect = this.connect.bind(this)
  }

  connect(opts: buildConnector.Options, cb: buildConnector.Callback): void {
    this.#base(opts, (err, socket) => {
      if (err !== null || socket === null) return cb(err ?? new Error('connect failed'), null)
      if (socket instanceof TLSSocket) {
        // Not read by Node when the chain failed verification: read it here.
        const cert = this.cert ?? socket.getPeerCertificate()
        if (cert !== null && typeof cert === 'object' && 'valid_to' in cert) this.cert ??= cert
        if (!socket.authorized) {
          this.authorizationError ??= String(socket.authorizationError ?? 'UNKNOWN')
          if (this.#verify) {
            socket.destroy()
            return cb(new TlsVerifyError(this.authorizationError), null)
          }
        }
      }
      cb(null, socket as Socket)
    })
  }
}

function certDetails(cert: PeerCertificate, now: number, warnDays: number): Record<string, unknown> {
  const expires = Date.parse(cert.valid_to)
  const daysLeft = Math.floor((expires - now) / DAY_MS)
  const d: Record<string, unknown> = {
    cert_subject: cert.subject?.CN ?? null,
    cert_issuer: cert.issuer?.CN ?? null,
    cert_expires_at: Number.isFinite(expires) ? new Date(expires).toISOString() : null,
    cert_days_left: Number.isFinite(daysLeft) ? daysLeft : null,
    cert_fingerprint256: cert.fingerprint256 ?? null,
  }
  if (expires < now) d.cert_warning = 'the certificate has expired'
  else if (daysLeft < warnDays) d.cert_warning = `the certificate expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'}`
  return d
}

async function readPrefix(body: Dispatcher.ResponseData['body'], limit: number): Promise<string> {
  const chunks: Buffer[] = []
  let size = 0
  for await (const chunk of body) {
    const b = chunk as Buffer
    chunks.push(b)
    size += b.byteLength
    if (size >= limit) break
  }
  body.destroy()
  return Buffer.concat(chunks).subarray(0, limit).toString('utf8')
}

export class HttpsRunner implements Runner {
  async run(target: ProbeTarget, ctx: ProbeContext): Promise<Outcome> {
    const c = target.config as unknown as HttpsConfig
    const headers: Record<string, string> = { 'user-agent': 'lookout-monitor/1', ...c.headers }
    let secret: string | null = null
    if (c.credential_header !== undefined) {
      if (target.credential === null) return outcome('unknown', PROBE_REASONS.credential, `credential_header ${c.credential_header} needs a credential reference`)
      const r = await resolveCredential(target.credential, ctx.credentials)
      if (!r.ok) return outcome('unknown', PROBE_REASONS.credential, r.reason)
      secret = r.secret
      headers[c.credential_header.toLowerCase()] = secret
    }
    const url = new URL(c.url)
    const tunnel = await throughTunnel(target, ctx, 'https', { host: url.hostname.replace(/^\[|\]$/g, ''), port: Number(url.port || (url.protocol === 'https:' ? 443 : 80)) })
    if (tunnel !== null && !tunnel.ok) return tunnel.outcome
    try {
      if (tunnel === null) return await this.#probe(target, ctx, c, headers, secret)
      // The probe's timeout covers the tunnel too: the request gets what is left.
      const o = await this.#probe({ ...target, timeoutMs: remainingMs(target, tunnel.tunnelMs) }, ctx, c, headers, secret, tunnel.bridge.path)
      return { ...o, details: { ...o.details, ssh_tunnel_ms: tunnel.tunnelMs } }
    } finally {
      tunnel?.bridge.close()
    }
  }

  async #probe(target: ProbeTarget, ctx: ProbeContext, c: HttpsConfig, headers: Record<string, string>, secret: string | null, socketPath?: string): Promise<Outcome> {
    const conn = new ProbeConnection(c.tls_verify, c.ca, target.timeoutMs, socketPath)
    // One origin needs only a Client; following redirects may change origin and needs an Agent.
    const base: Agent | Client = c.follow_redirects
      ? new Agent({ connect: conn.connect, keepAliveTimeout: 1, keepAliveMaxTimeout: 1, connections: 1 })
      : new Client(new URL(c.url).origin, { connect: conn.connect, keepAliveTimeout: 1, keepAliveMaxTimeout: 1 })
    const dispatcher: Dispatcher = c.follow_redirects ? base.compose(interceptors.redirect({ maxRedirections: c.max_redirects })) : base
    const start = performance.now()
    const signal = AbortSignal.timeout(target.timeoutMs)
    let failed = true
    try {
      const res = await request(c.url, {
        dispatcher, method: c.method as Dispatcher.HttpMethod, headers, body: c.body, signal,
        headersTimeout: target.timeoutMs, bodyTimeout: target.timeoutMs,
      })
      const needBody = c.body_contains !== undefined || c.body_regex !== undefined
      const text = needBody ? await readPrefix(res.body, BODY_MATCH_BYTES) : ''
      if (!needBody) await res.body.dump({ limit: BODY_MATCH_BYTES }).catch(() => undefined)
      failed = false
      const latency = elapsed(start)
      const details: Record<string, unknown> = { status_code: res.statusCode }
      if (conn.cert !== null) Object.assign(details, certDetails(conn.cert, ctx.now, c.cert_expiry_warn_days))
      if (conn.authorizationError !== null) details.tls_error = conn.authorizationError
      if (res.statusCode < c.status_min || res.statusCode > c.status_max) {
        return outcome('down', PROBE_REASONS.status, `HTTP ${res.statusCode}, expected ${c.status_min}-${c.status_max}`, latency, details)
      }
      if (c.body_contains !== undefined && !text.includes(c.body_contains)) {
        return outcome('down', PROBE_REASONS.body, `the body does not contain ${JSON.stringify(c.body_contains)}`, latency, details)
      }
      if (c.body_regex !== undefined && !new RegExp(c.body_regex).test(text)) {
        return outcome('down', PROBE_REASONS.body, `the body does not match /${c.body_regex}/`, latency, details)
      }
      const daysLeft = details.cert_days_left
      if (c.cert_expiry_alert_days !== undefined && typeof daysLeft === 'number' && daysLeft < c.cert_expiry_alert_days) {
        return outcome('down', PROBE_REASONS.certExpiring,
          `the certificate expires in ${daysLeft} day${daysLeft === 1 ? '' : 's'} (${String(details.cert_expires_at)}), under the alert threshold of ${c.cert_expiry_alert_days}`, latency, details)
      }
      return outcome('up', PROBE_REASONS.ok, `HTTP ${res.statusCode} in ${Math.round(latency)} ms`, latency, details)
    } catch (err) {
      const latency = elapsed(start)
      const details: Record<string, unknown> | null = conn.cert === null ? null : certDetails(conn.cert, ctx.now, c.cert_expiry_warn_days)
      let o: Outcome
      if (conn.authorizationError !== null && c.tls_verify) {
        const expired = conn.authorizationError === 'CERT_HAS_EXPIRED' || conn.authorizationError === 'CERT_NOT_YET_VALID'
        o = outcome('down', expired ? PROBE_REASONS.certExpired : PROBE_REASONS.tls, `TLS: certificate not accepted (${conn.authorizationError})`, latency, details)
      } else if (signal.aborted) {
        o = outcome('down', PROBE_REASONS.timeout, `no answer within ${target.timeoutMs} ms`, latency, details)
      } else {
        o = networkFailure(err, target.timeoutMs, latency)
        o.details = details
      }
      o.reason = redact(o.reason, secret)
      return o
    } finally {
      // After a success nothing is in flight: close() is enough (destroy() builds an error object each time).
      if (failed) base.destroy().catch(() => undefined)
      else base.close().catch(() => undefined)
    }
  }
}

const HEADER_NAME = '^[!#$%&\'*+.^_`|~0-9A-Za-z-]+$'
// Secrets belong in a credential reference, never in the stored configuration.
const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'x-api-key'])

function checkHttps(c: HttpsConfig): ConfigIssue[] {
  const issues: ConfigIssue[] = []
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
  return issues
}

export const HTTPS_KIND = declareKind({
  name: 'https',
  spec: probeAnywhere(256),
  properties: {
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
  },
  required: ['url'],
  check: (c) => checkHttps(c as unknown as HttpsConfig),
  runner: () => new HttpsRunner(),
})
