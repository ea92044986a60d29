// End-to-end freshness: the time from a request's intended send to its events
// being queryable. Sampled: about one request per interval is a marker (its
// nonce, in its last event's message), and outstanding markers are looked up
// every poll until found. The lookup is the log query route when the pipeline
// has one, else ClickHouse directly (only when the harness holds the store).
import { Pool, request } from 'undici'
import type { LogStore } from '../../ingest/index.ts'
import { setupDispatcher } from './setup-dispatcher.ts'

export interface MarkerRef {
  nonce: string
  resourceId: string
  /** The marker event's timestamp (ms since the epoch): searches start just before it. */
  timeMs: number
}

/** Searches start a second before the marker's timestamp (ms rounding, clocks). */
const WINDOW_SLACK_MS = 1000

export interface MarkerLookup {
  readonly kind: 'query-route' | 'clickhouse'
  /** One call answers for many markers cheaply; otherwise markers are asked one at a time. */
  readonly batched: boolean
  /** The nonces among `markers` that are queryable now. */
  find(markers: readonly MarkerRef[]): Promise<Set<string>>
  close(): Promise<void>
}

/** Looks markers up with `GET /v1/workspaces/{ws}/resources/{rid}/logs?q=<nonce>&limit=1`. */
export class QueryRouteLookup implements MarkerLookup {
  readonly kind = 'query-route'
  readonly batched = false
  readonly #pool: Pool
  readonly #baseUrl: string
  readonly #ws: string
  readonly #headers: Record<string, string>

  constructor(baseUrl: string, workspaceId: string, token: string) {
    this.#pool = new Pool(baseUrl, { connections: 4 })
    this.#baseUrl = baseUrl
    this.#ws = workspaceId
    this.#headers = { authorization: `Bearer ${token}` }
  }

  /** Whether the pipeline serves the query route; `reason` says why not. */
  async available(resourceId: string): Promise<{ ok: boolean; reason: string }> {
    const dispatcher = setupDispatcher()
    const res = await request(this.#baseUrl + this.#path(resourceId, 'availability0probe'), { headers: this.#headers, dispatcher })
    const text = await res.body.text()
    await dispatcher.close()
    if (res.statusCode === 200) return { ok: true, reason: '' }
    if (res.statusCode === 404 && /route GET[: ]\S* not found/i.test(text)) return { ok: false, reason: 'the pipeline has no log query route' }
    return { ok: false, reason: `the log query route answered ${res.statusCode} to a search: ${text.slice(0, 200)}` }
  }

  #path(rid: string, nonce: string, timeMs?: number): string {
    const start = timeMs === undefined ? '' : `&start=${encodeURIComponent(new Date(timeMs - WINDOW_SLACK_MS).toISOString())}`
    return `/v1/workspaces/${this.#ws}/resources/${rid}/logs?q=${nonce}&limit=1${start}`
  }

  async find(markers: readonly MarkerRef[]): Promise<Set<string>> {
    const found = new Set<string>()
    await Promise.all(markers.map(async (m) => {
      const res = await this.#pool.request({ method: 'GET', path: this.#path(m.resourceId, m.nonce, m.timeMs), headers: this.#headers })
      const body = await res.body.text()
      if (res.statusCode !== 200) return
      const page = JSON.parse(body) as { events?: { message?: string }[]; items?: { message?: string }[] }
      const events = page.events ?? page.items ?? []
      if (events.some((e) => typeof e.message === 'string' && e.message.includes(m.nonce))) found.add(m.nonce)
    }))
    return found
  }

  async close(): Promise<void> {
    await this.#pool.close()
  }
}

/** Looks markers up in ClickHouse: one query for all outstanding markers, through the message text index. */
export class StoreLookup implements MarkerLookup {
  readonly kind = 'clickhouse'
  readonly batched = true
  readonly #store: LogStore

  constructor(store: LogStore) {
    this.#store = store
  }

  async find(markers: readonly MarkerRef[]): Promise<Set<string>> {
    if (markers.length === 0) return new Set()
    const params: Record<string, unknown> = {
      rids: [...new Set(markers.map((m) => m.resourceId))],
      since: Math.min(...markers.map((m) => m.timeMs)) - WINDOW_SLACK_MS,
    }
    const terms = markers.map((m, i) => {
      params[`m${i}`] = m.nonce
      return `hasToken(lower(message), {m${i}:String})`
    })
    const r = await this.#store.query<{ n: string }>(
      `SELECT DISTINCT extract(message, 'nonce=([0-9a-f]{16})') AS n FROM ${this.#store.database}.logs
       WHERE resource_id IN {rids:Array(UUID)} AND timestamp >= fromUnixTimestamp64Milli({since:Int64})
         AND (${terms.join(' OR ')})`, params)
    return new Set(r.rows.map((row) => row.n))
  }

  async close(): Promise<void> {}
}

