// One log line; Enter/Space or a click opens its attributes, ids and scope.
// Each attribute value narrows the search to it (AND) or, with "−", excludes it.
import type { LogEvent } from '../types.ts'
import { Highlight } from './highlight.tsx'

function time(ts: string): string {
  // RFC 3339 with nanoseconds: keep milliseconds for reading.
  const d = new Date(ts)
  return `${d.toLocaleDateString('en-CA')} ${d.toLocaleTimeString('en-GB')}.${String(d.getMilliseconds()).padStart(3, '0')}`
}

export type OnFilter = (scope: 'attr' | 'resource', key: string, value: string, negate: boolean) => void

function Pairs({ title, scope, values, onFilter }: { title: string; scope: 'attr' | 'resource'; values: Record<string, string>; onFilter: OnFilter }) {
  const keys = Object.keys(values).sort()
  if (keys.length === 0) return null
  return (
    <div class="pairs">
      <h3>{title}</h3>
      <dl>
        {keys.map((k) => [
          <dt key={`k${k}`}>{k}</dt>,
          <dd key={`v${k}`}>
            <button type="button" class="link" title={`Only lines where ${k} is "${values[k]}"`} data-filter={`${scope}.${k}`}
              onClick={() => onFilter(scope, k, values[k] ?? '', false)}>{values[k]}</button>
            <button type="button" class="exclude" aria-label={`Exclude ${k} ${values[k]}`} title={`Hide lines where ${k} is "${values[k]}"`}
              onClick={() => onFilter(scope, k, values[k] ?? '', true)}>−</button>
          </dd>,
        ])}
      </dl>
    </div>
  )
}

export function LogRow({ event: e, resource, service, terms, open, hit, onToggle, onTrace, onFilter, onContext }: {
  event: LogEvent; resource?: string | undefined; service: boolean; terms: readonly string[]; open: boolean; hit: boolean
  onToggle: () => void; onTrace: (t: string) => void; onFilter: OnFilter; onContext: () => void
}) {
  const level = e.severity || 'UNSET'
  const cols = service ? 4 : 3
  return (
    <>
      <tr class={`log ${open ? 'open' : ''} ${hit ? 'hit' : ''}`} onClick={onToggle}>
        <td class="c-time mono">
          {/* The row's keyboard handle: Tab reaches it, Enter or Space opens the details. */}
          <button type="button" class="row-toggle" aria-expanded={open} aria-label={`${open ? 'Close' : 'Open'} details of the line at ${time(e.timestamp)}`}
            onClick={(ev) => { ev.stopPropagation(); onToggle() }}>{open ? '▾' : '▸'}</button>
          {time(e.timestamp)}
        </td>
        <td class="c-sev"><span class={`sev sev-${level}`}>{e.severity_text || level}</span></td>
        {service && <td class="c-svc">{e.resource_attributes['service.name'] ?? ''}</td>}
        <td class="c-msg mono">
          {resource !== undefined && <span class="res-tag">{resource}</span>}<Highlight text={e.message} terms={terms} />
          <button type="button" class="btn small ctx-btn" aria-pressed={hit} onClick={(ev) => { ev.stopPropagation(); onContext() }}>
            {hit ? 'Hide context' : 'Show context'}
          </button>
        </td>
      </tr>
      {open && (
        <tr class="detail">
          <td colSpan={cols}>
            <div class="detail-grid">
              <div class="pairs">
                <h3>Event</h3>
                <dl>
                  <dt>trace_id</dt>
                  <dd>{e.trace_id === '' ? <span class="muted">none</span> : <button type="button" class="link mono" title="Show every line of this trace" onClick={() => onTrace(e.trace_id)}>{e.trace_id}</button>}</dd>
                  <dt>span_id</dt><dd class="mono">{e.span_id || <span class="muted">none</span>}</dd>
                  <dt>scope</dt><dd>{e.scope_name || <span class="muted">none</span>}{e.scope_version !== '' ? ` ${e.scope_version}` : ''}</dd>
                  <dt>source</dt><dd>{e.source || <span class="muted">none</span>}</dd>
                  <dt>received</dt><dd class="mono">{e.received_at}</dd>
                  <dt>event_id</dt><dd class="mono">{e.event_id}</dd>
                </dl>
              </div>
              <Pairs title="Attributes" scope="attr" values={e.attributes} onFilter={onFilter} />
              <Pairs title="Resource attributes" scope="resource" values={e.resource_attributes} onFilter={onFilter} />
            </div>
          </td>
        </tr>
      )}
    </>
  )
}
