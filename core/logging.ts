// Structured JSON logs (pino, Fastify's logger) that never carry a credential,
// a secret or a query string. Three layers: serializers that only copy safe
// fields of requests and errors; a key filter (authorization, password,
// private_key, ... anywhere in a logged object); and a text filter for values
// and messages (bearer tokens, lkt_ tokens, PEM private keys, passwords in
// URLs, query strings). Policy: metrics/README.md#logging.
import { pino, stdSerializers, type DestinationStream, type Logger, type LoggerOptions } from 'pino'

/** Keys whose values are never logged, at any depth (compared lowercased, without - and _). */
const SECRET_KEYS = new Set([
  'authorization', 'proxyauthorization', 'cookie', 'setcookie', 'password', 'passwd', 'pass', 'passphrase', 'privatekey',
  'secret', 'secretkey', 'clientsecret', 'signingsecret', 'token', 'accesstoken', 'refreshtoken', 'apikey', 'xapikey',
  'credential', 'credentials', 'databaseurl', 'connectionstring', 'dsn', 'metricstoken',
])

export const REDACTED = '[redacted]'

function isSecretKey(key: string): boolean {
  return SECRET_KEYS.has(key.toLowerCase().replace(/[-_]/g, ''))
}

// Text patterns, most specific first. Each replacement keeps enough to read the line.
const TEXT_RULES: readonly [RegExp, string][] = [
  // PEM blocks of private keys (RSA, EC, OPENSSH, ENCRYPTED ...), whole or cut off.
  [/-----BEGIN [A-Z0-9 ]*PRIVATE KEY-----[\s\S]*?(?:-----END [A-Z0-9 ]*PRIVATE KEY-----|$)/g, `[redacted private key]`],
  // HTTP credentials in header-like text (before the token rule: the whole credential goes).
  [/\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]+/gi, `$1 ${REDACTED}`],
  // Lookout tokens wherever they appear.
  [/lkt_[0-9a-f]{32}_[A-Za-z0-9_-]+/g, 'lkt_[redacted]'],
  // user:password@ in any URL (postgres://, https://, nats://, ...).
  [/\b([a-z][a-z0-9+.-]*:\/\/[^\s:/@"']*):[^\s@/"']*@/gi, `$1:${REDACTED}@`],
  // The query string of a URL or path: everything from ? to the next space, quote or #.
  [/((?:\b[a-z][a-z0-9+.-]*:\/\/|\/)[^\s?#"'<>]*)\?[^\s#"'<>]+/gi, '$1?[query redacted]'],
  // Quoted values of keys naming a secret (password="two words", "token": "..."): up to the closing quote.
  [/\b(password|passwd|passphrase|secret|token|api[_-]?key)(["']?\s*[=:]\s*)(["'])[^"'\n]*\3/gi, `$1$2$3${REDACTED}$3`],
  // key=value pairs naming a secret (password=..., token: ...): up to a space or delimiter.
  [/\b(password|passwd|passphrase|secret|token|api[_-]?key)(["']?\s*[=:]\s*["']?)[^\s"'&,;}]+/gi, `$1$2${REDACTED}`],
]

// Every rule needs one of these; most text (a message, a path) has none and is returned as is.
const SUSPECT = /[?@]|lkt_|PRIVATE KEY|bearer|basic|token|pass|secret|api[_-]?key/i

/** Removes credentials, secrets and query strings from a piece of text. */
export function scrubText(s: string): string {
  if (!SUSPECT.test(s)) return s
  let out = s
  for (const [re, repl] of TEXT_RULES) {
    re.lastIndex = 0
    out = out.replace(re, repl)
  }
  return out
}

const MAX_DEPTH = 8

/** A copy of a value with secret keys and secret text removed; Errors become plain objects. */
export function scrubValue(v: unknown, depth = 0, seen: WeakSet<object> = new WeakSet()): unknown {
  if (typeof v === 'string') return scrubText(v)
  if (v === null || typeof v !== 'object') return v
  if (depth >= MAX_DEPTH) return '[too deep]'
  if (seen.has(v)) return '[circular]'
  seen.add(v)
  if (v instanceof Error) return scrubValue(stdSerializers.err(v), depth + 1, seen)
  if (Array.isArray(v)) return v.map((x) => scrubValue(x, depth + 1, seen))
  if (ArrayBuffer.isView(v)) return `[${v.byteLength} bytes]`
  if (v instanceof Date) return v.toISOString()
  const out: Record<string, unknown> = {}
  for (const [k, x] of Object.entries(v)) out[k] = isSecretKey(k) ? REDACTED : scrubValue(x, depth + 1, seen)
  return out
}

interface LoggableRequest {
  method?: string
  url?: string
  ip?: string
  routeOptions?: { url?: string }
  socket?: { remotePort?: number }
}

/** Only the request line's path, the route template and the peer: never headers, never the query. */
function requestSerializer(req: LoggableRequest): Record<string, unknown> {
  const url = typeof req.url === 'string' ? scrubText(req.url.split('?')[0] ?? '') : undefined
  return { method: req.method, url, route: req.routeOptions?.url, remoteAddress: req.ip, remotePort: req.socket?.remotePort }
}

function responseSerializer(reply: { statusCode?: number }): Record<string, unknown> {
  return { statusCode: reply.statusCode }
}

// What an error may carry of the caller's input: Ajv's verbose errors hold each
// refused value (`data`) and the contract's detail items echo it (`input`).
// The log keeps where and why, never the value: it may be a passphrase.
function withoutInputs(e: Record<string, unknown>): Record<string, unknown> {
  const out = { ...e }
  if (Array.isArray(out.validation)) {
    out.validation = (out.validation as Record<string, unknown>[]).map((v) => ({ instancePath: v?.instancePath, keyword: v?.keyword, message: v?.message }))
  }
  if (Array.isArray(out.details)) {
    out.details = (out.details as Record<string, unknown>[]).map((d) => ({ loc: d?.loc, msg: d?.msg, type: d?.type }))
  }
  return out
}

function errorSerializer(err: unknown): unknown {
  const plain = err instanceof Error ? stdSerializers.err(err) : err
  return scrubValue(plain !== null && typeof plain === 'object' && !Array.isArray(plain) ? withoutInputs(plain as Record<string, unknown>) : plain)
}

// Keys pino's serializers handle: their raw values (a Fastify request, a reply) must not be walked.
const SERIALIZED_KEYS = new Set(['req', 'res', 'err', 'error'])

/** Pino's own redaction, a second net under the key filter for the shape most often logged by mistake. */
export const REDACT_PATHS = ['headers.authorization', 'headers.cookie'] as const

/** True when a logged value may hold something to remove (a string that looks suspect, or a structure). */
function needsScrub(k: string, v: unknown): boolean {
  if (SERIALIZED_KEYS.has(k)) return false
  if (isSecretKey(k)) return true
  if (typeof v === 'string') return SUSPECT.test(v)
  return v !== null && typeof v === 'object'
}

/** The merged object of one log line: returned as is when nothing in it needs filtering (a request line). */
function scrubLogObject(obj: Record<string, unknown>): Record<string, unknown> {
  let dirty = false
  for (const k in obj) {
    if (needsScrub(k, obj[k])) {
      dirty = true
      break
    }
  }
  if (!dirty) return obj
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(obj)) {
    out[k] = SERIALIZED_KEYS.has(k) ? v : isSecretKey(k) ? REDACTED : scrubValue(v, 1)
  }
  return out
}

export interface LogSettings {
  level?: string
  /** Where lines go; default stdout. Tests pass a stream to read them. */
  stream?: DestinationStream
}

/** The pino options of every Lookout logger. */
export function loggerOptions(settings: LogSettings = {}): LoggerOptions {
  return {
    level: settings.level ?? 'info',
    base: { pid: process.pid },
    // pino's epoch milliseconds: an ISO string would cost ~0.75 µs more per line, two lines per request.
    timestamp: pino.stdTimeFunctions.epochTime,
    messageKey: 'msg',
    redact: { paths: [...REDACT_PATHS], censor: REDACTED },
    // reqId: a caller may send any x-request-id, and child bindings skip the formatters below.
    serializers: { req: requestSerializer, res: responseSerializer, err: errorSerializer, error: errorSerializer, reqId: (v: unknown) => scrubText(String(v)) },
    formatters: {
      level: (label) => ({ level: label }),
      bindings: (b) => scrubValue(b) as Record<string, unknown>,
      log: scrubLogObject,
    },
    hooks: {
      // The message text and its printf arguments go through the same filters: an
      // object interpolated with %j or %o is printed into the message, past the log formatter.
      logMethod(args, method) {
        // Without a message pino takes the error's own (`log.warn(err)`, `log.warn({ err })`, as
        // Fastify logs FST_ERR_REP_ALREADY_SENT with the URL and its query): give it the filtered one.
        const a0 = args[0] as unknown
        if (args.length === 1 && a0 !== null && typeof a0 === 'object') {
          const e = a0 instanceof Error ? a0 : (a0 as { msg?: unknown }).msg === undefined ? (a0 as { err?: { message?: unknown } }).err : undefined
          if (typeof e?.message === 'string') (args as unknown[]).push(e.message)
        }
        const first = typeof args[0] === 'string' ? 0 : 1
        for (let i = first; i < args.length; i++) {
          const a = args[i]
          if (typeof a === 'string') (args as unknown[])[i] = scrubText(a)
          else if (i > first && a !== null && typeof a === 'object') (args as unknown[])[i] = scrubValue(a)
        }
        method.apply(this, args)
      },
    },
  }
}

/**
 * Child bindings (`log.child({...})`, Fastify's per-request `{reqId}`) are written
 * once into the child and pino skips the bindings formatter for them: the
 * root's child() filters them first. Children inherit it (pino builds them with
 * Object.create), so every descendant is covered. Clean bindings pass unchanged.
 */
function filterChildBindings(root: Logger): Logger {
  const child = root.child
  root.child = function (this: Logger, bindings: Record<string, unknown>, options?: unknown) {
    return child.call(this, scrubLogObject(bindings), options as never)
  } as typeof root.child
  return root
}

/** The process logger: one instance shared by the HTTP server and the other roles. */
export function createLogger(settings: LogSettings = {}): Logger {
  const opts = loggerOptions(settings)
  return filterChildBindings(settings.stream === undefined ? pino(opts) : pino(opts, settings.stream))
}

/**
 * The logger half of Fastify's options for AppOptions.logger: true or `{ level?, stream? }`
 * get a logger built by createLogger (the filters above), false or nothing stays off.
 */
export function withRedaction(logger: boolean | object | undefined): { loggerInstance: Logger } | { logger: false } {
  if (logger === undefined || logger === false) return { logger: false }
  if (logger === true) return { loggerInstance: createLogger() }
  const { level, stream } = logger as { level?: string; stream?: DestinationStream }
  const settings: LogSettings = {}
  if (level !== undefined) settings.level = level
  if (stream !== undefined) settings.stream = stream
  return { loggerInstance: createLogger(settings) }
}
