// One incident (#/incident/<resource>/<incident>): what it is, its timeline
// (opened, the observations that confirmed it, each notification and its
// result, acknowledgement, escalations, resolution), the check's recent
// observations and, for a log check, the matching lines with a link to the explorer.
import { resPath } from '../api.ts'
import { usePolled } from '../poll.ts'
import { href, type Route } from '../router.ts'
import { StatePill, DeliveryPill } from '../components/pills.tsx'
import { latencyOf, shortReason, stateOf, stateSince, target, who } from '../components/check-state.ts'
import { ResponseTimes, UptimeBar, UptimeLegend } from '../components/uptime.tsx'
import { EVENT_WORDS, acknowledge, type IncidentPage as Body, type LogEvidence, type TimelineEntry } from '../on-call.ts'
import { fmtDateTime, fmtDuration } from '../time.ts'
import type { Session } from '../types.ts'

function describe(e: TimelineEntry, me: string | null, labels: ReadonlyMap<string, string>): string {
  const s = (k: string) => (e[k] == null ? '' : String(e[k]))
  switch (e.type) {
    case 'observation': return `Observation ${s('status')}${s('reason') !== '' ? `: ${shortReason(s('reason'))}` : ''}`
    case 'opened': return `Incident opened: ${shortReason(s('reason'))}`
    case 'notification': {
      const to = s('destination_label') || s('destination')
      const result = s('state') === 'delivered' ? 'delivered' : s('state') === 'failed' ? `failed${s('last_error') !== '' ? ` (${s('last_error')})` : s('last_status') !== '' ? ` (HTTP ${s('last_status')})` : ''}` : s('state')
      return `Notification (${EVENT_WORDS[s('event_type')] ?? s('event_type')}) over ${s('channel')} to ${to}: ${result}`
    }
    case 'acknowledged': return `Acknowledged by ${who(s('by') || null, me, labels)}`
    case 'escalated': return `Escalated to level ${s('level')}`
    case 'resolved': return `Resolved: ${s('reason')}`
    default: return e.type
  }
}

function LogLines({ log }: { log: LogEvidence }) {
  const q = Object.entries(log.query).filter(([, v]) => v !== '').map(([k, v]) => `${k}=${v}`).join(', ')
  return (
    <section class="card" aria-labelledby="lines-h" data-testid="log-evidence">
      <h2 id="lines-h">Matching lines</h2>
      <p>
        <strong>{log.count === null ? 'No count' : `${log.count} line${log.count === 1 ? '' : 's'}`}</strong> matched <span class="mono">{q || 'every line'}</span> from {fmtDateTime(log.window_start)} to {fmtDateTime(log.window_end)}
        {' '}({log.window_seconds} s); down when {log.comparison} {log.threshold}.
      </p>
      {log.samples.length === 0 ? <p class="muted">No line to show (a silence alarm has none).</p> : (
        <table class="logs" aria-label="Matching lines, newest first">
          <thead><tr><th scope="col" class="c-time">Time</th><th scope="col" class="c-sev">Level</th><th scope="col">Message</th></tr></thead>
          <tbody>{log.samples.map((l, i) => (
            <tr key={i} class="sample"><td class="c-time mono">{fmtDateTime(l.time)}</td><td class="c-sev"><span class={`sev sev-${l.severity || 'UNSET'}`}>{l.severity || 'UNSET'}</span></td><td class="c-msg mono">{l.message}</td></tr>
          ))}</tbody>
        </table>
      )}
      <p><a class="btn" href={log.explorer}>Open these lines in the explorer</a></p>
    </section>
  )
}

