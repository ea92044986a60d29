// Checks with their state, uptime bars and response times; incidents with
// acknowledge; run now, pause, resume; create and edit checks.
import { useEffect, useState } from 'preact/hooks'
import { api, qs, resPath } from '../api.ts'
import { navigate, type Route } from '../router.ts'
import { ResourcePicker } from '../components/resource-picker.tsx'
import { CheckForm, type Check } from '../components/check-form.tsx'
import { ResponseTimes, UptimeBar, type Result } from '../components/uptime.tsx'
import type { Session } from '../types.ts'

interface Incident { id: string; check_id: string; opened_at: string; reason?: string; open_reason?: string; acknowledged?: boolean; acknowledged_by?: string | null; closed_at?: string | null; state?: string }

function stateOf(c: Check): string {
  if (c.state === 'paused' || c.state === 'maintenance') return c.state
  if (c.stale) return 'unknown'
  return c.health === 'healthy' ? 'up' : c.health === 'unhealthy' ? 'down' : 'unknown'
}

function target(c: Check): string {
  const k = c.configuration as Record<string, unknown>
  if (typeof k.url === 'string') return k.url
  if (typeof k.host === 'string') return k.port !== undefined ? `${k.host}:${String(k.port)}` : k.host
  return c.kind === 'heartbeat' ? 'heartbeat' : ''
}

/** Who acknowledged: this token, a staff member, or another token (short id). */
function who(by: string | null | undefined, me: string | null): string {
  if (by == null) return 'someone'
  if (by === `token:${me}`) return 'you'
  if (by.startsWith('staff:')) return `staff #${by.slice(6)}`
  return by.startsWith('token:') ? `token ${by.slice(6, 14)}` : by
}

const ago = (iso: string | null | undefined) => {
  if (iso == null) return 'never'
  const s = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000))
  return s < 60 ? `${s}s ago` : s < 3600 ? `${Math.round(s / 60)}m ago` : `${Math.round(s / 3600)}h ago`
}

export function Monitoring({ session, route }: { session: Session; route: Route }) {
  const ws = session.me.workspace.id
  const rid = route.path[1] ?? session.resources[0]?.id ?? ''
  const base = resPath(ws, rid)
  const canWrite = session.me.credential.scopes.includes('resources:write')
  const [checks, setChecks] = useState<Check[]>([])
  const [open, setOpen] = useState<Incident[]>([])
  const [recent, setRecent] = useState<Incident[]>([])
  const [results, setResults] = useState<Record<string, Result[]>>({})
  const [error, setError] = useState('')
  const [editing, setEditing] = useState<Check | 'new' | null>(null)
  const [selected, setSelected] = useState<string | null>(null)
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
  const name = (id: string) => checks.find((c) => c.id === id)?.name ?? id.slice(0, 8)

  return (
    <div class="page">
      <div class="page-head">
        <h1>Monitoring</h1>
        <ResourcePicker resources={session.resources} value={rid} onChange={(r) => navigate(['monitoring', r])} />
        {canWrite && <button class="btn primary" type="button" onClick={() => setEditing('new')}>New check</button>}
      </div>
      {error !== '' && <div class="error banner" role="alert">{error}</div>}
      {editing !== null && (
        <CheckForm base={base} check={editing === 'new' ? null : editing} onDone={() => { setEditing(null); setTick((n) => n + 1) }} onCancel={() => setEditing(null)} />
      )}
      <section class="card" aria-labelledby="incidents-h">
        <h2 id="incidents-h">Open incidents <span class="count">{open.length}</span></h2>
        {open.length === 0 ? <p class="muted">No open incidents.</p> : (
          <table class="grid" aria-label="Open incidents">
            <thead><tr><th scope="col">Check</th><th scope="col">Opened</th><th scope="col">Reason</th><th scope="col">Acknowledged</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {open.map((i) => (
                <tr key={i.id} data-incident={i.id}>
                  <td>{name(i.check_id)}</td><td title={i.opened_at}>{ago(i.opened_at)}</td><td>{i.reason ?? i.open_reason}</td>
                  <td>{i.acknowledged === true ? <span class="pill ok">by {who(i.acknowledged_by, session.me.credential.id)}</span> : <span class="pill warn">no</span>}</td>
                  <td>{canWrite && i.acknowledged !== true && <button class="btn small" type="button" onClick={() => void acknowledge(i)}>Acknowledge</button>}</td>
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
            <thead><tr><th scope="col">State</th><th scope="col">Check</th><th scope="col">Target</th><th scope="col">Last observation</th><th scope="col">Latency</th><th scope="col">Recent observations</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {checks.map((c) => {
                const s = stateOf(c)
                const r = results[c.id] ?? []
                return [
                  <tr key={c.id} data-check={c.id} class={selected === c.id ? 'sel' : ''}>
                    <td><span class={`pill state-${s}`} data-state={s}>{s}</span></td>
                    <td><button type="button" class="link strong" aria-expanded={selected === c.id} onClick={() => setSelected(selected === c.id ? null : c.id)}>{c.name}</button><div class="muted small">{c.kind} · every {c.interval_seconds}s</div></td>
                    <td class="mono small">{target(c)}</td>
                    <td title={c.last_result?.reason ?? ''}>{ago(c.last_result?.observed_at)}{c.last_result !== null && c.last_result.status !== 'up' ? <div class="small muted">{c.last_result.reason}</div> : null}</td>
                    <td class="num">{c.last_result?.latency_ms != null ? `${Math.round(c.last_result.latency_ms)} ms` : '–'}</td>
                    <td><UptimeBar results={r} /></td>
                    <td class="actions">
                      {canWrite && <>
                        <button class="btn small" type="button" disabled={!c.enabled} onClick={() => void act(c, 'run')}>Run now</button>
                        {c.enabled ? <button class="btn small" type="button" onClick={() => void act(c, 'pause')}>Pause</button>
                          : <button class="btn small" type="button" onClick={() => void act(c, 'resume')}>Resume</button>}
                        <button class="btn small" type="button" onClick={() => setEditing(c)}>Edit</button>
                      </>}
                    </td>
                  </tr>,
                  selected === c.id ? <tr key={`${c.id}-rt`} class="detail"><td colSpan={7}><ResponseTimes results={r} /></td></tr> : null,
                ]
              })}
            </tbody>
          </table>
        )}
      </section>
      <section class="card" aria-labelledby="recent-h">
        <h2 id="recent-h">Recent incidents</h2>
        {recent.length === 0 ? <p class="muted">No closed incidents.</p> : (
          <table class="grid" aria-label="Recent incidents">
            <thead><tr><th scope="col">Check</th><th scope="col">Opened</th><th scope="col">Closed</th><th scope="col">Reason</th></tr></thead>
            <tbody>{recent.map((i) => <tr key={i.id}><td>{name(i.check_id)}</td><td>{new Date(i.opened_at).toLocaleString('en-GB')}</td><td>{i.closed_at == null ? '' : new Date(i.closed_at).toLocaleString('en-GB')}</td><td>{i.open_reason}</td></tr>)}</tbody>
          </table>
        )}
      </section>
    </div>
  )
}