export interface FreshnessSample {
  /** Intended send time, ms since the run's clock origin. */
  sentMs: number
  /** Send to queryable, ms (NaN when never seen). */
  freshnessMs: number
  step: number
}

interface Outstanding {
  ref: MarkerRef
  intendedMs: number
  acked: boolean
  step: number
}

/** Picks markers, polls for them, and keeps the samples. */
export class FreshnessTracker {
  readonly samples: FreshnessSample[] = []
  readonly #lookup: MarkerLookup
  readonly #everyMs: number
  readonly #pollMs: number
  readonly #originMs: number
  readonly #outstanding = new Map<string, Outstanding>()
  #nextSampleMs = 0
  #timer: NodeJS.Timeout | null = null
  #polling: Promise<number> | null = null
  #step = 0
  /** Lookups issued (each one a search the pipeline answers), and those that failed. */
  lookups = 0
  lookupErrors = 0

  /**
   * @param o.everyMs one marker per this interval
   * @param o.pollMs the shortest wait between lookups; a marker waiting longer is looked for every
   *   tenth of its age, so a slow pipeline is not searched more often than the answer needs
   */
  constructor(lookup: MarkerLookup, o: { everyMs: number; pollMs?: number; originMs: number }) {
    this.#lookup = lookup
    this.#everyMs = o.everyMs
    this.#pollMs = o.pollMs ?? 250
    this.#originMs = o.originMs
  }

  get kind(): MarkerLookup['kind'] {
    return this.#lookup.kind
  }

  get outstanding(): number {
    return this.#outstanding.size
  }

  /** Markers sent from now on belong to this step. */
  setStep(step: number): void {
    this.#step = step
  }

  /** Called for every send: makes it a marker when a sample is due. */
  onSend(ref: MarkerRef, intendedMs: number): void {
    if (intendedMs < this.#nextSampleMs) return
    this.#nextSampleMs = intendedMs + this.#everyMs
    this.#outstanding.set(ref.nonce, { ref, intendedMs, acked: false, step: this.#step })
  }

  /** A marker request answered: only acknowledged ones are looked for. */
  onResult(nonce: string, ok: boolean): void {
    const o = this.#outstanding.get(nonce)
    if (o === undefined) return
    if (ok) o.acked = true
    else this.#outstanding.delete(nonce)
  }

  start(): void {
    if (this.#timer !== null) return
    const loop = (): void => {
      const p = this.#poll()
      this.#polling = p
      void p.then((waitMs) => {
        this.#polling = null
        if (this.#timer !== null) this.#timer = setTimeout(loop, waitMs)
      })
    }
    this.#timer = setTimeout(loop, this.#pollMs)
  }

  async stop(): Promise<void> {
    if (this.#timer !== null) clearTimeout(this.#timer)
    this.#timer = null
    await this.#polling
  }

  /** One round of lookups; returns how long to wait before the next. */
  async #poll(): Promise<number> {
    const acked = [...this.#outstanding.values()].filter((o) => o.acked).sort((a, b) => a.intendedMs - b.intendedMs)
    if (acked.length === 0) return this.#pollMs
    try {
      if (this.#lookup.batched) {
        // A query sees the parts that existed when it started: a marker found was queryable by then.
        const asked = performance.now()
        this.lookups++
        this.#record(acked, await this.#lookup.find(acked.map((o) => o.ref)), asked)
      } else {
        // One at a time, oldest first: rows become queryable about in send order (one stream, loaded
        // in order), so the first one missing ends the round and the searches barely load the pipeline.
        for (const o of acked) {
          const asked = performance.now()
          this.lookups++
          const found = await this.#lookup.find([o.ref])
          this.#record([o], found, asked)
          if (!found.has(o.ref.nonce)) break
        }
      }
    } catch {
      this.lookupErrors++
    }
    let oldest = Number.POSITIVE_INFINITY
    for (const o of this.#outstanding.values()) if (o.acked) oldest = Math.min(oldest, o.intendedMs)
    return Number.isFinite(oldest) ? Math.max(this.#pollMs, (performance.now() - oldest) / 10) : this.#pollMs
  }

  #record(markers: readonly Outstanding[], found: ReadonlySet<string>, asked: number): void {
    for (const o of markers) {
      if (!found.has(o.ref.nonce)) continue
      this.#outstanding.delete(o.ref.nonce)
      this.samples.push({ sentMs: o.intendedMs - this.#originMs, freshnessMs: Math.max(0, asked - o.intendedMs), step: o.step })
    }
  }

  /** Waits until every marker is found or `timeoutMs` passes; the rest are recorded as lost. */
  async settle(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs
    while (this.#outstanding.size > 0 && performance.now() < deadline) await sleep(this.#pollMs)
    for (const o of this.#outstanding.values()) {
      if (o.acked) this.samples.push({ sentMs: o.intendedMs - this.#originMs, freshnessMs: Number.NaN, step: o.step })
    }
    this.#outstanding.clear()
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms))
}
