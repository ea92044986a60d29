// Heartbeat: passive. POST /v1/heartbeat stores the beat time on the check;
// this runner only judges it: a beat within interval + grace is up; none yet
// since the check became active is unknown (waiting); otherwise it is missing.
import type { Sql } from '../../core/index.ts'
import { LIMITS } from '../config-parts.ts'
import { PROBE_REASONS } from '../errors.ts'
import { declareKind } from './kind.ts'
import { outcome, type Outcome, type ProbeContext, type ProbeTarget, type Runner } from './outcome.ts'

export interface HeartbeatConfig { grace_seconds: number; missing: 'unhealthy' | 'unknown' }

/**
 * The beats of every heartbeat probe started within this window are read in one statement: at
 * thousands of heartbeat checks a statement per probe cost the embedded database ten times more.
 */
const READ_WINDOW_MS = 50

export class HeartbeatRunner implements Runner {
  readonly #db: Sql
  #waiting = new Map<string, { resolve: (beat: Date | null) => void; reject: (err: unknown) => void }[]>()
  #timer: NodeJS.Timeout | null = null

  constructor(db: Sql) {
    this.#db = db
  }

  /** The check's last beat, read together with the others asked for within the window. */
  #lastBeat(checkId: string): Promise<Date | null> {
    return new Promise((resolve, reject) => {
      const list = this.#waiting.get(checkId)
      if (list === undefined) this.#waiting.set(checkId, [{ resolve, reject }])
      else list.push({ resolve, reject })
      this.#timer ??= setTimeout(() => void this.#read(), READ_WINDOW_MS)
    })
  }

  async #read(): Promise<void> {
    const waiting = this.#waiting
    this.#waiting = new Map()
    this.#timer = null
    try {
      const r = await this.#db.query<{ id: string; last_beat_at: Date | null }>(
        'SELECT id, last_beat_at FROM monitor_checks WHERE id = ANY($1::uuid[])', [[...waiting.keys()]])
      const beats = new Map(r.rows.map((x) => [x.id, x.last_beat_at]))
      for (const [id, list] of waiting) for (const w of list) w.resolve(beats.get(id) ?? null)
    } catch (err) {
      for (const list of waiting.values()) for (const w of list) w.reject(err)
    }
  }

  async run(target: ProbeTarget, ctx: ProbeContext): Promise<Outcome> {
    const beat = await this.#lastBeat(target.checkId)
    const last = beat === null ? null : new Date(beat).getTime()
    const window = target.intervalMs + target.graceMs
    const details = { last_beat_at: last === null ? null : new Date(last).toISOString(), window_seconds: window / 1000 }
    if (last !== null && ctx.now - last <= window) {
      const o = outcome('up', PROBE_REASONS.ok, `last beat ${Math.round((ctx.now - last) / 1000)} s ago`, null, details)
      o.recheckAt = last + window + 1
      return o
    }
    if (ctx.now - target.activeSince <= window) {
      const o = outcome('unknown', PROBE_REASONS.beatWaiting, 'waiting for the first beat', null, details)
      o.recheckAt = target.activeSince + window + 1
      return o
    }
    const since = last === null ? 'no beat received' : `last beat ${Math.round((ctx.now - last) / 1000)} s ago`
    return outcome('missing', PROBE_REASONS.beatMissing, `${since}; expected one every ${target.intervalMs / 1000} s (+${target.graceMs / 1000} s grace)`, null, details)
  }
}

export const HEARTBEAT_KIND = declareKind({
  name: 'heartbeat',
  spec: { concurrency: 64, locations: ['heartbeat'], refusal: 'a heartbeat check has location heartbeat' },
  properties: {
    grace_seconds: { type: 'integer', minimum: 0, maximum: LIMITS.intervalMax, default: 30 },
    // The desktop spec: "missing heartbeat goes to unknown"; `unhealthy` is the opt-in alerting mode.
    missing: { type: 'string', enum: ['unhealthy', 'unknown'], default: 'unknown' },
  },
  passive: { graceMs: (c) => (c as unknown as HeartbeatConfig).grace_seconds * 1000 },
  runner: (d) => {
    if (d.db === null) throw new Error('heartbeat checks are judged from the store: no runner without one')
    return new HeartbeatRunner(d.db)
  },
})
