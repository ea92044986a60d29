// Request recording off the hot path: the response hook appends a small record
// to an in-memory buffer; a timer (every second) or a full batch writes the
// buffer to PostgreSQL in one multi-row INSERT plus one upsert of the daily
// totals. Only metadata is kept: method, route template, status, duration,
// key id and request id — never bodies, credentials, or URLs with query strings.
// Requests no credential vouches for (public health probes, 401s) belong to no
// workspace: they are only counted in memory, so an anonymous flood costs no writes.
import type { Database } from '../../core/index.ts'

export interface RequestRecord {
  at: number
  /** null: no credential vouched for the request (counted, not stored). */
  workspaceId: string | null
  keyId: string
  requestId: string
  method: string
  route: string
  status: number
  durationMs: number
}

export interface RecorderOptions {
  /** Flush when this many records wait; default 500. */
  batchSize?: number
  /** Flush at least this often (ms); default 1000. */
  intervalMs?: number
  /** Records held at most while PostgreSQL is unreachable; older ones are dropped. */
  maxBuffered?: number
  /** Request history kept (days); default 30. */
  retentionDays?: number
  onError?: (err: unknown) => void
}

const PRUNE_EVERY_MS = 3_600_000
const MAX_REQUEST_ID = 200

export class RequestRecorder {
  readonly #db: Database
  readonly #batchSize: number
  readonly #maxBuffered: number
  readonly #retentionDays: number
  readonly #onError: (err: unknown) => void
  readonly #timer: NodeJS.Timeout
  #buffer: RequestRecord[] = []
  #chain: Promise<void> = Promise.resolve()
  #lastPrune = 0
  #dropped = 0
  #unattributed = 0
  #closed = false

  constructor(db: Database, options: RecorderOptions = {}) {
    this.#db = db
    this.#batchSize = options.batchSize ?? 500
    this.#maxBuffered = options.maxBuffered ?? 100_000
    this.#retentionDays = options.retentionDays ?? 30
    this.#onError = options.onError ?? (() => undefined)
    this.#timer = setInterval(() => void this.flush(), options.intervalMs ?? 1000)
    this.#timer.unref()
  }

  /** Records dropped because the buffer was full (PostgreSQL unreachable for long). */
  get dropped(): number {
    return this.#dropped
  }

  get pending(): number {
    return this.#buffer.length
  }

  /** Requests without a workspace (no valid credential), counted but not stored. */
  get unattributed(): number {
    return this.#unattributed
  }

  record(r: RequestRecord): void {
    if (this.#closed) return
    if (r.workspaceId === null) {
      this.#unattributed++
      return
    }
    if (this.#buffer.length >= this.#maxBuffered) {
      this.#dropped++
      return
    }
    if (r.requestId.length > MAX_REQUEST_ID) r.requestId = r.requestId.slice(0, MAX_REQUEST_ID)
    this.#buffer.push(r)
    if (this.#buffer.length === this.#batchSize) void this.flush()
  }

  /** Writes what is buffered; resolves when this and earlier writes are done. */
  flush(): Promise<void> {
    this.#chain = this.#chain.then(() => this.#write())
    return this.#chain
  }

  async close(): Promise<void> {
    clearInterval(this.#timer)
    await this.flush()
    this.#closed = true
  }

  async #write(): Promise<void> {
    while (this.#buffer.length > 0) {
      const batch = this.#buffer.length <= this.#batchSize ? this.#buffer : this.#buffer.slice(0, this.#batchSize)
      this.#buffer = batch === this.#buffer ? [] : this.#buffer.slice(batch.length)
      try {
        await this.#insert(batch)
      } catch (err) {
        this.#onError(err)
        // Keep them for the next attempt while there is room.
        const room = this.#maxBuffered - this.#buffer.length
        if (room > 0) this.#buffer = batch.slice(0, room).concat(this.#buffer)
        this.#dropped += Math.max(0, batch.length - room)
        return
      }
    }
    if (Date.now() - this.#lastPrune > PRUNE_EVERY_MS) {
      this.#lastPrune = Date.now()
      await this.#db.query(`DELETE FROM api_requests WHERE at < now() - make_interval(days => $1)`, [this.#retentionDays])
        .catch((err: unknown) => this.#onError(err))
    }
  }

  async #insert(batch: RequestRecord[]): Promise<void> {
    const n = batch.length
    const at: string[] = new Array(n)
    const ws: (string | null)[] = new Array(n)
    const key: string[] = new Array(n)
    const rid: string[] = new Array(n)
    const method: string[] = new Array(n)
    const route: string[] = new Array(n)
    const status: number[] = new Array(n)
    const ms: number[] = new Array(n)
    const daily = new Map<string, { ws: string; day: string; key: string; requests: number; client: number; server: number }>()
    for (let i = 0; i < n; i++) {
      const r = batch[i] as RequestRecord
      const iso = new Date(r.at).toISOString()
      at[i] = iso
      ws[i] = r.workspaceId
      key[i] = r.keyId
      rid[i] = r.requestId
      method[i] = r.method
      route[i] = r.route
      status[i] = r.status
      ms[i] = r.durationMs
      const day = iso.slice(0, 10)
      const k = `${r.workspaceId}|${day}|${r.keyId}`
      let d = daily.get(k)
      if (d === undefined) {
        d = { ws: r.workspaceId as string, day, key: r.keyId, requests: 0, client: 0, server: 0 }
        daily.set(k, d)
      }
      d.requests++
      if (r.status >= 500) d.server++
      else if (r.status >= 400) d.client++
    }
    const days = [...daily.values()]
    await this.#db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO api_requests (at, workspace_id, key_id, request_id, method, route, status, duration_ms)
         SELECT * FROM unnest($1::timestamptz[], $2::uuid[], $3::text[], $4::text[], $5::text[], $6::text[], $7::int[], $8::real[])`,
        [at, ws, key, rid, method, route, status, ms])
      await tx.query(
        `INSERT INTO api_usage_daily (workspace_id, day, key_id, requests, client_errors, server_errors)
         SELECT * FROM unnest($1::uuid[], $2::date[], $3::text[], $4::bigint[], $5::bigint[], $6::bigint[])
         ON CONFLICT (workspace_id, day, key_id) DO UPDATE SET
           requests = api_usage_daily.requests + EXCLUDED.requests,
           client_errors = api_usage_daily.client_errors + EXCLUDED.client_errors,
           server_errors = api_usage_daily.server_errors + EXCLUDED.server_errors`,
        [days.map((d) => d.ws), days.map((d) => d.day), days.map((d) => d.key),
          days.map((d) => d.requests), days.map((d) => d.client), days.map((d) => d.server)])
    })
  }
}
