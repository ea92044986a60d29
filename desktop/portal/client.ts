// HTTP to the portal (a Lookout cloud): undici requests with the connection's
// bearer token, the desktop features header on every request, and p-retry for
// transient failures (connection errors, 408/425/429/5xx) within one call.
import { request } from 'undici'
import pRetry, { AbortError } from 'p-retry'

/** The capability this desktop offers and asks for (local-desktop-api.md, Versioning). */
export const TAXONOMY_FEATURE = 'task-taxonomy-v1'
export const FEATURES_HEADER = 'x-service-desktop-features'
/** What this desktop asks for: the task taxonomy, and task creation in batches (a Lookout extension, push-batch.ts). */
const DESKTOP_FEATURES = `${TAXONOMY_FEATURE}, task-batch-v1`

export interface PortalTarget {
  url: string
  token: string
}

/** The portal could not be reached (network, timeout, 5xx): the desktop is offline. */
export class PortalUnreachable extends Error {}

/** The portal answered with a refusal (4xx): its status and error body. */
export class PortalRefusal extends Error {
  readonly status: number
  readonly body: unknown
  constructor(status: number, body: unknown, what: string) {
    super(`${what}: the portal answered ${status} ${detailOf(body)}`)
    this.status = status
    this.body = body
  }

  /** The portal's stable error code, when it gave one. */
  get code(): string | undefined {
    const b = this.body as { detail?: { type?: string }[]; error?: { code?: string } } | undefined
    return b?.detail?.[0]?.type ?? b?.error?.code
  }
}

function detailOf(body: unknown): string {
  const b = body as { detail?: { msg?: string; type?: string }[] } | undefined
  const d = b?.detail?.[0]
  return d === undefined ? '' : `(${d.type ?? ''}: ${d.msg ?? ''})`
}

const TRANSIENT = new Set([408, 425, 429])

export interface CallOptions {
  retries?: number
  timeoutMs?: number
  query?: Record<string, string | number | boolean | string[] | undefined>
}

export interface PortalAnswer<T> {
  status: number
  body: T
  features: string[]
}

function queryString(q: CallOptions['query']): string {
  if (q === undefined) return ''
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined) continue
    if (Array.isArray(v)) for (const x of v) p.append(k, x)
    else p.append(k, String(v))
  }
  const s = p.toString()
  return s === '' ? '' : `?${s}`
}

/** One portal call; transient failures are retried (default 2 retries), refusals are thrown as PortalRefusal. */
export async function portalCall<T = unknown>(target: PortalTarget, method: 'GET' | 'POST' | 'PATCH' | 'DELETE', path: string, body?: unknown, opts: CallOptions = {}): Promise<PortalAnswer<T>> {
  const url = `${target.url.replace(/\/+$/, '')}${path}${queryString(opts.query)}`
  const timeout = opts.timeoutMs ?? 10_000
  return pRetry(async () => {
    let res
    try {
      res = await request(url, {
        method,
        headers: {
          authorization: `Bearer ${target.token}`,
          [FEATURES_HEADER]: DESKTOP_FEATURES,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        headersTimeout: timeout,
        bodyTimeout: timeout,
      })
    } catch (err) {
      throw new PortalUnreachable(`${method} ${path}: ${(err as Error).message}`)
    }
    const text = await res.body.text().catch((err: Error) => {
      throw new PortalUnreachable(`${method} ${path}: the answer was cut off (${err.message})`)
    })
    let parsed: unknown
    try {
      parsed = text === '' ? undefined : JSON.parse(text)
    } catch {
      parsed = text
    }
    if (res.statusCode >= 500 || TRANSIENT.has(res.statusCode)) throw new PortalUnreachable(`${method} ${path}: the portal answered ${res.statusCode}`)
    if (res.statusCode >= 400) throw new AbortError(new PortalRefusal(res.statusCode, parsed, `${method} ${path}`))
    const header = res.headers[FEATURES_HEADER]
    const features = (Array.isArray(header) ? header.join(',') : header ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '')
    return { status: res.statusCode, body: parsed as T, features }
  }, { retries: opts.retries ?? 2, minTimeout: 200, maxTimeout: 2000 })
}
