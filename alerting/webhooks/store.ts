// Webhook subscriptions and their deliveries. Every change of a subscription
// is checked against the observed generation and bumps it (one conditional
// UPDATE). Saving the configuration cancels the deliveries still queued for
// the previous one; disabling cancels every queued delivery. The signing
// secret is generated here, shown once (creation, rotation) and kept sealed
// with LOOKOUT_SECRET_KEY when the operator configured one.
import { randomBytes, randomUUID } from 'node:crypto'
import type { Database, Sql } from '../../core/index.ts'
import { NotFoundError } from '../../core/index.ts'
import { WebhookDestinationRefusedError, WebhookNotRetryableError, WebhookStaleGenerationError } from '../errors.ts'
import { WEBHOOK_POLICY } from '../../core/index.ts'
import { checkUrl } from '../../core/index.ts'
import { SecretBox } from '../../core/index.ts'
import { WEBHOOK_EVENTS, type WebhookEventType } from './envelope.ts'
import type { AttemptView, DeliveryProgress } from '../alerts/deliveries.ts'

export interface SubscriptionRow {
  id: string
  workspace_id: string
  url: string
  description: string
  board_ids: string[] | null
  assignee_ids: number[] | null
  events: WebhookEventType[]
  enabled: boolean
  generation: number
  secret: Uint8Array
  secret_key_id: string | null
  secret_rotated_at: Date | null
  enabled_at: Date | null
  created_at: Date
  updated_at: Date
}

export interface SubscriptionView {
  id: string
  url: string
  description: string
  board_ids: string[] | null
  assignee_ids: number[] | null
  events: WebhookEventType[]
  enabled: boolean
  state: 'enabled' | 'disabled'
  generation: number
  secret_rotated_at: string | null
  enabled_at: string | null
  created_at: string
  updated_at: string
}

const iso = (d: Date | null) => (d === null ? null : new Date(d).toISOString())

export function subscriptionView(s: SubscriptionRow): SubscriptionView {
  return {
    id: s.id, url: s.url, description: s.description, board_ids: s.board_ids, assignee_ids: s.assignee_ids, events: s.events,
    enabled: s.enabled, state: s.enabled ? 'enabled' : 'disabled', generation: s.generation,
    secret_rotated_at: iso(s.secret_rotated_at), enabled_at: iso(s.enabled_at), created_at: iso(s.created_at) as string, updated_at: iso(s.updated_at) as string,
  }
}

