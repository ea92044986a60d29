// The background worker that copies queued log batches to a cloud workspace,
// oldest first, through the cloud's JSON batch route with a bearer token.
// Local resources map to cloud resources by external_id (registered there
// when missing). Transient failures and fixable configuration errors keep
// the batch at the head and retry with backoff; a batch the cloud refuses as
// invalid is dropped (counted) so it cannot block the queue forever.
import { request } from 'undici'
import type { Database } from '../core/index.ts'
import { resourceSummaries } from '../workspace/index.ts'
import { cloudBatchBody } from './forward-batch.ts'
import { deferBatch, headOfQueue, settleBatch, type QueuedBatch } from './forward-queue.ts'

export interface ForwardTarget {
  /** Base URL of the cloud Lookout (routes are under its /v1). */
  url: string
  workspaceId: string
  token: string
}

export interface ForwarderOptions {
  /** First retry delay; doubles per attempt up to maxRetryMs. Default 1 s. */
  retryBaseMs?: number
  /** Default 5 minutes. */
  maxRetryMs?: number
  /** Per request (headers and body). Default 10 s. */
  timeoutMs?: number
  /** How long an idle worker sleeps before looking again (a wake() cuts it short). Default 5 s. */
  idleMs?: number
  onError?: (err: unknown) => void
}

/** The outcome of one attempt: retry later (transient or fixable configuration) or drop (the cloud refuses the content). */
class Attempt extends Error {
  readonly retry: boolean
  constructor(message: string, retry: boolean) {
    super(message)
    this.retry = retry
  }
}

// 408, 425, 429 and 5xx are transient; 401, 403, 404 mean the target is misconfigured, which the owner can fix.
const RETRYABLE = new Set([401, 403, 404, 408, 425, 429])

export class Forwarder {
  readonly #db: Database
  readonly #target: () => ForwardTarget | null
  readonly #retryBaseMs: number
  readonly #maxRetryMs: number
  readonly #timeoutMs: number
  readonly #idleMs: number
  readonly #onError: (err: unknown) => void
  /** (target url, workspace, local resource) → cloud resource id. */
  readonly #resources = new Map<string, string>()
  #running: Promise<void> | null = null
  #stopped = false
  #wake: (() => void) | null = null
  /** A wake() that came while the worker was busy: its next sleep is skipped. */
  #woken = false

  constructor(db: Database, target: () => ForwardTarget | null, options: ForwarderOptions = {}) {
    this.#db = db
    this.#target = target
    this.#retryBaseMs = options.retryBaseMs ?? 1000
    this.#maxRetryMs = options.maxRetryMs ?? 300_000
    this.#timeoutMs = options.timeoutMs ?? 10_000
    this.#idleMs = options.idleMs ?? 5000
    this.#onError = options.onError ?? (() => undefined)
  }

  start(): void {
    this.#stopped = false
    this.#running ??= this.#loop()
  }

  /** Looks at the queue now (new rows, or a changed target). */
  wake(): void {
    if (this.#wake !== null) this.#wake()
    else this.#woken = true
  }

  /** The target changed: forget resolved resource ids. */
  retarget(): void {
    this.#resources.clear()
    this.wake()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    this.wake()
    await this.#running
    this.#running = null
  }

  async #loop(): Promise<void> {
    while (!this.#stopped) {
      try {
        const delay = await this.#step()
        if (delay > 0) await this.#sleep(delay)
      } catch (err) {
        this.#onError(err)
        await this.#sleep(this.#idleMs)
      }
    }
  }

  /** Forwards the head of the queue if it is due; returns how long to sleep (0: go on). */
  async #step(): Promise<number> {
    const target = this.#target()
    if (target === null) return this.#idleMs
    const batch = await headOfQueue(this.#db)
    if (batch === null) return this.#idleMs
    const wait = batch.nextAttemptAt - Date.now()
    if (wait > 0) return Math.min(wait, this.#idleMs)
    try {
      await this.#send(target, batch)
      await settleBatch(this.#db, batch, 'forwarded')
    } catch (err) {
      const a = err instanceof Attempt ? err : new Attempt(`cannot reach ${target.url}: ${(err as Error).message}`, true)
      if (a.retry) {
        const delay = Math.min(this.#maxRetryMs, this.#retryBaseMs * 2 ** Math.min(batch.attempts, 30))
        await deferBatch(this.#db, batch, a.message, delay)
        return Math.min(delay, this.#idleMs)
      }
      await settleBatch(this.#db, batch, 'rejected', a.message)
    }
    return 0
  }

  async #send(target: ForwardTarget, batch: QueuedBatch): Promise<void> {
    const rid = await this.#cloudResource(target, batch)
    const res = await this.#call(target, 'POST', `/resources/${rid}/logs`, cloudBatchBody(batch.rows))
    if (res.status === 404) this.#resources.delete(this.#key(target, batch))
    if (res.status >= 200 && res.status < 300) return
    throw new Attempt(`the cloud answered ${res.status} to a batch: ${res.summary}`, RETRYABLE.has(res.status) || res.status >= 500)
  }

  #key(target: ForwardTarget, batch: QueuedBatch): string {
    return `${target.url}|${target.workspaceId}|${batch.resourceId}`
  }

  /** The cloud resource with the local resource's external_id, registered there when missing. */
  async #cloudResource(target: ForwardTarget, batch: QueuedBatch): Promise<string> {
    const key = this.#key(target, batch)
    const known = this.#resources.get(key)
    if (known !== undefined) return known
    const [r] = (await resourceSummaries(this.#db, batch.workspaceId, [batch.resourceId])).values()
    if (r === undefined) throw new Attempt(`local resource ${batch.resourceId} does not exist`, false)
    const found = await this.#call(target, 'GET', `/resources?external_id=${encodeURIComponent(r.external_id)}&limit=1`)
    if (found.status !== 200) throw new Attempt(`the cloud answered ${found.status} looking up resource ${r.external_id}: ${found.summary}`, true)
    let id = (found.body as { items?: { id?: string }[] } | null)?.items?.[0]?.id
    if (id === undefined) {
      const made = await this.#call(target, 'POST', '/resources', JSON.stringify({ external_id: r.external_id, name: r.name, kind: r.kind }))
      if (made.status !== 200 && made.status !== 201) {
        throw new Attempt(`the cloud answered ${made.status} registering resource ${r.external_id}: ${made.summary}`, true)
      }
      id = (made.body as { id?: string } | null)?.id
      if (id === undefined) throw new Attempt(`the cloud registered resource ${r.external_id} without an id`, true)
    }
    this.#resources.set(key, id)
    return id
  }

  async #call(target: ForwardTarget, method: 'GET' | 'POST', path: string, body?: string): Promise<{ status: number; body: unknown; summary: string }> {
    const url = `${target.url.replace(/\/+$/, '')}/v1/workspaces/${target.workspaceId}${path}`
    const res = await request(url, {
      method,
      headers: { authorization: `Bearer ${target.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body,
      headersTimeout: this.#timeoutMs,
      bodyTimeout: this.#timeoutMs,
    })
    const text = await res.body.text()
    let parsed: unknown = null
    try {
      parsed = JSON.parse(text)
    } catch {
      // not JSON
    }
    return { status: res.statusCode, body: parsed, summary: text.slice(0, 300) }
  }

  #sleep(ms: number): Promise<void> {
    if (this.#stopped || this.#woken) {
      this.#woken = false
      return Promise.resolve()
    }
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer)
        this.#wake = null
        resolve()
      }
      const timer = setTimeout(done, ms)
      this.#wake = done
    })
  }
}
