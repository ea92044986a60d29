// Notices collectors that stopped reporting (runs in the monitor role beside
// the scheduler). A source is silent when its last contact is older than
// max(silenceMinMs, silenceFactor x the longest interval of its checks): its
// checks become unknown (never down: silence is no evidence about targets) and
// one "collector offline" incident opens. The flip is one conditional UPDATE
// (offline_since from null), so several monitor processes running this at once
// raise it once; a unique index on open offline incidents per source backs it.
// The incident closes when the collector makes contact again (store.ts).
import { randomUUID } from 'node:crypto'
import type { Database, Sql } from '../../core/index.ts'
import { systemClock, type Clock } from '../clock.ts'
import { iso } from '../rows.ts'
import { pruneObservationLedger } from './observations.ts'
import { writeSourceIncidentEvents } from './outbox.ts'

export interface CollectorWatchOptions {
  clock?: Clock
  /** Shortest silence that makes a collector offline. Default 60 s (above the collector's 20 s long poll). */
  silenceMinMs?: number
  /** Silence in intervals of the source's longest check interval. Default 3. */
  silenceFactor?: number
  /** How often to look. Default 5 s. */
  everyMs?: number
  logger?: { warn(obj: object, msg: string): void }
}

export const DEFAULT_SILENCE_MIN_MS = 60_000
export const DEFAULT_SILENCE_FACTOR = 3
const PRUNE_EVERY_MS = 10 * 60_000
const PRUNE_CHUNK = 5_000

interface Silent {
  id: string
  workspace_id: string
  resource_id: string
  name: string
  silence_ms: number
  last_contact_at: Date
}

export class CollectorWatch {
  readonly #db: Database
  readonly #clock: Clock
  readonly #silenceMinMs: number
  readonly #factor: number
  readonly #everyMs: number
  readonly #log: { warn(obj: object, msg: string): void }
  #timer: unknown = null
  #running: Promise<void> = Promise.resolve()
  #stopped = true
  #lastPrune = -Infinity
  #pruning = false

  constructor(db: Database, opts: CollectorWatchOptions = {}) {
    this.#db = db
    this.#clock = opts.clock ?? systemClock
    this.#silenceMinMs = opts.silenceMinMs ?? DEFAULT_SILENCE_MIN_MS
    this.#factor = opts.silenceFactor ?? DEFAULT_SILENCE_FACTOR
    this.#everyMs = opts.everyMs ?? 5_000
    this.#log = opts.logger ?? { warn: (obj, msg) => console.error(`collector watch: ${msg}`, obj) }
  }

