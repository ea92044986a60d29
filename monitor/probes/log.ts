// The `log` check: one count of the lines matching a log query over the last
// `window_seconds`, judged against a threshold. The log store is reached
// through a port (LogSource) the monitor role wires to the query stage, so the
// monitor stage depends on no store. Unknown, never up or down, when the store
// cannot answer or when lines received before the window's end may still be
// waiting in the loader's backlog.
import { PROBE_REASONS } from '../errors.ts'
import { CONFIRMATIONS } from '../vocabulary.ts'
import type { CheckState } from '../state.ts'
import type { LogConfig, LogQuery } from '../log-config.ts'
import { outcome, type Outcome, type ProbeContext, type ProbeTarget, type Runner } from './outcome.ts'

export interface LogSample {
  /** RFC 3339 UTC, nanoseconds. */
  time: string
  severity: string
  message: string
}

export interface LogCount {
  count: number
  /** Up to five matching lines, newest first. */
  samples: LogSample[]
}

export interface LogCountRequest {
  workspaceId: string
  resourceId: string
  query: LogQuery
  startMs: number
  endMs: number
  timeoutMs: number
  /** Whether the five newest matching lines are wanted (they cost an aggregate over the matching rows: asked for only while they matter). */
  samples: boolean
}

/** The monitor role's access to the log store (deploy wires it to query/ and the broker). */
export interface LogSource {
  /** One count query; throws when the store cannot answer. */
  count(req: LogCountRequest): Promise<LogCount>
  /** Receive time (ms) of the oldest line accepted but not stored yet; null when none waits. Throws when unknown. */
  oldestPending(): Promise<number | null>
}

/** What a log observation records in its details (`details.log`): the incident page and the alerts show it. */
export interface LogEvidence {
  query: LogQuery
  comparison: LogConfig['comparison']
  threshold: number
  window_seconds: number
  count: number
  window_start: string
  window_end: string
  samples: LogSample[]
  /** The console's explorer over the exact query and absolute window (a hash route of the console page). */
  explorer: string
}

export const SAMPLE_MESSAGE_CHARS = 200

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n)}…` : s)

/** `#/logs/<resource>?start=…&end=…&severity=…&q=…&trace_id=…`, the explorer's own URL format (console/src/pages/explorer.tsx). */
export function explorerHash(resourceId: string, q: LogQuery, startMs: number, endMs: number): string {
  const p = new URLSearchParams()
  p.set('start', new Date(startMs).toISOString())
  p.set('end', new Date(endMs).toISOString())
  if (q.severity !== undefined) p.set('severity', q.severity)
  if (q.q !== undefined && q.q !== '') p.set('q', q.q)
  if (q.trace_id !== undefined) p.set('trace_id', q.trace_id)
  return `#/logs/${encodeURIComponent(resourceId)}?${p.toString()}`
}

function describeQuery(q: LogQuery): string {
  const parts: string[] = []
  if (q.q !== undefined && q.q !== '') parts.push(JSON.stringify(q.q))
  if (q.severity !== undefined) parts.push(`severity ≥ ${q.severity}`)
  if (q.trace_id !== undefined) parts.push(`trace ${q.trace_id}`)
  return parts.length === 0 ? 'any line' : parts.join(', ')
}

/**
 * Whether this observation's count should read the five newest matching lines: not while the
 * check is steady, i.e. `up` for two observations in a row with no incident, or `down` for two with
 * its incident open and its opening notice written (the two confirming downs, the one that sends
 * a notice deferred by maintenance and the two recovering ups all read them). Without a state
 * (not the monitor's scheduler), always. The state is the stored one, so a restart changes nothing.
 */
function steadyWay(state: Readonly<CheckState> | undefined): 'up' | 'down' | null {
  if (state === undefined || state.streak < CONFIRMATIONS) return null
  if (state.candidate === 'up' && state.openIncidentId === null) return 'up'
  if (state.candidate === 'down' && state.openIncidentId !== null && state.incidentNotified) return 'down'
  return null
}

export class LogRunner implements Runner {
  readonly #source: LogSource | null

  constructor(source: LogSource | null) {
    this.#source = source
  }

  async run(target: ProbeTarget, ctx: ProbeContext): Promise<Outcome> {
    const c = target.config as unknown as LogConfig
    const source = this.#source
    if (source === null || target.resource === undefined) return outcome('unknown', PROBE_REASONS.logUnavailable, 'this process has no log store to count lines in')
    const endMs = ctx.now
    const startMs = endMs - c.window_seconds * 1000
    const started = performance.now()
    let pending: number | null
    let result: LogCount
    try {
      // Lines received before the window's end and not stored yet would be missing from the count.
      pending = await source.oldestPending()
      if (pending !== null && pending < endMs) {
        return outcome('unknown', PROBE_REASONS.logLagging,
          `the loader's backlog starts at ${new Date(pending).toISOString()}, before the window's end (${new Date(endMs).toISOString()}): lines may not be stored yet`)
      }
      const steady = steadyWay(ctx.state)
      const req: LogCountRequest = {
        workspaceId: target.resource.workspaceId, resourceId: target.resource.resourceId, query: c.query, startMs, endMs, timeoutMs: target.timeoutMs,
        samples: steady === null,
      }
      result = await source.count(req)
      // A steady check counted without lines that now turns: count again with them (an incident or its recovery quotes them).
      if (steady !== null && (this.#crossed(c, result.count) ? 'down' : 'up') !== steady) result = await source.count({ ...req, samples: true })
    } catch (err) {
      return outcome('unknown', PROBE_REASONS.logUnavailable, `the log store cannot answer: ${clip(String((err as Error)?.message ?? err), 300)}`)
    }
    const latency = performance.now() - started
    const crossed = this.#crossed(c, result.count)
    const samples = result.samples.slice(0, 5).map((s) => ({ time: s.time, severity: s.severity, message: clip(s.message, SAMPLE_MESSAGE_CHARS) }))
    const evidence: LogEvidence = {
      query: c.query, comparison: c.comparison, threshold: c.threshold, window_seconds: c.window_seconds, count: result.count,
      window_start: new Date(startMs).toISOString(), window_end: new Date(endMs).toISOString(), samples,
      explorer: explorerHash(target.resource.resourceId, c.query, startMs, endMs),
    }
    const side = crossed ? c.comparison : (c.comparison === 'above' ? 'not above' : 'not below')
    let reason = `${result.count} line${result.count === 1 ? '' : 's'} matched ${describeQuery(c.query)} in ${c.window_seconds} s ` +
      `(${evidence.window_start} to ${evidence.window_end}), ${side} the threshold of ${c.threshold}`
    if (samples.length > 0) reason += `; newest: ${samples.map((s) => `[${s.time} ${s.severity || '-'}] ${clip(s.message, 120)}`).join(' | ')}`
    return outcome(crossed ? 'down' : 'up', crossed ? PROBE_REASONS.logThreshold : PROBE_REASONS.ok, reason, latency, { log: evidence })
  }

  #crossed(c: LogConfig, count: number): boolean {
    return c.comparison === 'above' ? count > c.threshold : count < c.threshold
  }
}
