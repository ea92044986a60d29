// One POST attempt through a dispatcher, reduced to what a delivery worker
// decides on: delivered, retry (connection failure, 408, 425, 429, 5xx, with
// the receiver's Retry-After), or failed (any other status, 3xx included, and
// refused destinations). The response body is read (capped) and discarded.
import type { Dispatcher } from 'undici'
import { checkUrl, isRefusal, undici } from './dispatcher.ts'
import type { OutboundPolicy } from './address.ts'

export const OUTCOMES = { delivered: 'delivered', retry: 'retry', failed: 'failed' } as const
export type Outcome = (typeof OUTCOMES)[keyof typeof OUTCOMES]

export interface AttemptResult {
  outcome: Outcome
  status: number | null
  /** Short reason, never the URL (it may carry a token, e.g. Slack's). */
  error: string | null
  retryAfterMs: number | null
  durationMs: number
}

const RETRY_STATUSES = new Set([408, 425, 429])
const MAX_READ = 64 * 1024

/** Retry-After as seconds or an HTTP date, in ms from `now`; null when absent or unreadable. */
export function parseRetryAfter(value: string | string[] | undefined, now: number): number | null {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined || v.trim() === '') return null
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000
  const at = Date.parse(v)
  return Number.isNaN(at) ? null : Math.max(0, at - now)
}

/** The outcome as the delivery metrics label it: a refused destination is counted apart from other failures. */
export function metricOutcome(r: AttemptResult): string {
  return r.outcome === OUTCOMES.failed && r.error?.startsWith('refused:') === true ? 'refused' : r.outcome
}

export function classifyStatus(status: number): Outcome {
  if (status >= 200 && status < 300) return OUTCOMES.delivered
  if (RETRY_STATUSES.has(status) || status >= 500) return OUTCOMES.retry
  return OUTCOMES.failed
}

/** A short, URL-free description of a transport error. */
export function describeError(err: unknown): string {
  const e = err as { code?: string; message?: string; name?: string }
  if (isRefusal(err)) {
    let x: unknown = err
    while ((x as { code?: string }).code !== 'LOOKOUT_DESTINATION_REFUSED' && (x as { cause?: unknown }).cause !== undefined) x = (x as { cause?: unknown }).cause
    return `refused: ${(x as Error).message}`
  }
  const code = e.code ?? e.name ?? 'ERROR'
  switch (code) {
    case 'UND_ERR_CONNECT_TIMEOUT': return 'connect timeout'
    case 'UND_ERR_HEADERS_TIMEOUT': return 'no response within the socket timeout'
    case 'UND_ERR_BODY_TIMEOUT': return 'response body timeout'
    case 'UND_ERR_SOCKET': return 'connection closed by the receiver'
    case 'ECONNREFUSED': return 'connection refused'
    case 'ECONNRESET': return 'connection reset'
    case 'ENOTFOUND': return 'host name not found'
    case 'EAI_AGAIN': return 'host name lookup failed temporarily'
    case 'EHOSTUNREACH': case 'ENETUNREACH': return 'host unreachable'
    default: return `${code}: ${(e.message ?? '').slice(0, 200)}`
  }
}

export interface PostOptions {
  /** Checks an IP-literal URL before sending; null for operator-configured endpoints. */
  policy: OutboundPolicy | null
  now?: () => number
}

export async function postJson(
  dispatcher: Dispatcher, url: string, body: string, headers: Record<string, string>, opts: PostOptions,
): Promise<AttemptResult> {
  const now = opts.now ?? Date.now
  const started = performance.now()
  const done = (outcome: Outcome, status: number | null, error: string | null, retryAfterMs: number | null = null): AttemptResult =>
    ({ outcome, status, error, retryAfterMs, durationMs: Math.round((performance.now() - started) * 10) / 10 })
  try {
    if (opts.policy !== null) checkUrl(url, opts.policy)
    const res = await undici().request(url, {
      dispatcher,
      method: 'POST',
      headers: { 'content-type': 'application/json', 'user-agent': 'lookout-delivery/1', ...headers },
      body,
      // One connection per attempt: the next attempt resolves and checks the name again.
      reset: true,
    })
    let read = 0
    for await (const chunk of res.body) {
      read += (chunk as Buffer).length
      if (read > MAX_READ) {
        res.body.destroy()
        break
      }
    }
    const outcome = classifyStatus(res.statusCode)
    if (outcome === OUTCOMES.delivered) return done(outcome, res.statusCode, null)
    const reason = res.statusCode >= 300 && res.statusCode < 400 ? `HTTP ${res.statusCode}: redirects are not followed` : `HTTP ${res.statusCode}`
    const retryAfter = outcome === OUTCOMES.retry ? parseRetryAfter(res.headers['retry-after'], now()) : null
    return done(outcome, res.statusCode, reason, retryAfter)
  } catch (err) {
    return done(isRefusal(err) ? OUTCOMES.failed : OUTCOMES.retry, null, describeError(err))
  }
}
