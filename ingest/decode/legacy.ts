// The desktop legacy route: `{resource_id, events}` with caller event ids,
// zoned timestamps and the five legacy severities. Whole-batch validation.
import { LEGACY_BATCH_SCHEMA, LIMITS } from './schemas.ts'
import { createAjv } from '../../core/index.ts'
import { flattenInto } from './flatten.ts'
import { issue, toIssues, type Issue } from '../../core/index.ts'
import type { DecodeContext } from './context.ts'
import { resetRowFields, type RowWriter } from '../rows/rows.ts'
import { parseIsoTime } from '../../core/index.ts'

const validateLegacy = createAjv().compile(LEGACY_BATCH_SCHEMA)

const LEGACY_SEVERITY_NUMBER: Record<string, number> = { debug: 5, info: 9, warning: 13, error: 17, critical: 21 }

interface LegacyEvent {
  id: string
  timestamp: string
  severity: string
  message: string
  attributes?: Record<string, unknown>
}

export type LegacyOutcome =
  | { ok: true; accepted: number; resourceId: string; eventIds: string[] }
  | { ok: false; tooLarge: boolean; issues: Issue[] }

/** Checks the size limits that answer 413 before the schema that answers 400. */
export function legacyTooLarge(body: unknown): Issue | null {
  if (body === null || typeof body !== 'object') return null
  const events = (body as { events?: unknown }).events
  if (!Array.isArray(events)) return null
  if (events.length > LIMITS.legacyEvents) {
    return issue('/events', 'maxItems', `a batch holds at most ${LIMITS.legacyEvents} events`, { limit: LIMITS.legacyEvents })
  }
  for (let i = 0; i < events.length; i++) {
    const size = Buffer.byteLength(JSON.stringify(events[i]))
    if (size > LIMITS.legacyEventBytes) {
      return issue(`/events/${i}`, 'maxBytes', `an event is at most ${LIMITS.legacyEventBytes} encoded bytes (this one is ${size})`, { limit: LIMITS.legacyEventBytes })
    }
  }
  return null
}

export function decodeLegacyBatch(body: unknown, writer: RowWriter, ctx: DecodeContext): LegacyOutcome {
  const big = legacyTooLarge(body)
  if (big !== null) return { ok: false, tooLarge: true, issues: [big] }
  if (!validateLegacy(body)) return { ok: false, tooLarge: false, issues: toIssues(validateLegacy.errors ?? []) }
  const batch = body as { resource_id: string; events: LegacyEvent[] }
  const problems: Issue[] = []
  const f = ctx.fields
  const ids: string[] = []
  for (let i = 0; i < batch.events.length; i++) {
    const e = batch.events[i] as LegacyEvent
    resetRowFields(f)
    const t = parseIsoTime(e.timestamp)
    if (t === null || !t.zoned) {
      problems.push(issue(`/events/${i}/timestamp`, 'format', 'timestamp must be ISO 8601 with a time zone', {}, e.timestamp))
      continue
    }
    if (t.ns > ctx.maxTimeNs) {
      problems.push(issue(`/events/${i}/timestamp`, 'timestampWindow', 'timestamp is more than five minutes in the future', {}, e.timestamp))
      continue
    }
    if (t.ns < ctx.minTimeNs) {
      problems.push(issue(`/events/${i}/timestamp`, 'timestampWindow', 'timestamp is older than the retention period', {}, e.timestamp))
      continue
    }
    if (e.attributes !== undefined && !flattenInto(f, '', e.attributes, 0)) {
      problems.push(issue(`/events/${i}/attributes`, 'maxDepth', 'attributes are nested too deeply (at most 32 levels)'))
      continue
    }
    if (problems.length > 0) continue
    f.timeNs = t.ns.toString()
    f.observedNs = ctx.receivedNs
    f.eventId = e.id
    f.severityText = e.severity
    f.severityNumber = LEGACY_SEVERITY_NUMBER[e.severity] ?? 0
    f.message = e.message
    f.resourceJson = '{}'
    f.scopeName = ''
    f.scopeVersion = ''
    writer.write(f)
    ids.push(e.id)
  }
  if (problems.length > 0) return { ok: false, tooLarge: false, issues: problems }
  return { ok: true, accepted: ids.length, resourceId: batch.resource_id, eventIds: ids }
}