export function IncidentPage({ session, route }: { session: Session; route: Route }) {
  const ws = session.me.workspace.id
  const [rid = '', id = ''] = route.path.slice(1)
  const canWrite = session.me.credential.scopes.includes('resources:write')
  const { data, error, setError, refresh } = usePolled<Body>(`${resPath(ws, rid)}/monitoring/incidents/${encodeURIComponent(id)}`, 5000)
  const ack = async () => {
    try {
      await acknowledge(ws, rid, id)
      refresh()
    } catch (e) {
      setError((e as Error).message)
    }
  }
  const i = data?.incident
  const c = data?.check ?? null
  const me = session.me.credential.id
  const labels = new Map((data?.deliveries ?? []).map((d) => [d.destination_id, d.destination_label || d.destination]))
  const title = i === undefined ? 'Incident' : i.check?.name ?? (i.kind === 'collector_offline' ? 'Collector offline' : 'Incident')
  return (
    <div class="page">
      <div class="page-head">
        <a href={href(['overview'])}>← Overview</a>
        <h1>{title}</h1>
        {i !== undefined && <span class={`pill ${i.state === 'open' ? 'state-down' : 'state-up'}`} data-incident-state={i.state}>{i.state === 'open' ? 'Open' : 'Resolved'}</span>}
        {i !== undefined && <a href={href(['monitoring', i.resource.id])}>{i.resource.name || i.resource.external_id}</a>}
      </div>
      {error !== '' && <div class="error banner" role="alert">{error}</div>}
      {data === null && error === '' && <p class="muted" role="status">Loading…</p>}
      {i !== undefined && data !== null && <>
        <section class="card" aria-label="Incident">
          <dl class="kv">
            <dt>Opened</dt><dd>{fmtDateTime(i.opened_at)}{i.state === 'open' ? ` (open for ${fmtDuration(i.age_seconds * 1000)})` : ''}</dd>
            <dt>Reason</dt><dd>{shortReason(i.open_reason)}</dd>
            {i.closed_at !== null && <><dt>Resolved</dt><dd>{fmtDateTime(i.closed_at)}{i.close_reason !== null ? `: ${i.close_reason}` : ''}</dd></>}
            <dt>Severity</dt><dd>{i.severity ?? <span class="muted">no alert route</span>}{i.escalation_level > 0 ? ` · escalation level ${i.escalation_level}` : ''}{i.repeats > 0 ? ` · ${i.repeats} reminder(s)` : ''}</dd>
            <dt>Acknowledged</dt>
            <dd data-testid="ack">{i.acknowledged ? <>by {who(i.acknowledged_by, me, labels)}{i.acknowledged_at !== null ? `, ${fmtDateTime(i.acknowledged_at)}` : ''}</>
              : i.state === 'open' && canWrite ? <button class="btn small" type="button" onClick={() => void ack()}>Acknowledge</button> : <span class="muted">no</span>}</dd>
            {c !== null && <><dt>Check</dt><dd>{c.name} <span class="muted">({c.kind}, {target(c)})</span> · <StatePill state={stateOf(c)} since={stateSince(c)} /></dd></>}
          </dl>
        </section>
        {data.log !== null && <LogLines log={data.log} />}
        <section class="card" aria-labelledby="timeline-h">
          <h2 id="timeline-h">Timeline</h2>
          <ol class="timeline">
            {data.timeline.map((e, n) => <li key={n} class={`t-${e.type}`} data-type={e.type}><span class="muted small mono">{fmtDateTime(e.at)}</span><div>{describe(e, me, labels)}</div></li>)}
          </ol>
        </section>
        <section class="card" aria-labelledby="obs-h">
          <h2 id="obs-h">Recent observations of the check</h2>
          {data.observations.length === 0 ? <p class="muted">No observations.</p> : <>
            <UptimeBar results={data.observations} />
            <UptimeLegend />
            <ResponseTimes results={data.observations} />
            <table class="grid" aria-label="Recent observations">
              <thead><tr><th scope="col">Time</th><th scope="col">Status</th><th scope="col">Reason</th><th scope="col">Latency</th></tr></thead>
              <tbody>{data.observations.slice(0, 20).map((o, n) => (
                <tr key={n}><td class="small mono">{fmtDateTime(o.observed_at)}</td><td>{o.status === 'missing' ? 'missed heartbeat' : o.status}</td><td class="small">{shortReason(o.reason)}</td>
                  <td class="num">{latencyOf(o)}</td></tr>
              ))}</tbody>
            </table>
          </>}
        </section>
        <section class="card" aria-labelledby="del-h">
          <h2 id="del-h">Notifications</h2>
          {data.deliveries.length === 0 ? <p class="muted">None sent for this incident.</p> : (
            <table class="grid" aria-label="Notifications of this incident">
              <thead><tr><th scope="col">When</th><th scope="col">Event</th><th scope="col">Channel</th><th scope="col">To</th><th scope="col">Result</th></tr></thead>
              <tbody>{data.deliveries.map((d) => (
                <tr key={d.id}><td class="small">{fmtDateTime(d.last_attempt_at ?? d.created_at)}</td><td>{EVENT_WORDS[d.event_type] ?? d.event_type}</td><td>{d.channel}</td>
                  <td class="small">{d.destination_label || d.destination}</td><td><DeliveryPill d={d} /></td></tr>
              ))}</tbody>
            </table>
          )}
        </section>
      </>}
    </div>
  )
}
