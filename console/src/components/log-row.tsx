// One log line; Enter/Space or a click opens its attributes, ids and scope.
import type { LogEvent } from '../types.ts'

function time(ts: string): string {
  // RFC 3339 with nanoseconds: keep milliseconds for reading.
  const d = new Date(ts)
  return `${d.toLocaleDateString('en-CA')} ${d.toLocaleTimeString('en-GB')}.${String(d.getMilliseconds()).padStart(3, '0')}`
}

function Pairs({ title, values, onValue }: { title: string; values: Record<string, string>; onValue: (v: string) => void }) {
  const keys = Object.keys(values).sort()
  if (keys.length === 0) return null
  return (
    <div class="pairs">
      <h3>{title}</h3>
      <dl>
        {keys.map((k) => [
          <dt key={`k${k}`}>{k}</dt>,
          <dd key={`v${k}`}><button type="button" class="link" title={`Filter by "${values[k]}"`} onClick={() => onValue(values[k] ?? '')}>{values[k]}</button></dd>,
        ])}
      </dl>
    </div>
  )
}

export function LogRow({ event: e, resource, open, onToggle, onTrace, onValue }: {
  event: LogEvent; resource?: string | undefined; open: boolean; onToggle: () => void; onTrace: (t: string) => void; onValue: (v: string) => void
}) {
  const level = e.severity || 'UNSET'
  return (
    <>
      <tr class={`log ${open ? 'open' : ''}`} onClick={onToggle}>
        <td class="c-time mono">
          {/* The row's keyboard handle: Tab reaches it, Enter or Space opens the details. */}
          <button type="button" class="row-toggle" aria-expanded={open} aria-label={`${open ? 'Close' : 'Open'} details of the line at ${time(e.timestamp)}`}
            onClick={(ev) => { ev.stopPropagation(); onToggle() }}>{open ? '▾' : '▸'}</button>
          {time(e.timestamp)}
        </td>
        <td class="c-sev"><span class={`sev sev-${level}`}>{e.severity_text || level}</span></td>
        <td class="c-msg mono">{resource !== undefined && <span class="res-tag">{resource}</span>}{e.message}</td>
      </tr>
      {open && (
        <tr class="detail">
          <td colSpan={3}>
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
              <Pairs title="Attributes" values={e.attributes} onValue={onValue} />
              <Pairs title="Resource attributes" values={e.resource_attributes} onValue={onValue} />
            </div>
          </td>
        </tr>
      )}
    </>
  )
}
