// The cloud JSON batch route: `{events: [...]}` validated whole, then encoded.
import { BATCH_SCHEMA } from './schemas.ts'
import { createAjv } from '../../core/index.ts'
import { flattenInto } from './flatten.ts'
import { issue, toIssues, type Issue } from '../../core/index.ts'
import type { DecodeContext } from './context.ts'
import { resetRowFields, type RowWriter } from '../rows/rows.ts'
import { severityNumberFromText } from '../severity.ts'
import { parseIsoTime } from '../../core/index.ts'

const validateBatch = createAjv().compile(BATCH_SCHEMA)

interface JsonEvent {
  message: string
  timestamp: string | null
  severity: string
  source: string
  attributes?: Record<string, unknown>
  trace_id: string
  span_id: string
}

export type BatchOutcome = { ok: true; accepted: number } | { ok: false; issues: Issue[] }

/**
 * Validates the whole batch: on any problem nothing is kept (the caller drops
 * the writer), and every problem is reported, not only the first.
 */
export function decodeJsonBatch(body: unknown, writer: RowWriter, ctx: DecodeContext): BatchOutcome {
  if (!validateBatch(body)) return { ok: false, issues: toIssues(validateBatch.errors ?? []) }
  const events = (body as { events: JsonEvent[] }).events
  const problems: Issue[] = []
  const f = ctx.fields
  for (let i = 0; i < events.length; i++) {
    const e = events[i] as JsonEvent
    resetRowFields(f)
    if (e.timestamp === null) {
      f.timeNs = ctx.receivedNs
      ctx.unstamped++
    } else {
      const t = parseIsoTime(e.timestamp)
      if (t === null || t.ns < ctx.minTimeNs || t.ns > ctx.maxTimeNs) {
        problems.push(issue(`/events/${i}/timestamp`, 'timestampWindow',
          'timestamp is outside the accepted window (the retention period up to 5 minutes ahead)', {}, e.timestamp))
        continue
      }
      f.timeNs = t.ns.toString()
    }
    if (e.attributes !== undefined && !flattenInto(f, '', e.attributes, 0)) {
      problems.push(issue(`/events/${i}/attributes`, 'maxDepth', 'attributes are nested too deeply (at most 32 levels)'))
      continue
    }
    if (problems.length > 0) continue
    f.observedNs = ctx.receivedNs
    f.message = e.message
    f.severityText = e.severity
    f.severityNumber = severityNumberFromText(e.severity)
    f.source = e.source
    f.traceId = e.trace_id.toLowerCase()
    f.spanId = e.span_id.toLowerCase()
    f.scopeName = ''
    f.scopeVersion = ''
    f.resourceJson = '{}'
    writer.write(f)
  }
  if (problems.length > 0) return { ok: false, issues: problems }
  return { ok: true, accepted: events.length }
}
