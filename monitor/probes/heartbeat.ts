// Heartbeat: passive. POST /v1/heartbeat stores the beat time on the check;
// this runner only judges it: a beat within interval + grace is up; none yet
// since the check became active is unknown (waiting); otherwise it is missing.
import type { Sql } from '../../core/index.ts'
import { PROBE_REASONS } from '../errors.ts'
import { outcome, type Outcome, type ProbeContext, type ProbeTarget, type Runner } from './outcome.ts'

export class HeartbeatRunner implements Runner {
  readonly #db: Sql

  constructor(db: Sql) {
    this.#db = db
  }

  async run(target: ProbeTarget, ctx: ProbeContext): Promise<Outcome> {
    const r = await this.#db.query<{ last_beat_at: Date | null }>('SELECT last_beat_at FROM monitor_checks WHERE id = $1', [target.checkId])
    const beat = r.rows[0]?.last_beat_at ?? null
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
