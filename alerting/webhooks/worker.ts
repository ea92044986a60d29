// Delivers queued webhook events. Each due delivery is claimed with a lease
// (a crashed worker's claims are taken over when the lease ends: at least
// once), sent outside any transaction through the SSRF-checked dispatcher
// with a 10-second socket timeout, and its attempt recorded. Schedule after a
// connection failure, 408, 425, 429 or 5xx: 5 s, doubling, at most 1 h
// between attempts, later if the receiver's Retry-After says so, for 24 h from
// the first attempt; any other answer (3xx included: redirects are never
// followed) fails it until a manual retry. Time comes from an injectable clock.
import { systemClock, type Clock } from '../../monitor/index.ts'
import type { Database } from '../../core/index.ts'
import { WEBHOOK_POLICY } from '../../core/index.ts'
import { safeAgent, type Resolver } from '../../core/index.ts'
import { metricOutcome, OUTCOMES, postJson, type AttemptResult } from '../../core/index.ts'
import { claimDue } from '../claim.ts'
import type { DeliveryObserver } from '../observer.ts'
import { instanceId, sharedIds, type SharedIds } from '../../workspace/index.ts'
import { envelopeOf, signedHeaders, type EventFacts } from './envelope.ts'
import { openSecret, type SubscriptionRow } from './store.ts'

export const SCHEDULE = {
  firstRetryMs: 5_000,
  maxDelayMs: 3_600_000,
  windowMs: 24 * 3_600_000,
} as const
export const HISTORY_MS = 30 * 86_400_000

/** The delay before the next attempt after `failures` consecutive retryable failures (1-based). */
export function retryDelay(failures: number, retryAfterMs: number | null): number {
  const scheduled = Math.min(SCHEDULE.firstRetryMs * 2 ** Math.max(0, failures - 1), SCHEDULE.maxDelayMs)
  return Math.max(scheduled, retryAfterMs ?? 0)
}

export interface WebhookWorkerOptions {
  workerId: string
  clock?: Pick<Clock, 'now'>
  resolver?: Resolver
  timeoutMs?: number
  secretKey?: Buffer
  batch?: number
  leaseMs?: number
  /** Counts every attempt (process metrics), channel assignment_webhook. */
  observer?: DeliveryObserver
  onError?: (err: unknown) => void
}

type Claimed = EventFacts & {
  id: string
  subscription_id: string
  attempts: number
  window_started_at: Date | null
  url: string
  secret: Uint8Array
  secret_key_id: string | null
}

const ts = (n: number) => new Date(n).toISOString()

export class WebhookWorker {
  readonly #db: Database
  readonly #opts: WebhookWorkerOptions
  readonly #clock: Pick<Clock, 'now'>
  readonly #agent
  #instance: string | null = null
  #lastPrune = 0

  constructor(db: Database, opts: WebhookWorkerOptions) {
    this.#db = db
    this.#opts = opts
    this.#clock = opts.clock ?? systemClock
    this.#agent = safeAgent(WEBHOOK_POLICY, { resolver: opts.resolver, timeoutMs: opts.timeoutMs ?? 10_000 })
  }

  async close(): Promise<void> {
    await this.#agent.close()
  }

