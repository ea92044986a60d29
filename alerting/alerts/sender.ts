// Sends queued alert deliveries. A delivery is claimed with a lease, sent
// outside any transaction, and every attempt is recorded. Within one claim,
// p-retry retries a connection failure, 408, 425, 429 or 5xx (1 s, 2 s by
// default); if the claim's attempts all fail that way, the delivery goes back
// to the queue with a growing delay (30 s doubling to 10 min) until an hour
// after it was queued, then it fails. Any other answer fails it at once. A
// delivery is sent at least once: a crash after the send and before the
// record sends it again when the lease runs out.
import pRetry from 'p-retry'
import { Agent, type Dispatcher } from 'undici'
import nodemailer, { type Transporter } from 'nodemailer'
import type { Database } from '../../core/index.ts'
import { alertPolicyOf } from '../../core/index.ts'
import { safeAgent, type Resolver } from '../../core/index.ts'
import { metricOutcome, OUTCOMES, postJson, type AttemptResult } from '../../core/index.ts'
import { claimDue } from '../claim.ts'
import type { DeliveryObserver } from '../observer.ts'
import type { Channel } from './channels.ts'
import type { AlertMessage, DeliveryReason } from './messages.ts'
import type { AlertSettings } from './settings.ts'

export interface SenderOptions {
  workerId: string
  now?: () => number
  resolver?: Resolver
  /** In-claim retries (p-retry). Default: 2 retries, 1 s then 2 s. */
  retry?: { retries?: number; minTimeoutMs?: number; maxTimeoutMs?: number }
  /** Re-queue delays after a claim's attempts all failed: base doubling to max. */
  requeue?: { baseMs?: number; maxMs?: number; giveUpAfterMs?: number }
  batch?: number
  leaseMs?: number
  timeoutMs?: number
  /** Counts every attempt (process metrics). */
  observer?: DeliveryObserver
  onError?: (err: unknown) => void
}

interface Claimed {
  id: string
  channel: Channel
  reason: DeliveryReason
  message: AlertMessage
  attempts: number
  rounds: number
  created_at: Date
  address: string
  verified_at: Date | null
  paused: boolean
  removed_at: Date | null
}

class RetryableAttempt extends Error {
  readonly result: AttemptResult

  constructor(result: AttemptResult) {
    super(result.error ?? `HTTP ${result.status}`)
    this.result = result
  }
}

const ts = (n: number) => new Date(n).toISOString()

export class AlertSender {
  readonly #db: Database
  readonly #settings: AlertSettings
  readonly #opts: Required<Pick<SenderOptions, 'workerId' | 'batch' | 'leaseMs'>> & SenderOptions
  readonly #now: () => number
  readonly #agent: Dispatcher
  readonly #providerAgent: Dispatcher
  readonly #mail: Transporter | null

