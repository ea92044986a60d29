// The collector's only connection: outbound HTTP(S) to the Lookout API with the
// collector credential. The credential goes in the Authorization header only,
// never in a URL or a log line.
import { Agent, request } from 'undici'
import type { CollectorCheck, CollectorObservation, PushResult } from '../monitor/index.ts'
import { CredentialRefusedError } from './errors.ts'

export const VERSION_HEADER = 'x-lookout-collector-version'

export interface ChecksAnswer {
  source: { id: string; name: string; resource_id: string }
  server_time: string
  checks: CollectorCheck[]
}

/** A non-2xx answer other than 401: retried (5xx, 429) or dropped (another 4xx). */
export class ApiStatusError extends Error {
  readonly status: number
  constructor(status: number, body: string) {
    super(`the API answered ${status}: ${body.slice(0, 300)}`)
    this.status = status
  }
}

export class CollectorClient {
  readonly #base: string
  readonly #headers: Record<string, string>
  readonly #agent: Agent

  constructor(url: string, token: string, version: string) {
    this.#base = url.replace(/\/+$/, '')
    this.#headers = { authorization: `Bearer ${token}`, [VERSION_HEADER]: version }
    this.#agent = new Agent({ connections: 4, keepAliveTimeout: 30_000, headersTimeout: 60_000, bodyTimeout: 60_000, connectTimeout: 10_000 })
  }

  /** The assigned checks; null when unchanged (304) after holding up to waitSeconds. */
  async checks(etag: string | null, waitSeconds: number, signal?: AbortSignal): Promise<{ etag: string; answer: ChecksAnswer } | null> {
    const headers: Record<string, string> = { ...this.#headers }
    if (etag !== null) headers['if-none-match'] = etag
    const res = await request(`${this.#base}/v1/collector/checks?wait=${waitSeconds}`, { method: 'GET', headers, dispatcher: this.#agent, signal })
    const text = await res.body.text()
    this.#refused(res.statusCode, 'GET /v1/collector/checks')
    if (res.statusCode === 304) return null
    if (res.statusCode !== 200) throw new ApiStatusError(res.statusCode, text)
    return { etag: String(res.headers.etag ?? ''), answer: JSON.parse(text) as ChecksAnswer }
  }

  async push(observations: readonly CollectorObservation[]): Promise<PushResult> {
    const res = await request(`${this.#base}/v1/collector/observations`, {
      method: 'POST', headers: { ...this.#headers, 'content-type': 'application/json' }, body: JSON.stringify({ observations }), dispatcher: this.#agent,
    })
    const text = await res.body.text()
    this.#refused(res.statusCode, 'POST /v1/collector/observations')
    if (res.statusCode !== 200) throw new ApiStatusError(res.statusCode, text)
    return JSON.parse(text) as PushResult
  }

  async close(): Promise<void> {
    await this.#agent.close()
  }

  #refused(status: number, what: string): void {
    if (status === 401) throw new CredentialRefusedError(`${what} answered 401`)
  }
}
