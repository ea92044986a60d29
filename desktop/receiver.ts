// The receiving side of assignment webhooks, for agents and tools that take
// them (and for our tests): the signature is checked in constant time against
// the exact raw body, timestamps more than five minutes off are refused, and
// each (source.instance_id, id) is accepted once, durably, through a
// ReceiptStore; the same id with other content is refused. Acknowledge (2xx)
// only after accept() resolved; do the work asynchronously.
import { createHash, createHmac, timingSafeEqual } from 'node:crypto'
import type { Sql } from '../core/index.ts'
import { HEADERS, type Envelope } from '../alerting/index.ts'

export const MAX_SKEW_MS = 5 * 60_000

export type Acceptance = 'new' | 'duplicate' | 'conflict'

/** Durable memory of accepted events. */
export interface ReceiptStore {
  accept(instanceId: string, eventId: string, bodyHash: string): Promise<Acceptance>
}

/** In memory: for tests and throwaway receivers (not durable across restarts). */
export class MemoryReceiptStore implements ReceiptStore {
  readonly #seen = new Map<string, string>()

  async accept(instanceId: string, eventId: string, bodyHash: string): Promise<Acceptance> {
    const key = `${instanceId}\u0000${eventId}`
    const prev = this.#seen.get(key)
    if (prev === undefined) {
      this.#seen.set(key, bodyHash)
      return 'new'
    }
    return prev === bodyHash ? 'duplicate' : 'conflict'
  }
}

/** In PostgreSQL (any Sql: node-postgres pool, PGlite): durable; the primary key decides races. */
export class PgReceiptStore implements ReceiptStore {
  readonly #sql: Sql
  readonly #table: string

  constructor(sql: Sql, table = 'webhook_receipts') {
    if (!/^[a-z_][a-z0-9_]*$/.test(table)) throw new Error('table must be a plain lowercase identifier')
    this.#sql = sql
    this.#table = table
  }

  async init(): Promise<void> {
    await this.#sql.query(`CREATE TABLE IF NOT EXISTS ${this.#table} (
      instance_id text NOT NULL, event_id text NOT NULL, body_hash text NOT NULL, received_at timestamptz NOT NULL DEFAULT now(),
      PRIMARY KEY (instance_id, event_id))`)
  }

  async accept(instanceId: string, eventId: string, bodyHash: string): Promise<Acceptance> {
    const ins = await this.#sql.query(
      `INSERT INTO ${this.#table} (instance_id, event_id, body_hash) VALUES ($1, $2, $3) ON CONFLICT DO NOTHING RETURNING 1`,
      [instanceId, eventId, bodyHash])
    if (ins.rows.length > 0) return 'new'
    const r = await this.#sql.query<{ body_hash: string }>(`SELECT body_hash FROM ${this.#table} WHERE instance_id = $1 AND event_id = $2`, [instanceId, eventId])
    return r.rows[0]?.body_hash === bodyHash ? 'duplicate' : 'conflict'
  }

  /** Forgets receipts older than `maxAgeMs` (keep them longer than the sender retries: 24 h, plus manual retries). */
  async prune(maxAgeMs: number): Promise<number> {
    const r = await this.#sql.query(`DELETE FROM ${this.#table} WHERE received_at < now() - make_interval(secs => $1::double precision)`, [maxAgeMs / 1000])
    return r.rowCount
  }
}

/** Constant-time check of `sha256=<hex>` over "<timestamp>.<raw body>" against any of the secrets (several during a rotation). */
export function verifySignature(secrets: readonly string[], timestamp: string, rawBody: Buffer | string, header: string): boolean {
  const m = /^sha256=([0-9a-f]{64})$/.exec(header.trim())
  const given = Buffer.from(m === null ? '00'.repeat(32) : m[1] as string, 'hex')
  let ok = false
  for (const secret of secrets) {
    const want = createHmac('sha256', secret).update(`${timestamp}.`).update(rawBody).digest()
    // Every secret is compared, whatever the outcome, so timing tells nothing.
    if (timingSafeEqual(want, given) && m !== null) ok = true
  }
  return ok
}

export interface ReceiveResult {
  /** 200 accepted or duplicate (acknowledge), 400 malformed, 401 signature or clock, 409 reused id with other content. */
  status: 200 | 400 | 401 | 409
  reason: string
  /** Set for a new, verified event: process it (asynchronously). */
  event?: Envelope
  duplicate?: boolean
}

export interface ReceiverOptions {
  /** The signing secret(s): the current one, plus the previous one while a rotation is rolled out. */
  secrets: readonly string[]
  store: ReceiptStore
  now?: () => number
}

type Headers = Record<string, string | string[] | undefined>

const header = (h: Headers, name: string) => {
  const v = h[name] ?? h[name.toLowerCase()]
  return Array.isArray(v) ? v[0] : v
}

export class WebhookReceiver {
  readonly #opts: ReceiverOptions

  constructor(opts: ReceiverOptions) {
    if (opts.secrets.length === 0) throw new Error('a receiver needs at least one secret')
    this.#opts = opts
  }

  /** Judges one delivery from its headers and exact raw body. */
  async receive(headers: Headers, rawBody: Buffer | string): Promise<ReceiveResult> {
    const timestamp = header(headers, HEADERS.timestamp)
    const sig = header(headers, HEADERS.signature)
    const eventId = header(headers, HEADERS.eventId)
    if (timestamp === undefined || sig === undefined || eventId === undefined) return { status: 401, reason: 'missing signature headers' }
    if (!/^\d{1,12}$/.test(timestamp)) return { status: 401, reason: 'malformed timestamp' }
    const now = (this.#opts.now ?? Date.now)()
    if (Math.abs(now - Number(timestamp) * 1000) > MAX_SKEW_MS) return { status: 401, reason: 'timestamp more than five minutes from this clock' }
    if (!verifySignature(this.#opts.secrets, timestamp, rawBody, sig)) return { status: 401, reason: 'bad signature' }
    let event: Envelope
    try {
      event = JSON.parse(Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : rawBody) as Envelope
    } catch {
      return { status: 400, reason: 'body is not JSON' }
    }
    if (event === null || typeof event !== 'object' || event.schema_version !== 1 || typeof event.id !== 'string' || typeof event.source?.instance_id !== 'string') {
      return { status: 400, reason: 'not a version 1 envelope' }
    }
    if (event.id !== eventId) return { status: 400, reason: 'X-Service-Event-Id does not match the body' }
    const hash = createHash('sha256').update(rawBody).digest('hex')
    const accepted = await this.#opts.store.accept(event.source.instance_id, event.id, hash)
    if (accepted === 'conflict') return { status: 409, reason: 'event id reused with different content' }
    if (accepted === 'duplicate') return { status: 200, reason: 'duplicate', duplicate: true }
    return { status: 200, reason: 'accepted', event }
  }
}