  constructor(db: Database, settings: AlertSettings, opts: SenderOptions) {
    this.#db = db
    this.#settings = settings
    this.#opts = { batch: 20, leaseMs: 120_000, ...opts }
    this.#now = opts.now ?? Date.now
    const timeoutMs = opts.timeoutMs ?? 10_000
    this.#agent = safeAgent(alertPolicyOf(settings), { resolver: opts.resolver, timeoutMs })
    // The SMS provider is the operator's own configuration, not a user-chosen address.
    this.#providerAgent = new Agent({ connect: { timeout: timeoutMs }, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
    this.#mail = settings.smtpUrl === undefined ? null : nodemailer.createTransport({
      url: settings.smtpUrl, connectionTimeout: timeoutMs, greetingTimeout: timeoutMs, socketTimeout: timeoutMs,
    } as never)
  }

  async close(): Promise<void> {
    this.#mail?.close()
    await this.#agent.close()
    await this.#providerAgent.close()
  }

  /** Claims due deliveries and sends them; returns how many were finished (delivered, failed or cancelled). */
  async step(): Promise<number> {
    const claimed = await this.#claim()
    const results = await Promise.all(claimed.map((d) => this.#deliver(d).catch((err: unknown) => {
      this.#opts.onError?.(err)
      return false
    })))
    return results.filter(Boolean).length
  }

  async #claim(): Promise<Claimed[]> {
    const now = this.#now()
    const ids = await claimDue(this.#db, {
      table: 'alert_deliveries', order: 'next_attempt_at', workerId: this.#opts.workerId, now: ts(now), leaseUntil: ts(now + this.#opts.leaseMs), batch: this.#opts.batch,
    })
    if (ids.length === 0) return []
    const full = await this.#db.query<Claimed>(
      `SELECT d.id, d.channel, d.reason, d.message, d.attempts, d.rounds, d.created_at, dest.address, dest.verified_at, dest.paused, dest.removed_at
       FROM alert_deliveries d JOIN alert_destinations dest ON dest.id = d.destination_id WHERE d.id = ANY($1::uuid[])`, [ids])
    return full.rows
  }

  async #deliver(d: Claimed): Promise<boolean> {
    const usable = d.removed_at === null && (d.reason === 'verification' || (d.verified_at !== null && (d.reason === 'test' || !d.paused)))
    if (!usable) {
      await this.#finish(d, 'cancelled', null, d.removed_at !== null ? 'cancelled: the destination was removed' : 'cancelled: the destination is paused or unverified', d.attempts)
      return true
    }
    let attempt = d.attempts
    const retry = this.#opts.retry ?? {}
    let last: AttemptResult | null = null
    try {
      last = await pRetry(async () => {
        const result = await this.#send(d)
        this.#opts.observer?.delivery(d.channel, metricOutcome(result), result.durationMs / 1000)
        attempt++
        await this.#record(d.id, attempt, result)
        if (result.outcome === OUTCOMES.retry) throw new RetryableAttempt(result)
        return result
      }, {
        retries: retry.retries ?? 2,
        minTimeout: retry.minTimeoutMs ?? 1000,
        maxTimeout: retry.maxTimeoutMs ?? 4000,
        factor: 2,
        unref: true,
        // A Retry-After longer than the in-claim budget goes back to the queue instead.
        shouldRetry: ({ error }) => error instanceof RetryableAttempt && (error.result.retryAfterMs ?? 0) <= (retry.maxTimeoutMs ?? 4000),
      })
    } catch (err) {
      if (!(err instanceof RetryableAttempt)) throw err
      last = err.result
    }
    if (last.outcome === OUTCOMES.delivered) return this.#finish(d, 'delivered', last.status, null, attempt)
    if (last.outcome === OUTCOMES.failed) return this.#finish(d, 'failed', last.status, last.error, attempt)
    const rq = this.#opts.requeue ?? {}
    const rounds = d.rounds + 1
    const now = this.#now()
    const delay = Math.max(last.retryAfterMs ?? 0, Math.min((rq.baseMs ?? 30_000) * 2 ** (rounds - 1), rq.maxMs ?? 600_000))
    if (now + delay > new Date(d.created_at).getTime() + (rq.giveUpAfterMs ?? 3_600_000)) {
      return this.#finish(d, 'failed', last.status, `${last.error ?? 'failed'}; gave up retrying`, attempt)
    }
    await this.#db.query(
      `UPDATE alert_deliveries SET attempts = $3, rounds = $4, next_attempt_at = $5, last_status = $6, last_error = $7, claimed_by = NULL, claimed_until = NULL
       WHERE id = $1 AND claimed_by = $2 AND state = 'queued'`,
      [d.id, this.#opts.workerId, attempt, rounds, ts(now + delay), last.status, last.error])
    return false
  }

  async #finish(d: Claimed, state: 'delivered' | 'failed' | 'cancelled', status: number | null, error: string | null, attempts: number): Promise<boolean> {
    const now = ts(this.#now())
    // A verification code does not outlive its delivery.
    await this.#db.query(
      `UPDATE alert_deliveries SET state = $3, attempts = $4, last_status = $5, last_error = $6, claimed_by = NULL, claimed_until = NULL,
         delivered_at = CASE WHEN $3 = 'delivered' THEN $7::timestamptz ELSE NULL END,
         message = CASE WHEN reason = 'verification' THEN jsonb_build_object('subject', '[Lookout] Verification code', 'text', '(the code is removed once sent)',
           'event', (message->'event') - 'code') ELSE message END
       WHERE id = $1 AND claimed_by = $2 AND state = 'queued'`,
      [d.id, this.#opts.workerId, state, attempts, status, error, now])
    return true
  }

  async #record(id: string, attempt: number, r: AttemptResult): Promise<void> {
    const at = ts(this.#now())
    await this.#db.query(
      `INSERT INTO alert_delivery_attempts (delivery_id, attempt, at, outcome, status, error, duration_ms) VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT DO NOTHING`, [id, attempt, at, r.outcome, r.status, r.error, r.durationMs])
    await this.#db.query('UPDATE alert_deliveries SET last_attempt_at = $2, attempts = GREATEST(attempts, $3) WHERE id = $1', [id, at, attempt])
  }

  async #send(d: Claimed): Promise<AttemptResult> {
    const m = d.message
    const policy = alertPolicyOf(this.#settings)
    // Desktop service: nothing but a webhook on this machine, whatever was saved before (a data directory once served by `lookout serve`).
    if (this.#settings.local === true && d.channel !== 'webhook') {
      return { outcome: OUTCOMES.failed, status: null, error: `refused: local alerts never leave this machine (${d.channel})`, retryAfterMs: null, durationMs: 0 }
    }
    switch (d.channel) {
      case 'webhook':
        return postJson(this.#agent, d.address, JSON.stringify(m.event), {
          'x-lookout-event-id': String(m.event.id), 'x-lookout-event-type': String(m.event.type), 'x-lookout-delivery-id': d.id,
        }, { policy })
      case 'slack':
        return postJson(this.#agent, d.address, JSON.stringify({ text: `*${m.subject}*\n${m.text}` }), {}, { policy })
      case 'discord':
        return postJson(this.#agent, d.address, JSON.stringify({ content: `**${m.subject}**\n${m.text}`.slice(0, 2000), allowed_mentions: { parse: [] } }), {}, { policy })
      case 'sms': {
        if (this.#settings.smsUrl === undefined) return unavailable('sms (LOOKOUT_SMS_URL)')
        const headers: Record<string, string> = { 'idempotency-key': d.id }
        if (this.#settings.smsToken !== undefined) headers.authorization = `Bearer ${this.#settings.smsToken}`
        return postJson(this.#providerAgent, this.#settings.smsUrl, JSON.stringify({ to: d.address, body: smsText(m), id: d.id }), headers, { policy: null })
      }
      case 'email':
        return this.#email(d)
    }
  }

  async #email(d: Claimed): Promise<AttemptResult> {
    if (this.#mail === null) return unavailable('email (LOOKOUT_SMTP_URL)')
    const started = performance.now()
    const took = () => Math.round((performance.now() - started) * 10) / 10
    try {
      await this.#mail.sendMail({
        from: this.#settings.smtpFrom, to: d.address, subject: d.message.subject, text: d.message.text,
        headers: { 'X-Lookout-Delivery-Id': d.id, 'X-Lookout-Event-Id': String(d.message.event.id) },
      })
      return { outcome: OUTCOMES.delivered, status: 250, error: null, retryAfterMs: null, durationMs: took() }
    } catch (err) {
      const e = err as { responseCode?: number; code?: string; message?: string }
      // 5xx from the relay is permanent (bad recipient, refused); 4xx and connection problems are worth retrying.
      const permanent = e.responseCode !== undefined && e.responseCode >= 500
      return {
        outcome: permanent ? OUTCOMES.failed : OUTCOMES.retry, status: e.responseCode ?? null,
        error: `smtp ${e.code ?? 'error'}${e.responseCode !== undefined ? ` ${e.responseCode}` : ''}`, retryAfterMs: null, durationMs: took(),
      }
    }
  }
}

function unavailable(what: string): AttemptResult {
  return { outcome: OUTCOMES.failed, status: null, error: `channel not configured: ${what}`, retryAfterMs: null, durationMs: 0 }
}

function smsText(m: AlertMessage): string {
  return (m.code !== undefined ? m.text : `${m.subject.replace('[Lookout] ', 'Lookout ')}`).slice(0, 320)
}
