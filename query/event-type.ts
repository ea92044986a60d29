// The browser's copy of a log event's type (console/src/log-event.ts), written
// from the row model so it cannot drift: the searched columns in table order,
// nanosecond times as RFC 3339 text (null where the sender may give none),
// plus the fields search derives. test/console/bundle.test.ts fails when the
// file differs from this output. Regenerate with:
//   node query/event-type.ts > console/src/log-event.ts
import { SEARCHED_COLUMNS } from '../ingest/index.ts'
import { DERIVED_EVENT_FIELDS, NULLABLE_EVENT_TIMES } from './event.ts'

const TS_TYPES = { uuid: 'string', string: 'string', ns: 'string', uint: 'number', map: 'Record<string, string>' } as const

/** The text of console/src/log-event.ts. */
export function renderLogEventType(): string {
  const fields = SEARCHED_COLUMNS.map((c) => {
    const nullable = (NULLABLE_EVENT_TIMES as readonly string[]).includes(c.name)
    return `  ${c.name}: ${TS_TYPES[c.kind]}${nullable ? ' | null' : ''}`
  })
  for (const [name, type] of Object.entries(DERIVED_EVENT_FIELDS)) fields.push(`  ${name}: ${type}`)
  return [
    '// Generated from the row model (ingest/row-model.ts) by query/event-type.ts: do not edit.',
    '// A log event as the search, context and tail routes return it (query/event.ts).',
    'export interface LogEvent {',
    ...fields,
    '}',
    '',
  ].join('\n')
}

if (import.meta.main) process.stdout.write(renderLogEventType())
