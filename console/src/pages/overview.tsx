// The workspace overview, the first page after sign-in: every check that needs
// attention on every resource the token reaches (no picker to switch), the open
// incidents with their age and acknowledgement, and the alerts sent. One call:
// GET P/monitoring/overview.
import { wsPath } from '../api.ts'
import { usePolled } from '../poll.ts'
import { href } from '../router.ts'
import { StatePill, DeliveryPill } from '../components/pills.tsx'
import { latencyText, shortReason, stateSince, target, who } from '../components/check-state.ts'
import { EVENT_WORDS, acknowledge, type Incident, type Overview as OverviewBody } from '../on-call.ts'
import { fmtDateTime, fmtDuration, fmtWhen } from '../time.ts'
import type { Session } from '../types.ts'

const REFRESH_MS = 5000

function Stat({ n, label, state }: { n: number; label: string; state: string }) {
  return <div class="card stat" data-stat={state}><strong class={n > 0 ? `stat-${state}` : ''}>{n}</strong><span class="muted">{label}</span></div>
}

export function Overview({ session }: { session: Session }) {
  const ws = session.me.workspace.id
  const canWrite = session.me.credential.scopes.includes('resources:write')
  const { data, error, setError, refresh } = usePolled<OverviewBody>(`${wsPath(ws)}/monitoring/overview?limit=30`, REFRESH_MS)
  const ack = async (i: Incident) => {
    try {
      await acknowledge(ws, i.resource.id, i.id)
      refresh()
    } catch (e) {
      setError((e as Error).message)
    }
  }
  const now = data === null ? Date.now() : Date.parse(data.generated_at)
  const labels = new Map((data?.notifications ?? []).map((d) => [d.destination_id, d.destination_label || d.destination]))
  const s = data?.summary
  return (
    <div class="page">
      <div class="page-head">
        <h1>Overview</h1>
        <span class="muted">{session.me.workspace.name} · {session.resources.length} resource{session.resources.length === 1 ? '' : 's'}{data !== null ? ` · as of ${fmtWhen(data.generated_at)}` : ''}</span>
      </div>
      {error !== '' && <div class="error banner" role="alert">{error}</div>}
      {data === null && error === '' && <p class="muted" role="status">Loading…</p>}
      {s !== undefined && (
        <div class="stats" aria-label="Summary">
          <Stat n={s.down} label="down" state="down" />
          <Stat n={s.failing} label="failing, not yet confirmed" state="failing" />
          <Stat n={s.unknown} label="unknown" state="unknown" />
          <Stat n={s.maintenance} label="in maintenance" state="maintenance" />
          <Stat n={s.open_incidents} label={`open incident${s.open_incidents === 1 ? '' : 's'}`} state="incidents" />
          <Stat n={s.unacknowledged} label="not acknowledged" state="unacknowledged" />
        </div>
      )}
      {data !== null && <>
        <section class="card" aria-labelledby="attention-h">
          <h2 id="attention-h">Checks needing attention <span class="count">{data.checks.length}{data.truncated.checks ? '+' : ''}</span></h2>
          {data.checks.length === 0 ? <p class="muted" data-testid="all-clear">All clear: no check is down, failing, unknown or in maintenance.</p> : (
            <table class="grid" aria-label="Checks needing attention">
              <thead><tr><th scope="col">State</th><th scope="col">Resource</th><th scope="col">Check</th><th scope="col">Target</th><th scope="col">Last observation</th><th scope="col">Latency</th><th scope="col"><span class="sr-only">Links</span></th></tr></thead>
              <tbody>
                {data.checks.map((c) => {
                  const since = stateSince(c)
                  return (
                    <tr key={c.id} data-check={c.id} data-resource={c.resource.id}>
                      <td><StatePill state={c.attention} since={since} now={now} /></td>
                      <td><a href={href(['monitoring', c.resource.id])}>{c.resource.name || c.resource.external_id}</a></td>
                      <td class="strong">{c.name}<div class="muted small">{c.kind}{c.required ? '' : ' · not required'}</div></td>
                      <td class="mono small">{target(c)}</td>
                      <td class="small">{c.last_result?.observed_at == null ? <span class="muted">none yet</span> : fmtWhen(c.last_result.observed_at, undefined, now)}
                        {c.last_result?.reason != null && c.last_result.status !== 'up' && <div class="muted reason">{shortReason(c.last_result.reason)}</div>}</td>
                      <td class="num">{latencyText(c)}</td>
                      <td class="actions">{c.open_incident_id !== null && <a class="btn small" href={href(['incident', c.resource.id, c.open_incident_id])}>Incident</a>}</td>
                    </tr>
                  )
                })}
              </tbody>
            </table>
          )}
        </section>
        <section class="card" aria-labelledby="open-h">
          <h2 id="open-h">Open incidents <span class="count">{data.incidents.length}{data.truncated.incidents ? '+' : ''}</span></h2>
          {data.incidents.length === 0 ? <p class="muted">No open incidents.</p> : (
            <table class="grid" aria-label="Open incidents">
              <thead><tr><th scope="col">Incident</th><th scope="col">Resource</th><th scope="col">Open for</th><th scope="col">Reason</th><th scope="col">Acknowledged</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
              <tbody>
                {data.incidents.map((i) => (
                  <tr key={i.id} data-incident={i.id}>
                    <td><a class="strong" href={href(['incident', i.resource.id, i.id])}>{i.check?.name ?? (i.kind === 'collector_offline' ? 'collector offline' : i.kind)}</a>
                      {i.severity !== null && <div class="muted small">{i.severity}{i.escalation_level > 0 ? ` · escalation level ${i.escalation_level}` : ''}{i.repeats > 0 ? ` · ${i.repeats} reminder${i.repeats === 1 ? '' : 's'}` : ''}</div>}</td>
                    <td>{i.resource.name || i.resource.external_id}</td>
                    <td title={fmtDateTime(i.opened_at)}>{fmtDuration(i.age_seconds * 1000)}<div class="muted small">since {fmtWhen(i.opened_at, undefined, now)}</div></td>
                    <td class="small reason">{shortReason(i.open_reason)}</td>
                    <td>{i.acknowledged ? <span class="pill ok">by {who(i.acknowledged_by, session.me.credential.id, labels)}</span> : <span class="pill warn">no</span>}
                      {i.acknowledged_at !== null && <div class="muted small">{fmtWhen(i.acknowledged_at, undefined, now)}</div>}</td>
                    <td class="actions">{canWrite && !i.acknowledged && <button class="btn small" type="button" onClick={() => void ack(i)}>Acknowledge</button>}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
        <section class="card" aria-labelledby="sent-h">
          <h2 id="sent-h">Notifications sent <span class="count">{data.notifications.length}{data.truncated.notifications ? '+' : ''}</span></h2>
          {data.notifications.length === 0 ? <p class="muted">No alert has been sent yet. Alert routes are set per resource (POST …/resources/{'{id}'}/alerts).</p> : (
            <table class="grid" aria-label="Notifications sent">
              <thead><tr><th scope="col">When</th><th scope="col">Resource</th><th scope="col">Event</th><th scope="col">Channel</th><th scope="col">To</th><th scope="col">Result</th></tr></thead>
              <tbody>
                {data.notifications.map((d) => (
                  <tr key={d.id} data-delivery={d.id}>
                    <td class="small">{fmtWhen(d.last_attempt_at ?? d.created_at, undefined, now)}</td>
                    <td>{d.resource?.name ?? d.resource_id.slice(0, 8)}</td>
                    <td><a href={href(['incident', d.resource_id, d.incident_id])}>{EVENT_WORDS[d.event_type] ?? d.event_type}</a></td>
                    <td>{d.channel}</td>
                    <td class="small">{d.destination_label !== '' ? <>{d.destination_label}<div class="muted mono">{d.destination}</div></> : <span class="mono">{d.destination}</span>}</td>
                    <td><DeliveryPill d={d} /></td>
                  </tr>
                ))}
              </tbody>
            </table>
          )}
        </section>
      </>}
    </div>
  )
}
