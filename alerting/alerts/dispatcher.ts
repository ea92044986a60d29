// The alert dispatcher: consumes the monitor's durable outbox (one row per
// incident opening or closing) and, in the same transaction that marks a row
// processed, writes its inbox notification, its alert deliveries (one per
// routed destination, deduplicated) and the incident's repeat / escalation
// clock. A crash rolls the whole batch back, so a row is dispatched exactly
// once. Its second job fires due repeats and escalations. It only writes
// rows: the sender does the network I/O.
import { claimOutbox, markOutboxProcessed, openIncidentIds, type OutboxPayload } from '../../monitor/index.ts'
import { resourceSummaries } from '../../workspace/index.ts'
import type { Database, Sql } from '../../core/index.ts'
import { insertIncidentNotification } from '../notifications/store.ts'
import { queueDelivery, cancelQueued } from './deliveries.ts'
import { ALERT_EVENT_TYPES, incidentMessage, severityOf, type AlertEventType, type MessageLinks, type ResourceInfo } from './messages.ts'
import { policyAlerts, readPolicy, routedTargets, targetsAmong, type Target } from './routing.ts'
import { nextEscalationAt, nextRepeatAt } from './timers.ts'
import { ACK_PATH, ackLinkKey, createAckLink } from './ack-links.ts'
import { wake } from '../../core/index.ts'

export interface DispatcherOptions {
  workerId: string
  now?: () => number
  /** Outbox rows per transaction. */
  batch?: number
  /** Links in messages (the server's public URL); default http://localhost:8080. */
  links?: MessageLinks
}

const ts = (n: number | null) => (n === null ? null : new Date(n).toISOString())

/** How messages name a resource (its id when it is gone). */
async function resourceInfo(tx: Sql, ws: string, rid: string): Promise<ResourceInfo> {
  const [r] = (await resourceSummaries(tx, ws, [rid])).values()
  return { id: rid, name: r?.name ?? rid, external_id: r?.external_id ?? '' }
}

export class AlertDispatcher {
  readonly #db: Database
  readonly #worker: string
  readonly #now: () => number
  readonly #batch: number
  readonly #links: MessageLinks | undefined
  #ackKey: Buffer | null = null

  constructor(db: Database, opts: DispatcherOptions) {
    this.#db = db
    this.#worker = opts.workerId
    this.#now = opts.now ?? Date.now
    this.#batch = opts.batch ?? 50
    this.#links = opts.links
  }

  /** One round: pending outbox rows, then due timers. Returns the number of deliveries queued. */
  async step(): Promise<number> {
    let queued = 0
    for (;;) {
      const { rows, deliveries } = await this.#outbox()
      queued += deliveries
      if (rows < this.#batch) break
    }
    queued += await this.#timers()
    if (queued > 0) wake('alerts')
    wake('notifications')
    return queued
  }

  async #outbox(): Promise<{ rows: number; deliveries: number }> {
    return this.#db.transaction(async (tx) => {
      const now = this.#now()
      const rows = await claimOutbox(tx, this.#batch)
      let deliveries = 0
      for (const row of rows) {
        const p = row.payload
        const resource = await resourceInfo(tx, p.workspace_id, p.resource_id)
        await insertIncidentNotification(tx, p, resource.name)
        deliveries += await this.#route(tx, p, resource, now)
      }
      await markOutboxProcessed(tx, rows.map((x) => x.id), ts(now) as string, this.#worker)
      return { rows: rows.length, deliveries }
    })
  }

