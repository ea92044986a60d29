// Checks with their state, uptime bars and response times; incidents with
// acknowledge; run now, pause, resume; create and edit checks. The form for a
// new check is a route (#/monitoring/new?resource=...&kind=log&q=...), so the
// explorer's "alert on this search" can open it prefilled.
import { useEffect, useState } from 'preact/hooks'
import { api, qs, resPath } from '../api.ts'
import { href, navigate, type Route } from '../router.ts'
import { ResourcePicker } from '../components/resource-picker.tsx'
import { CheckForm, type Check, type Draft } from '../components/check-form.tsx'
import { TEMPLATES, type Values } from '../components/check-fields.ts'
import { StatePill } from '../components/pills.tsx'
import { certOf, shortReason, latencyText, stateOf, stateSince, target, uptimeText, who, type Uptime } from '../components/check-state.ts'
import { HeartbeatSecretPanel, type HeartbeatSecret } from '../components/heartbeat-secret.tsx'
import { ResponseTimes, UptimeBar, UptimeLegend, type Result } from '../components/uptime.tsx'
import { fmtDateTime, fmtSince, fmtWhen } from '../time.ts'
import type { Session } from '../types.ts'

interface Incident { id: string; check_id: string; opened_at: string; reason?: string; open_reason?: string; acknowledged?: boolean; acknowledged_by?: string | null; closed_at?: string | null; state?: string }

/** A new check from the URL: the explorer's search for a log check, or just a kind. */
export function draftOf(p: URLSearchParams): Draft {
  const kind = p.get('kind') ?? 'https'
  const values: Values = { ...(TEMPLATES[kind] ?? TEMPLATES.https) }
  const base: Record<string, unknown> = {}
  let name = p.get('name') ?? ''
  if (kind === 'log') {
    const set = (key: string, param: string) => { const v = p.get(param); if (v !== null && v !== '') values[key] = v }
    set('query.q', 'q'); set('query.severity', 'severity'); set('query.trace_id', 'trace_id')
    set('window_seconds', 'window'); set('threshold', 'threshold'); set('comparison', 'comparison')
    // Attribute filters (the search issue's attr.KEY / resource.KEY / -attr.KEY) go into the query as the explorer wrote them.
    const extra: Record<string, string> = {}
    for (const [k, v] of p) if (/^-?(attr|resource)\./.test(k)) extra[k] = v
    if (Object.keys(extra).length > 0) base.query = extra
    if (name === '') name = `log: ${p.get('q') || p.get('severity') || 'lines'}`.slice(0, 100)
  }
  return { kind, values, base, name }
}