/** A new signing secret: `whsec_` + 32 random bytes, base64url. The HMAC key is this string's UTF-8 bytes. */
export function newSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`
}

const context = (id: string) => `webhook-secret:${id}`

function seal(secretKey: Buffer | undefined, id: string, secret: string): { box: Buffer; keyId: string | null } {
  if (secretKey === undefined) return { box: Buffer.from(secret), keyId: null }
  const b = new SecretBox(secretKey)
  return { box: b.seal(Buffer.from(secret), context(id)), keyId: b.keyId }
}

/** The stored secret in clear; throws when it was sealed with another key than the one configured. */
export function openSecret(secretKey: Buffer | undefined, s: Pick<SubscriptionRow, 'id' | 'secret' | 'secret_key_id'>): string {
  if (s.secret_key_id === null) return Buffer.from(s.secret).toString()
  if (secretKey === undefined) throw new Error('the signing secret is sealed and LOOKOUT_SECRET_KEY is not configured')
  return new SecretBox(secretKey).open(Buffer.from(s.secret), context(s.id)).toString()
}

/** http(s) only; an IP-literal host must be loopback or private (names are checked at every attempt). */
export function checkDestination(url: string): void {
  try {
    checkUrl(url, WEBHOOK_POLICY)
  } catch (err) {
    throw new WebhookDestinationRefusedError((err as Error).message)
  }
}

export interface SubscriptionInput {
  url: string
  description?: string
  board_ids?: string[] | null
  assignee_ids?: number[] | null
  events?: WebhookEventType[]
}

const lower = (ids: string[] | null | undefined) => (ids == null ? null : [...new Set(ids.map((x) => x.toLowerCase()))])
const uniq = <T>(xs: T[] | null | undefined) => (xs == null ? null : [...new Set(xs)])

/** Creates a subscription, disabled; returns it with its secret (shown this once). */
export async function createSubscription(db: Sql, ws: string, input: SubscriptionInput, secretKey: Buffer | undefined): Promise<{ subscription: SubscriptionView; secret: string }> {
  checkDestination(input.url)
  const id = randomUUID()
  const secret = newSecret()
  const sealed = seal(secretKey, id, secret)
  const r = await db.query<SubscriptionRow>(
    `INSERT INTO webhook_subscriptions (id, workspace_id, url, description, board_ids, assignee_ids, events, secret, secret_key_id)
     VALUES ($1, $2, $3, $4, $5::uuid[], $6::int[], $7::text[], $8, $9) RETURNING *`,
    [id, ws, input.url, input.description ?? '', lower(input.board_ids), uniq(input.assignee_ids),
      uniq(input.events) ?? [WEBHOOK_EVENTS.assignmentChanged, WEBHOOK_EVENTS.deleted], sealed.box, sealed.keyId])
  return { subscription: subscriptionView(r.rows[0] as SubscriptionRow), secret }
}

export async function listSubscriptions(db: Sql, ws: string): Promise<SubscriptionView[]> {
  const r = await db.query<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE workspace_id = $1 ORDER BY created_at, id LIMIT 500', [ws])
  return r.rows.map(subscriptionView)
}

export async function getSubscriptionRow(db: Sql, ws: string, id: string): Promise<SubscriptionRow> {
  const r = await db.query<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE workspace_id = $1 AND id = $2', [ws, id.toLowerCase()])
  if (r.rows[0] === undefined) throw new NotFoundError('webhook subscription')
  return r.rows[0]
}

export interface SubscriptionPatch extends Partial<SubscriptionInput> {
  generation: number
  enabled?: boolean
  rotate_secret?: boolean
}

const CONFIG_FIELDS = ['url', 'description', 'board_ids', 'assignee_ids', 'events'] as const

/** Applies a patch at the observed generation; returns the subscription and, on rotation, the new secret. */
export async function updateSubscription(
  db: Database, ws: string, id: string, patch: SubscriptionPatch, secretKey: Buffer | undefined, now: number,
): Promise<{ subscription: SubscriptionView; secret?: string; cancelled: number }> {
  if (patch.url !== undefined) checkDestination(patch.url)
  return db.transaction(async (tx) => {
    const cur = await getSubscriptionRow(tx, ws, id)
    const configChanged = CONFIG_FIELDS.some((f) => patch[f] !== undefined)
    const secret = patch.rotate_secret === true ? newSecret() : undefined
    const sealed = secret === undefined ? null : seal(secretKey, cur.id, secret)
    const enabled = patch.enabled ?? cur.enabled
    const at = new Date(now).toISOString()
    const r = await tx.query<SubscriptionRow>(
      `UPDATE webhook_subscriptions SET url = $4, description = $5, board_ids = $6::uuid[], assignee_ids = $7::int[], events = $8::text[],
         enabled = $9, enabled_at = CASE WHEN $9 AND NOT enabled THEN $10::timestamptz WHEN $9 THEN enabled_at ELSE NULL END,
         secret = COALESCE($11, secret), secret_key_id = CASE WHEN $11::bytea IS NULL THEN secret_key_id ELSE $12 END,
         secret_rotated_at = CASE WHEN $11::bytea IS NULL THEN secret_rotated_at ELSE $10::timestamptz END,
         generation = generation + 1, updated_at = $10
       WHERE workspace_id = $1 AND id = $2 AND generation = $3 RETURNING *`,
      [ws, cur.id, patch.generation, patch.url ?? cur.url, patch.description ?? cur.description,
        patch.board_ids === undefined ? cur.board_ids : lower(patch.board_ids),
        patch.assignee_ids === undefined ? cur.assignee_ids : uniq(patch.assignee_ids),
        patch.events === undefined ? cur.events : uniq(patch.events), enabled, at, sealed?.box ?? null, sealed?.keyId ?? null])
    const row = r.rows[0]
    if (row === undefined) throw new WebhookStaleGenerationError(patch.generation)
    let cancelled = 0
    if (!enabled || configChanged) {
      const c = await tx.query(
        `UPDATE webhook_deliveries SET state = 'cancelled', last_error = $3, claimed_by = NULL, claimed_until = NULL
         WHERE subscription_id = $1 AND state = 'queued' AND generation < $2`,
        [cur.id, row.generation, !enabled ? 'cancelled: the subscription was disabled' : 'cancelled: the configuration was saved'])
      cancelled = c.rowCount
    } else {
      // Enabling or rotating keeps the configuration: queued deliveries carry on under the new generation.
      await tx.query(`UPDATE webhook_deliveries SET generation = $2 WHERE subscription_id = $1 AND state = 'queued'`, [cur.id, row.generation])
    }
    return { subscription: subscriptionView(row), ...(secret !== undefined ? { secret } : {}), cancelled }
  })
}

export async function deleteSubscription(db: Sql, ws: string, id: string): Promise<void> {
  const r = await db.query('DELETE FROM webhook_subscriptions WHERE workspace_id = $1 AND id = $2', [ws, id.toLowerCase()])
  if (r.rowCount === 0) throw new NotFoundError('webhook subscription')
}

// --- deliveries ---

export interface DeliveryView extends DeliveryProgress {
  id: string
  event_id: string
  event_type: WebhookEventType
  state: 'queued' | 'delivered' | 'failed' | 'cancelled'
  generation: number
  task_id: string | null
  occurred_at: string
  attempt_history: (AttemptView & { retry_after_ms: number | null })[]
}

interface DeliveryRow {
  id: string
  seq: string
  event_id: string
  event_type: WebhookEventType
  state: DeliveryView['state']
  generation: number
  task_id: string | null
  occurred_at: Date
  attempts: number
  next_attempt_at: Date
  last_attempt_at: Date | null
  last_status: number | null
  last_error: string | null
  delivered_at: Date | null
  created_at: Date
}

async function viewsOf(db: Sql, rows: readonly DeliveryRow[]): Promise<DeliveryView[]> {
  const ids = rows.map((r) => r.id)
  const a = ids.length === 0 ? { rows: [] } : await db.query<{ delivery_id: string; attempt: number; at: Date; outcome: string; status: number | null; error: string | null; duration_ms: number | null; retry_after_ms: number | null }>(
    `SELECT * FROM (SELECT a.*, row_number() OVER (PARTITION BY delivery_id ORDER BY attempt DESC) AS n FROM webhook_attempts a WHERE delivery_id = ANY($1::uuid[])) x
     WHERE n <= 30 ORDER BY delivery_id, attempt`, [ids])
  const byId = new Map<string, DeliveryView['attempt_history']>()
  for (const x of a.rows) {
    const l = byId.get(x.delivery_id) ?? []
    l.push({ attempt: x.attempt, at: iso(x.at) as string, outcome: x.outcome, status: x.status, error: x.error, duration_ms: x.duration_ms, retry_after_ms: x.retry_after_ms })
    byId.set(x.delivery_id, l)
  }
  return rows.map((d) => ({
    id: d.id, event_id: d.event_id, event_type: d.event_type, state: d.state, generation: d.generation, task_id: d.task_id,
    occurred_at: iso(d.occurred_at) as string, attempts: d.attempts, next_attempt_at: d.state === 'queued' ? iso(d.next_attempt_at) : null,
    last_attempt_at: iso(d.last_attempt_at), last_status: d.last_status, last_error: d.last_error, delivered_at: iso(d.delivered_at),
    created_at: iso(d.created_at) as string, attempt_history: byId.get(d.id) ?? [],
  }))
}

/** A page of a subscription's deliveries, newest first. */
export async function listDeliveries(
  db: Sql, subscriptionId: string, limit: number, beforeSeq: number | null, state: DeliveryView['state'] | undefined,
): Promise<{ items: DeliveryView[]; last: number | null }> {
  const r = await db.query<DeliveryRow>(
    `SELECT *, seq::text AS seq FROM webhook_deliveries WHERE subscription_id = $1 AND ($2::bigint IS NULL OR seq < $2::bigint)
       AND ($3::text IS NULL OR state = $3) ORDER BY webhook_deliveries.seq DESC LIMIT $4`,
    [subscriptionId, beforeSeq === null ? null : String(beforeSeq), state ?? null, limit + 1])
  const rows = r.rows.slice(0, limit)
  const last = rows[rows.length - 1]
  return { items: await viewsOf(db, rows), last: r.rows.length > limit && last !== undefined ? Number(last.seq) : null }
}

export async function getDelivery(db: Sql, subscriptionId: string, id: string): Promise<DeliveryView> {
  const r = await db.query<DeliveryRow>('SELECT *, seq::text AS seq FROM webhook_deliveries WHERE subscription_id = $1 AND id = $2', [subscriptionId, id.toLowerCase()])
  if (r.rows[0] === undefined) throw new NotFoundError('webhook delivery')
  return (await viewsOf(db, r.rows))[0] as DeliveryView
}

/** Queues a webhook.test event for the subscription (enabled or not). */
export async function queueTest(db: Sql, s: SubscriptionRow, now: number): Promise<DeliveryView> {
  const id = randomUUID()
  const at = new Date(now).toISOString()
  await db.query(
    `INSERT INTO webhook_deliveries (id, workspace_id, subscription_id, generation, event_id, event_type, occurred_at, next_attempt_at, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7, $7)`, [id, s.workspace_id, s.id, s.generation, randomUUID(), WEBHOOK_EVENTS.test, at])
  return getDelivery(db, s.id, id)
}

/**
 * Manual retry of a failed (or cancelled) delivery: queued again now, with the
 * same event id, under the subscription's current configuration, with a fresh
 * 24-hour retry window. An event delivery needs the subscription enabled.
 */
export async function retryDelivery(db: Sql, s: SubscriptionRow, deliveryId: string, now: number): Promise<DeliveryView> {
  const cur = await getDelivery(db, s.id, deliveryId)
  if (cur.state !== 'failed' && cur.state !== 'cancelled') throw new WebhookNotRetryableError(`it is ${cur.state}`)
  if (!s.enabled && cur.event_type !== WEBHOOK_EVENTS.test) throw new WebhookNotRetryableError('the subscription is disabled')
  const r = await db.query(
    `UPDATE webhook_deliveries SET state = 'queued', generation = $3, next_attempt_at = $4, window_started_at = NULL,
       claimed_by = NULL, claimed_until = NULL, last_error = NULL
     WHERE subscription_id = $1 AND id = $2 AND state IN ('failed', 'cancelled')`, [s.id, cur.id, s.generation, new Date(now).toISOString()])
  if (r.rowCount === 0) throw new WebhookNotRetryableError('it changed meanwhile')
  return getDelivery(db, s.id, cur.id)
}

/** Whether any webhook signing secret is sealed with a key (the launcher then refuses to invent a new one). */
export async function webhookSecretsSealed(db: Sql): Promise<boolean> {
  const r = await db.query<{ present: boolean }>('SELECT EXISTS (SELECT 1 FROM webhook_subscriptions WHERE secret_key_id IS NOT NULL) AS present')
  return r.rows[0]?.present === true
}