  async #route(tx: Sql, p: OutboxPayload, resource: ResourceInfo, now: number): Promise<number> {
    const severity = severityOf(p)
    const policy = await readPolicy(tx, p.resource_id)
    const opened = p.type === 'incident.opened'
    const alerts = policyAlerts(policy, opened ? 'opened' : 'closed', severity)
    let escalated: readonly string[] = []
    if (opened) {
      const openedAt = Date.parse(p.opened_at)
      const timed = policyAlerts(policy, 'opened', severity)
      // An acknowledgement that arrived before this row keeps the timers off.
      await tx.query(
        `INSERT INTO alert_incidents (incident_id, workspace_id, resource_id, severity, payload, opened_at, next_repeat_at, next_escalation_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7, $8)
         ON CONFLICT (incident_id) DO UPDATE SET severity = EXCLUDED.severity, payload = EXCLUDED.payload, opened_at = EXCLUDED.opened_at,
           next_repeat_at = CASE WHEN alert_incidents.acknowledged_at IS NULL THEN EXCLUDED.next_repeat_at END,
           next_escalation_at = CASE WHEN alert_incidents.acknowledged_at IS NULL THEN EXCLUDED.next_escalation_at END`,
        [p.incident_id, p.workspace_id, p.resource_id, severity, JSON.stringify(p), ts(openedAt),
          ts(timed ? nextRepeatAt(openedAt, 0, policy) : null), ts(timed ? nextEscalationAt(openedAt, 0, policy) : null)])
    } else {
      const r = await tx.query<{ escalation_level: number }>(
        `INSERT INTO alert_incidents (incident_id, workspace_id, resource_id, severity, payload, opened_at, closed_at)
         VALUES ($1, $2, $3, $4, $5::jsonb, $6, $7)
         ON CONFLICT (incident_id) DO UPDATE SET closed_at = EXCLUDED.closed_at, next_repeat_at = NULL, next_escalation_at = NULL
         RETURNING escalation_level`,
        [p.incident_id, p.workspace_id, p.resource_id, severity, JSON.stringify(p), p.opened_at, p.closed_at ?? p.occurred_at])
      await cancelQueued(tx, { incidentId: p.incident_id, reasons: ['repeat', 'escalation'] }, 'cancelled: the incident closed')
      // Whoever the incident was escalated to hears of the recovery too.
      const level = r.rows[0]?.escalation_level ?? 0
      escalated = policy.configuration.escalation.slice(0, level).flatMap((l) => l.destination_ids)
    }
    if (!alerts) return 0
    const targets = await routedTargets(tx, p.resource_id)
    const seen = new Set(targets.map((t) => t.id))
    for (const t of await targetsAmong(tx, p.workspace_id, p.resource_id, escalated)) if (!seen.has(t.id)) targets.push(t)
    const type = opened ? ALERT_EVENT_TYPES.opened : ALERT_EVENT_TYPES.closed
    return this.#queue(tx, targets, p, resource, now, type, 'initial', p.event_id, `${p.event_id}`, {})
  }

  async #queue(
    tx: Sql, targets: readonly Target[], p: OutboxPayload, resource: ResourceInfo, now: number, type: AlertEventType,
    reason: 'initial' | 'repeat' | 'escalation', eventId: string, key: string, extra: { level?: number; repeat?: number },
  ): Promise<number> {
    const links = this.#links ?? { publicUrl: 'http://localhost:8080' }
    const ackKey = type === ALERT_EVENT_TYPES.closed ? null : (this.#ackKey ??= await ackLinkKey(tx))
    let n = 0
    for (const t of targets) {
      // Each recipient gets its own acknowledge link (it acknowledges as that person); a recovery has none.
      const ackUrl = ackKey === null ? undefined : `${links.publicUrl}${ACK_PATH}/${await createAckLink(tx, ackKey, {
        workspaceId: p.workspace_id, resourceId: p.resource_id, incidentId: p.incident_id, destinationId: t.id, acknowledger: t.acknowledger, now,
      })}`
      const message = incidentMessage(type, eventId, ts(now) as string, resource, p, extra, { ...links, ackUrl })
      const id = await queueDelivery(tx, {
        workspaceId: p.workspace_id, resourceId: p.resource_id, destinationId: t.id, channel: t.channel, incidentId: p.incident_id,
        eventType: type, reason, dedupeKey: `${key}:${t.id}`, message, now,
      })
      if (id !== null) n++
    }
    return n
  }

  /** Due repeats and escalations of open, unacknowledged incidents. */
  async #timers(): Promise<number> {
    return this.#db.transaction(async (tx) => {
      const now = this.#now()
      const r = await tx.query<{
        incident_id: string; workspace_id: string; resource_id: string; severity: string; payload: OutboxPayload; opened_at: Date
        repeats: number; next_repeat_at: Date | null; escalation_level: number; next_escalation_at: Date | null
      }>(
        `SELECT ai.*
         FROM alert_incidents ai
         WHERE ai.closed_at IS NULL AND ai.acknowledged_at IS NULL AND ai.payload IS NOT NULL
           AND (ai.next_repeat_at <= $1 OR ai.next_escalation_at <= $1)
         ORDER BY ai.incident_id LIMIT 100 FOR UPDATE OF ai SKIP LOCKED`, [ts(now)])
      // Monitor's incidents are monitor's: one closed there (its close not dispatched yet) repeats nothing
      // more, ever (a closed incident never reopens), so its timers stop and it leaves the due page.
      const open = await openIncidentIds(tx, r.rows.map((i) => i.incident_id))
      const ended = r.rows.filter((i) => !open.has(i.incident_id)).map((i) => i.incident_id)
      if (ended.length > 0) {
        await tx.query('UPDATE alert_incidents SET next_repeat_at = NULL, next_escalation_at = NULL WHERE incident_id = ANY($1::uuid[])', [ended])
      }
      let queued = 0
      for (const i of r.rows) {
        if (!open.has(i.incident_id)) continue
        const policy = await readPolicy(tx, i.resource_id)
        const resource = await resourceInfo(tx, i.workspace_id, i.resource_id)
        const alerts = policyAlerts(policy, 'opened', i.severity)
        let repeats = i.repeats
        let nextRepeat = i.next_repeat_at === null ? null : new Date(i.next_repeat_at).getTime()
        let level = i.escalation_level
        let nextEscalation = i.next_escalation_at === null ? null : new Date(i.next_escalation_at).getTime()
        if (nextRepeat !== null && nextRepeat <= now) {
          repeats++
          if (alerts) {
            queued += await this.#queue(tx, await routedTargets(tx, i.resource_id), i.payload, resource, now, ALERT_EVENT_TYPES.reminder, 'repeat',
              crypto.randomUUID(), `${i.incident_id}:repeat:${repeats}`, { repeat: repeats })
          }
          // From the due time, so reminders do not drift; after a long pause, from now.
          const from = now - nextRepeat > policy.configuration.repeat_minutes * 60_000 ? now : nextRepeat
          nextRepeat = alerts ? nextRepeatAt(from, repeats, policy) : null
        }
        if (nextEscalation !== null && nextEscalation <= now) {
          const stage = policy.configuration.escalation[level]
          level++
          if (alerts && stage !== undefined) {
            queued += await this.#queue(tx, await targetsAmong(tx, i.workspace_id, i.resource_id, stage.destination_ids), i.payload, resource, now,
              ALERT_EVENT_TYPES.escalated, 'escalation', crypto.randomUUID(), `${i.incident_id}:escalation:${level}`, { level })
          }
          nextEscalation = alerts ? nextEscalationAt(new Date(i.opened_at).getTime(), level, policy) : null
        }
        await tx.query(
          `UPDATE alert_incidents SET repeats = $2, next_repeat_at = $3, escalation_level = $4, next_escalation_at = $5 WHERE incident_id = $1`,
          [i.incident_id, repeats, ts(nextRepeat), level, ts(nextEscalation)])
      }
      return queued
    })
  }
}