  /** One round: sweep stale rows, claim due deliveries, send them. Returns the attempts made. */
  async step(): Promise<number> {
    const now = this.#clock.now()
    await this.#sweep(now)
    const claimed = await this.#claim(now)
    // Read each round (not cached): a workspace restore (restore.ts) gives the installation a fresh identity.
    if (claimed.length > 0) this.#instance = await instanceId(this.#db)
    // source.workspace_id: a workspace connected to a portal is the portal's uuid (the shared workspace id).
    const ids = claimed.length > 0 ? await sharedIds(this.#db) : null
    // One subscription's deliveries go in the order of their events; subscriptions in parallel.
    const bySubscription = new Map<string, Claimed[]>()
    for (const d of claimed) bySubscription.set(d.subscription_id, [...(bySubscription.get(d.subscription_id) ?? []), d])
    const done = await Promise.all([...bySubscription.values()].map(async (list) => {
      let n = 0
      for (const d of list) {
        try {
          await this.#deliver(d, ids as SharedIds)
          n++
        } catch (err) {
          this.#opts.onError?.(err)
        }
      }
      return n
    }))
    return done.reduce<number>((a, b) => a + b, 0)
  }

  /** Cancels queued rows left behind by a configuration change or a disable that raced their insert; prunes old history. */
  async #sweep(now: number): Promise<void> {
    await this.#db.query(
      `UPDATE webhook_deliveries d SET state = 'cancelled', claimed_by = NULL, claimed_until = NULL,
         last_error = CASE WHEN s.enabled THEN 'cancelled: the configuration was saved' ELSE 'cancelled: the subscription was disabled' END
       FROM webhook_subscriptions s
       WHERE d.subscription_id = s.id AND d.state = 'queued' AND (d.generation <> s.generation OR (NOT s.enabled AND d.event_type <> 'webhook.test'))`)
    if (now - this.#lastPrune > 600_000) {
      this.#lastPrune = now
      await this.#db.query(`DELETE FROM webhook_deliveries WHERE created_at < $1 AND state <> 'queued'`, [ts(now - HISTORY_MS)])
    }
  }

  async #claim(now: number): Promise<Claimed[]> {
    const ids = await claimDue(this.#db, {
      table: 'webhook_deliveries', order: 'next_attempt_at, seq', workerId: this.#opts.workerId,
      now: ts(now), leaseUntil: ts(now + (this.#opts.leaseMs ?? 60_000)), batch: this.#opts.batch ?? 20,
    })
    if (ids.length === 0) return []
    const full = await this.#db.query<Claimed>(
      `SELECT d.id, d.subscription_id, d.workspace_id, d.event_id, d.event_type, d.occurred_at, d.task_id, d.board_id, d.task_revision,
         d.previous_assignee, d.assignee, d.previous_assignee_kind, d.assignee_kind, d.attempts, d.window_started_at, s.url, s.secret, s.secret_key_id
       FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.id = ANY($1::uuid[])
       ORDER BY d.seq`, [ids])
    return full.rows
  }

  async #deliver(d: Claimed, ids: SharedIds): Promise<void> {
    const now = this.#clock.now()
    let result: AttemptResult
    try {
      const secret = openSecret(this.#opts.secretKey, { id: d.subscription_id, secret: d.secret, secret_key_id: d.secret_key_id } as Pick<SubscriptionRow, 'id' | 'secret' | 'secret_key_id'>)
      const body = JSON.stringify(envelopeOf({ ...d, workspace_id: ids.toShared.get(d.workspace_id) ?? d.workspace_id }, this.#instance as string))
      result = await postJson(this.#agent, d.url, body, signedHeaders(secret, d.event_id, body, now), { policy: WEBHOOK_POLICY, now: () => this.#clock.now() })
    } catch (err) {
      result = { outcome: OUTCOMES.failed, status: null, error: `cannot sign: ${(err as Error).message}`, retryAfterMs: null, durationMs: 0 }
    }
    this.#opts.observer?.delivery('assignment_webhook', metricOutcome(result), result.durationMs / 1000)
    const attempt = d.attempts + 1
    const windowStart = d.window_started_at === null ? now : new Date(d.window_started_at).getTime()
    let state: 'queued' | 'delivered' | 'failed' = 'queued'
    let error = result.error
    let next = now
    if (result.outcome === OUTCOMES.delivered) state = 'delivered'
    else if (result.outcome === OUTCOMES.failed) state = 'failed'
    else {
      // Failures since the window opened: a manual retry starts the doubling again.
      const failures = await this.#failuresSince(d.id, windowStart)
      next = now + retryDelay(failures + 1, result.retryAfterMs)
      if (next > windowStart + SCHEDULE.windowMs) {
        state = 'failed'
        error = `${result.error ?? 'failed'}; retried for 24 h`
      }
    }
    await this.#db.transaction(async (tx) => {
      await tx.query(
        `INSERT INTO webhook_attempts (delivery_id, attempt, at, outcome, status, error, duration_ms, retry_after_ms) VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
         ON CONFLICT DO NOTHING`, [d.id, attempt, ts(now), result.outcome, result.status, result.error, result.durationMs, result.retryAfterMs])
      // Fenced by the claim: a delivery cancelled meanwhile stays cancelled (its attempt is still on record).
      await tx.query(
        `UPDATE webhook_deliveries SET state = $3, attempts = $4, window_started_at = $5, next_attempt_at = $6, last_attempt_at = $7,
           last_status = $8, last_error = $9, delivered_at = CASE WHEN $3 = 'delivered' THEN $7::timestamptz ELSE NULL END,
           claimed_by = NULL, claimed_until = NULL
         WHERE id = $1 AND claimed_by = $2 AND state = 'queued'`,
        [d.id, this.#opts.workerId, state, attempt, ts(windowStart), ts(next), ts(now), result.status, error])
    })
  }

  async #failuresSince(id: string, windowStart: number): Promise<number> {
    const r = await this.#db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_attempts WHERE delivery_id = $1 AND outcome = 'retry' AND at >= $2`, [id, ts(windowStart)])
    return r.rows[0]?.n ?? 0
  }
}
