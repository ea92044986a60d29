// What a log query asks for, once parsed: the scope (workspace and resources),
// the time range, the severity floor, the text query, the trace id and the
// attribute filters.
import { createHash } from 'node:crypto'
import { SEVERITY_RANGES, type SeverityName } from '../ingest/index.ts'
import type { TextQuery } from './text.ts'
import type { AttrMatch } from './attrs.ts'

export interface LogFilter {
  workspaceId: string
  /** Resources to read; null means every resource of the workspace. */
  resourceIds: readonly string[] | null
  /** Inclusive lower bound of the event time, nanoseconds since the epoch. */
  startNs: bigint | null
  /** Exclusive upper bound of the event time. */
  endNs: bigint | null
  /** Events at this OTLP severity number or above; null: every event. */
  minSeverity: number | null
  text: TextQuery | null
  /** 32 lowercase hex digits. */
  traceId: string | null
  /** attr./resource. filters, all ANDed; absent: none. */
  attrs?: readonly AttrMatch[]
}

/** A row's place in the order: newest timestamp first, then event id, then resource id (all descending). */
export interface Position {
  tsNs: bigint
  eventId: string
  resourceId: string
}

/** The level names the routes accept (cloud: the six upper-case names; desktop: any case, plus its own aliases). */
export const SEVERITY_LEVELS = ['TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL'] as const satisfies readonly SeverityName[]

const ALIASES: Record<string, SeverityName> = {
  trace: 'TRACE', debug: 'DEBUG', info: 'INFO', warn: 'WARN', warning: 'WARN', error: 'ERROR', fatal: 'FATAL', critical: 'FATAL',
}

/**
 * The severity floor a level name stands for: "at least this level", i.e. the
 * first OTLP severity number of its range (WARN → 13: WARN, ERROR and FATAL).
 * null when the name is not a level.
 */
export function severityFloor(name: string): number | null {
  const level = ALIASES[name.toLowerCase()]
  return level === undefined ? null : SEVERITY_RANGES[level][0]
}

/** A short digest of everything but paging, so a cursor only continues the query it came from. */
export function filterDigest(f: LogFilter): string {
  const canon = JSON.stringify([
    f.workspaceId,
    f.resourceIds === null ? null : [...f.resourceIds].sort(),
    f.startNs?.toString() ?? null,
    f.endNs?.toString() ?? null,
    f.minSeverity,
    f.text === null ? null : [f.text.terms, f.text.anyOf, f.text.not].map((ts) => JSON.stringify(ts).toLowerCase()),
    f.traceId,
    (f.attrs ?? []).map((a) => [a.scope, a.key, a.value, a.negate]),
  ])
  return createHash('sha256').update(canon).digest().subarray(0, 9).toString('base64url')
}