export function Monitoring({ session, route }: { session: Session; route: Route }) {
  const ws = session.me.workspace.id
  const creating = route.path[1] === 'new'
  const first = session.resources[0]?.id ?? ''
  const rid = creating ? route.params.get('resource') ?? first : route.path[1] ?? first
  const base = resPath(ws, rid)
  const canWrite = session.me.credential.scopes.includes('resources:write')
  const [checks, setChecks] = useState<Check[]>([])
  const [open, setOpen] = useState<Incident[]>([])
  const [recent, setRecent] = useState<Incident[]>([])
  const [results, setResults] = useState<Record<string, Result[]>>({})
  const [error, setError] = useState('')
  const [editing, setEditing] = useState<Check | null>(null)
  const [selected, setSelected] = useState<string | null>(null)
  const [secret, setSecret] = useState<HeartbeatSecret | null>(null)
  const [tick, setTick] = useState(0)

  useEffect(() => {
    const t = setInterval(() => setTick((n) => n + 1), 3000)
    return () => clearInterval(t)
  }, [])
  useEffect(() => {
    if (rid === '') return
    let live = true
    const load = async () => {
      const [status, alerts, incidents] = await Promise.all([
        api<{ checks: Check[] }>('GET', `${base}/monitoring?view=status`),
        api<{ incidents: Incident[] }>('GET', `${base}/alerts`),
        api<{ items: Incident[] }>('GET', `${base}/monitoring?view=incidents&limit=20`),
      ])
      const res: Record<string, Result[]> = {}
      await Promise.all(status.checks.map(async (c) => {
        res[c.id] = (await api<{ items: Result[] }>('GET', `${base}/monitoring/results${qs({ check_id: c.id, limit: 60 })}`)).items
      }))
      if (!live) return
      setChecks(status.checks)
      setOpen(alerts.incidents)
      setRecent(incidents.items.filter((i) => i.closed_at != null))
      setResults(res)
      setError('')
    }
    load().catch((e: Error) => live && setError(e.message))
    return () => { live = false }
  }, [base, tick])

  const act = async (c: Check, action: 'run' | 'pause' | 'resume') => {
    try {
      await api('POST', `${base}/monitoring/actions`, { id: c.id, revision: c.revision, action })
      setTick((n) => n + 1)
    } catch (e) {
      setError((e as Error).message)
    }
  }
  const acknowledge = async (i: Incident) => {
    try {
      await api('POST', `${base}/alerts`, { operation: 'acknowledge', values: { operation_id: crypto.randomUUID(), incident_id: i.id } })
      setTick((n) => n + 1)
    } catch (e) {
      setError((e as Error).message)
    }
  }
  // A new heartbeat check gets a heartbeat source of its own: its token is what the job sends beats with.
  const saved = async (c: Check, savedRid: string, created: boolean) => {
    setEditing(null)
    navigate(['monitoring', savedRid])
    setTick((n) => n + 1)
    if (!created || c.kind !== 'heartbeat') return
    try {
      const r = await api<{ token: string }>('POST', `${resPath(ws, savedRid)}/monitoring/sources`, { action: 'enroll', kind: 'heartbeat', name: c.name.slice(0, 100) })
      setSecret({ checkName: c.name, checkId: c.id, resourceId: savedRid, token: r.token })
    } catch (e) {
      setError(`The check was created, but no heartbeat token could be made: ${(e as Error).message}`)
    }
  }
  const name = (id: string) => checks.find((c) => c.id === id)?.name ?? id.slice(0, 8)
  const now = Date.now()

  return (
    <div class="page">
      <div class="page-head">
        <h1>Monitoring</h1>
        <ResourcePicker resources={session.resources} value={rid} onChange={(r) => navigate(['monitoring', r])} />
        {canWrite && <a class="btn primary" href={href(['monitoring', 'new'], { resource: rid })}>New check</a>}
        {canWrite && <a class="btn" href={href(['monitoring', 'new'], { resource: rid, kind: 'log' })}>New log check</a>}
      </div>
      {error !== '' && <div class="error banner" role="alert">{error}</div>}
      {secret !== null && <HeartbeatSecretPanel secret={secret} onClose={() => setSecret(null)} />}
      {creating && canWrite && (
        <CheckForm key={route.params.toString()} ws={ws} resources={session.resources} rid={rid} check={null} draft={draftOf(route.params)}
          onSaved={(c, r, created) => void saved(c, r, created)} onDeleted={() => navigate(['monitoring', rid])} onCancel={() => navigate(['monitoring', rid])} />
      )}
      {!creating && editing !== null && (
        <CheckForm key={editing.id} ws={ws} resources={session.resources} rid={rid} check={editing}
          onSaved={(c, r, created) => void saved(c, r, created)} onDeleted={() => { setEditing(null); setTick((n) => n + 1) }} onCancel={() => setEditing(null)} />
      )}
      <section class="card" aria-labelledby="incidents-h">
        <h2 id="incidents-h">Open incidents <span class="count">{open.length}</span></h2>
        {open.length === 0 ? <p class="muted">No open incidents.</p> : (
          <table class="grid" aria-label="Open incidents">
            <thead><tr><th scope="col">Check</th><th scope="col">Open</th><th scope="col">Reason</th><th scope="col">Acknowledged</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {open.map((i) => (
                <tr key={i.id} data-incident={i.id}>
                  <td><a href={href(['incident', rid, i.id])}>{name(i.check_id)}</a></td><td class="nowrap">{fmtSince(i.opened_at, undefined, now)}</td><td class="reason">{shortReason(i.reason ?? i.open_reason)}</td>
                  <td>{i.acknowledged === true ? <span class="pill ok">by {who(i.acknowledged_by, session.me.credential.id)}</span> : <span class="pill warn">no</span>}</td>
                  <td class="actions">{canWrite && i.acknowledged !== true && <button class="btn small" type="button" onClick={() => void acknowledge(i)}>Acknowledge</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
      <section class="card" aria-labelledby="checks-h">
        <h2 id="checks-h">Checks <span class="count">{checks.length}</span></h2>
        {checks.length === 0 ? <p class="muted">No checks on this resource yet.</p> : (
          <table class="grid checks" aria-label="Checks">
            <thead><tr><th scope="col">State</th><th scope="col">Check</th><th scope="col">Target</th><th scope="col">Last observation</th><th scope="col">Latency</th><th scope="col">Recent observations, uptime</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {checks.map((c) => {
                const s = stateOf(c)
                const r = results[c.id] ?? []
                const since = stateSince(c)
                const cert = certOf(c)
                return [
                  <tr key={c.id} data-check={c.id} class={selected === c.id ? 'sel' : ''}>
                    <td><StatePill state={s} since={since} now={now} /></td>
                    <td><button type="button" class="link strong" aria-expanded={selected === c.id} onClick={() => setSelected(selected === c.id ? null : c.id)}>{c.name}</button><div class="muted small">{c.kind} · every {c.interval_seconds}s</div></td>
                    <td class="mono small">{target(c)}{cert !== null && <div class={`cert ${cert.warn ? 'warn-text' : 'muted'}`} data-testid="cert">{cert.text}</div>}</td>
                    <td>{c.last_result?.observed_at == null ? <span class="muted">none yet</span> : <span class="small">{fmtWhen(c.last_result.observed_at, undefined, now)}</span>}
                      {c.last_result !== null && c.last_result.status !== 'up' ? <div class="small muted reason">{shortReason(c.last_result.reason)}</div> : null}</td>
                    <td class="num" data-testid="latency">{latencyText(c)}</td>
                    <td><UptimeBar results={r} />{c.uptime !== undefined && <div class="small muted uptime-pct" data-testid="uptime">{uptimeText(c.uptime as Uptime)}</div>}</td>
                    <td class="actions">
                      {c.open_incident_id !== null && <a class="btn small" href={href(['incident', rid, c.open_incident_id])}>Incident</a>}
                      {canWrite && <>
                        <button class="btn small" type="button" disabled={!c.enabled} onClick={() => void act(c, 'run')}>Run now</button>
                        {c.enabled ? <button class="btn small" type="button" onClick={() => void act(c, 'pause')}>Pause</button>
                          : <button class="btn small" type="button" onClick={() => void act(c, 'resume')}>Resume</button>}
                        <button class="btn small" type="button" onClick={() => { navigate(['monitoring', rid]); setEditing(c) }}>Edit</button>
                      </>}
                    </td>
                  </tr>,
                  selected === c.id ? <tr key={`${c.id}-rt`} class="detail"><td colSpan={7}><ResponseTimes results={r} /></td></tr> : null,
                ]
              })}
            </tbody>
          </table>
        )}
        {checks.length > 0 && <UptimeLegend />}
      </section>
      <section class="card" aria-labelledby="recent-h">
        <h2 id="recent-h">Recent incidents</h2>
        {recent.length === 0 ? <p class="muted">No closed incidents.</p> : (
          <table class="grid" aria-label="Recent incidents">
            <thead><tr><th scope="col">Check</th><th scope="col">Opened</th><th scope="col">Closed</th><th scope="col">Reason</th></tr></thead>
            <tbody>{recent.map((i) => <tr key={i.id}><td><a href={href(['incident', rid, i.id])}>{name(i.check_id)}</a></td><td>{fmtDateTime(i.opened_at)}</td><td>{fmtDateTime(i.closed_at)}</td><td class="reason">{shortReason(i.open_reason)}</td></tr>)}</tbody>
          </table>
        )}
      </section>
    </div>
  )
}