  start(): void {
    this.#stopped = false
    this.#arm()
  }

  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#timer !== null) this.#clock.clearTimeout(this.#timer)
    this.#timer = null
    await this.#running.catch(() => undefined)
  }

  #arm(): void {
    if (this.#stopped) return
    this.#timer = this.#clock.setTimeout(() => {
      this.#timer = null
      this.#running = this.step().then(() => undefined, (err: unknown) => this.#log.warn({ err }, 'collector watch failed')).finally(() => this.#arm())
    }, this.#everyMs)
  }

  /** One round: declare silent collectors offline; prune the observation ledger now and then. Returns the sources declared offline. */
  async step(): Promise<string[]> {
    const now = this.#clock.now()
    const silent = await this.#db.transaction(async (tx) => {
      const r = await tx.query<Silent>(
        `WITH candidate AS (
           SELECT s.id, GREATEST($2::float8, $3::float8 * COALESCE((SELECT max(c.interval_ms) FROM monitor_checks c
             WHERE c.source_id = s.id AND c.location = 'collector' AND c.enabled), 0)) AS silence_ms
           FROM monitor_sources s
           WHERE s.kind = 'collector' AND s.revoked_at IS NULL AND s.offline_since IS NULL AND s.last_contact_at IS NOT NULL)
         UPDATE monitor_sources s SET offline_since = $1
         FROM candidate WHERE s.id = candidate.id AND s.offline_since IS NULL AND s.revoked_at IS NULL
           AND s.last_contact_at < $1::timestamptz - make_interval(secs => candidate.silence_ms / 1000)
         RETURNING s.id, s.workspace_id, s.resource_id, s.name, candidate.silence_ms, s.last_contact_at`,
        [iso(new Date(now)), this.#silenceMinMs, this.#factor])
      const opened: string[] = []
      for (const s of r.rows) {
        const id = await goOffline(tx, s, now)
        if (id !== null) opened.push(id)
      }
      await writeSourceIncidentEvents(tx, 'incident.opened', opened, now)
      // A revoked source is gone for good, not offline: its incident closes.
      const revoked = await tx.query<{ id: string }>(
        `UPDATE monitor_incidents i SET closed_at = $1, close_reason = 'the source was revoked'
         FROM monitor_sources s WHERE i.kind = 'collector_offline' AND i.closed_at IS NULL AND s.id = i.source_id AND s.revoked_at IS NOT NULL
         RETURNING i.id`,
        [iso(new Date(now))])
      await writeSourceIncidentEvents(tx, 'incident.closed', revoked.rows.map((x) => x.id), now)
      return r.rows
    })
    if (this.#pruning || now - this.#lastPrune >= PRUNE_EVERY_MS) {
      this.#lastPrune = now
      // A chunk per round until the backlog is gone (1,000 checks a minute add 1.4 million ids a day).
      this.#pruning = (await pruneObservationLedger(this.#db, now, PRUNE_CHUNK)) === PRUNE_CHUNK
    }
    return silent.map((s) => s.id)
  }
}

/** Opens the source's offline incident and makes its checks unknown; returns the incident's id (null: one was open already). */
async function goOffline(tx: Sql, s: Silent, now: number): Promise<string | null> {
  const at = iso(new Date(now))
  const seconds = Math.round(s.silence_ms / 1000)
  const reason = `collector ${JSON.stringify(s.name)} has not reported for over ${seconds} s (last contact ${iso(s.last_contact_at)})`
  const incident = await tx.query<{ id: string }>(
    `INSERT INTO monitor_incidents (id, workspace_id, resource_id, check_id, kind, source_id, opened_at, open_reason, notified_open)
     VALUES ($1, $2, $3, NULL, 'collector_offline', $4, $5, $6, false) ON CONFLICT DO NOTHING RETURNING id`,
    [randomUUID(), s.workspace_id, s.resource_id, s.id, at, reason])
  // Unknown, never down: silence says nothing about the targets. Confirmation starts over.
  const changed = await tx.query<{ id: string; workspace_id: string; resource_id: string; old: string }>(
    `UPDATE monitor_checks c SET health = 'unknown', health_since = CASE WHEN o.old <> 'unknown' THEN $2::timestamptz ELSE c.health_since END,
       candidate = NULL, streak = 0
     FROM (SELECT id, health AS old FROM monitor_checks WHERE source_id = $1 AND location = 'collector' AND enabled FOR UPDATE) o
     WHERE c.id = o.id AND (o.old <> 'unknown' OR c.streak > 0)
     RETURNING c.id, c.workspace_id, c.resource_id, o.old`, [s.id, at])
  const transitions = changed.rows.filter((c) => c.old !== 'unknown')
  if (transitions.length > 0) {
    await tx.query(
      `INSERT INTO monitor_transitions (workspace_id, resource_id, check_id, from_health, to_health, reason, at)
       SELECT v.ws, v.rid, v.cid, v.f, 'unknown', $2, $3 FROM jsonb_to_recordset($1::jsonb) AS v(ws uuid, rid uuid, cid uuid, f text)`,
      [JSON.stringify(transitions.map((c) => ({ ws: c.workspace_id, rid: c.resource_id, cid: c.id, f: c.old }))), reason, at])
  }
  return incident.rows[0]?.id ?? null
}
