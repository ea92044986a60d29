// The log explorer: filters in the URL, the volume histogram, newest-first
// results paged by cursor as the list scrolls, expandable rows and a live tail.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, qs, resPath } from '../api.ts'
import { navigate, type Route } from '../router.ts'
import { Histogram, type HistogramData } from '../components/histogram.tsx'
import { LogRow } from '../components/log-row.tsx'
import { ResourcePicker } from '../components/resource-picker.tsx'
import type { LogEvent, Session } from '../types.ts'
import { useTail } from './tail.ts'

const RANGES: [string, string, number][] = [
  ['15m', 'Last 15 minutes', 15 * 60_000], ['1h', 'Last hour', 3_600_000], ['6h', 'Last 6 hours', 6 * 3_600_000],
  ['24h', 'Last 24 hours', 86_400_000], ['7d', 'Last 7 days', 7 * 86_400_000],
]
const SEVERITIES = ['', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']
/** The resource picker's value for every resource the token reaches. */
const ALL = '*'

interface Filters { rid: string; range: string; start: string; end: string; severity: string; q: string; trace_id: string; tail: boolean }

function filtersOf(route: Route, fallbackRid: string): Filters {
  const p = route.params
  return {
    rid: route.path[1] ?? fallbackRid, range: p.get('range') ?? '', start: p.get('start') ?? '', end: p.get('end') ?? '',
    severity: p.get('severity') ?? '', q: p.get('q') ?? '', trace_id: p.get('trace_id') ?? '', tail: p.get('tail') === '1',
  }
}

function go(f: Filters, replace = false) {
  navigate(['logs', f.rid], {
    range: f.start === '' ? (f.range || undefined) : undefined, start: f.start || undefined, end: f.end || undefined,
    severity: f.severity || undefined, q: f.q || undefined, trace_id: f.trace_id || undefined, tail: f.tail ? '1' : undefined,
  }, replace)
}

/** The range a search covers: absolute when the URL says so, else the quick pick ending now. */
function windowOf(f: Filters, now: number): { start: string; end: string } {
  if (f.start !== '' && f.end !== '') return { start: f.start, end: f.end }
  const ms = RANGES.find((r) => r[0] === f.range)?.[2] ?? 3_600_000
  return { start: new Date(now - ms).toISOString(), end: new Date(now).toISOString() }
}

export function Explorer({ session, route }: { session: Session; route: Route }) {
  const first = session.resources[0]?.id ?? ''
  const f = filtersOf(route, first)
  const ws = session.me.workspace.id
  const [refresh, setRefresh] = useState(0)
  const key = JSON.stringify({ ...f, tail: false })
  // Each new search (filters changed, or Refresh) reads "now" once for a quick range.
  const anchor = useRef({ key: '', refresh: -1, at: 0 })
  if (anchor.current.key !== key || anchor.current.refresh !== refresh) anchor.current = { key, refresh, at: Date.now() }
  const win = useMemo(() => windowOf(f, anchor.current.at), [key, refresh])
  const [events, setEvents] = useState<LogEvent[]>([])
  const [cursor, setCursor] = useState<string | null>(null)
  const [hist, setHist] = useState<HistogramData | null>(null)
  const [error, setError] = useState('')
  const [loading, setLoading] = useState(false)
  const [expanded, setExpanded] = useState<string | null>(null)
  const [q, setQ] = useState(f.q)
  const [trace, setTrace] = useState(f.trace_id)
  useEffect(() => { setQ(f.q); setTrace(f.trace_id) }, [f.q, f.trace_id])
  const list = useRef<HTMLDivElement>(null)
  const sentinel = useRef<HTMLDivElement>(null)
  const seq = useRef(0)
  // Lines the tail delivered since this search started: a first page answering later must not drop them.
  const tailed = useRef<LogEvent[]>([])

  const filterParams = { severity: f.severity, q: f.q, trace_id: f.trace_id }
  // "All resources" (a token for every resource): the desktop-contract routes read across the
  // workspace; they take no trace id, and the histogram is per resource.
  const all = f.rid === ALL
  const canAll = session.me.credential.resources === 'all'
  const logsUrl = (extra: Record<string, string | number>) => all
    ? `/v1/logs${qs({ workspace_id: ws, severity: f.severity, text: f.q, since: win.start, until: win.end, ...extra })}`
    : `${resPath(ws, f.rid)}/logs${qs({ ...filterParams, ...win, ...extra })}`
  const names = useMemo(() => new Map(session.resources.map((r) => [r.id, r.name || r.external_id])), [session.resources])
  useEffect(() => {
    if (f.rid === '') return
    const my = ++seq.current
    setEvents([])
    setHist(null)
    tailed.current = []
    setCursor(null)
    setError('')
    setLoading(true)
    const base = resPath(ws, f.rid)
    api<{ events: LogEvent[]; next_cursor: string | null }>('GET', logsUrl({ limit: 100 }))
      .then((r) => {
        if (my !== seq.current) return
        const ids = new Set(r.events.map((e) => `${e.resource_id}/${e.event_id}`))
        setEvents([...tailed.current.filter((e) => !ids.has(`${e.resource_id}/${e.event_id}`)), ...r.events])
        setCursor(r.next_cursor)
      }, (e: Error) => my === seq.current && setError(e.message))
      .finally(() => my === seq.current && setLoading(false))
    if (all) return
    api<HistogramData>('GET', `${base}/logs/histogram${qs({ ...filterParams, ...win, buckets: 120 })}`)
      .then((h) => my === seq.current && setHist(h), (e: Error) => my === seq.current && setError(e.message))
  }, [key, win])

  const more = useCallback(() => {
    if (cursor === null || loading) return
    const my = seq.current
    setLoading(true)
    api<{ events: LogEvent[]; next_cursor: string | null }>('GET', logsUrl({ limit: 100, cursor }))
      .then((r) => {
        if (my !== seq.current) return
        setEvents((e) => [...e, ...r.events])
        setCursor(r.next_cursor)
      }, (e: Error) => setError(e.message))
      .finally(() => setLoading(false))
  }, [cursor, loading, key, win])

  useEffect(() => {
    const el = sentinel.current
    if (el === null) return
    const io = new IntersectionObserver((entries) => { if (entries.some((e) => e.isIntersecting)) more() }, { root: list.current, rootMargin: '300px' })
    io.observe(el)
    return () => io.disconnect()
  }, [more])

  const tailUrl = all ? `/v1/logs/tail${qs({ workspace_id: ws, severity: f.severity, text: f.q })}` : `${resPath(ws, f.rid)}/logs/tail${qs(filterParams)}`
  const tail = useTail(f.tail && f.rid !== '' ? tailUrl : null, list, (ev) => {
    tailed.current.unshift(ev)
    setEvents((cur) => (cur.some((e) => e.event_id === ev.event_id && e.resource_id === ev.resource_id) ? cur : [ev, ...cur]))
  })

  const set = (patch: Partial<Filters>) => go({ ...f, ...patch })
  const submit = (e: Event) => {
    e.preventDefault()
    set({ q: q.trim(), trace_id: trace.trim() })
  }

  if (session.resources.length === 0) {
    return <div class="page"><h1>Logs</h1><div class="empty card">No resources yet. Register one (POST /v1/workspaces/{'{ws}'}/resources) and send it a log line.</div></div>
  }
  return (
    <div class="page explorer">
      <div class="page-head">
        <h1>Logs</h1>
        <ResourcePicker resources={session.resources} value={f.rid} all={canAll ? ALL : undefined} onChange={(rid) => set({ rid, trace_id: rid === ALL ? '' : f.trace_id })} />
      </div>
      <form class="filters card" onSubmit={submit} role="search" aria-label="Log filters">
        <label class="grow">
          <span>Search</span>
          <input type="search" name="q" placeholder='words or "a phrase"' value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          <span>Severity (at least)</span>
          <select name="severity" value={f.severity} onChange={(e) => set({ severity: (e.target as HTMLSelectElement).value })}>
            {SEVERITIES.map((s) => <option key={s} value={s}>{s === '' ? 'Any' : s}</option>)}
          </select>
        </label>
        <label>
          <span>Trace id</span>
          <input name="trace_id" disabled={all} title={all ? 'Pick a resource to filter by trace id' : undefined} class="mono" size={34} placeholder="32 hex digits" value={trace} onInput={(e) => setTrace((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          <span>Range</span>
          <select name="range" value={f.start !== '' ? 'custom' : (f.range || '1h')} onChange={(e) => set({ range: (e.target as HTMLSelectElement).value, start: '', end: '' })}>
            {f.start !== '' && <option value="custom">{fmtRange(f.start, f.end)}</option>}
            {RANGES.map(([k, label]) => <option key={k} value={k}>{label}</option>)}
          </select>
        </label>
        <button class="btn primary" type="submit">Search</button>
        <button class="btn" type="button" onClick={() => setRefresh((n) => n + 1)} title="Run the search again up to now">Refresh</button>
        <label class="toggle">
          <input type="checkbox" checked={f.tail} onChange={(e) => set({ tail: (e.target as HTMLInputElement).checked })} />
          <span>Live tail</span>
        </label>
      </form>
      {error !== '' && <div class="error banner" role="alert">{error}</div>}
      <div class="hist-wrap card">
        <div class="hist-head">
          <span><strong data-testid="hist-total">{hist?.total.toLocaleString('en') ?? '…'}</strong> {hist?.total === 1 ? 'event' : 'events'} · {fmtRange(win.start, win.end)}</span>
          {(f.start !== '' || f.trace_id !== '' || f.q !== '' || f.severity !== '') &&
            <button class="btn small" type="button" onClick={() => go({ ...f, start: '', end: '', range: '1h', q: '', trace_id: '', severity: '' })}>Clear filters</button>}
        </div>
        {all && <p class="muted small">The volume histogram is drawn per resource: pick one to see it.</p>}
        {hist !== null && <Histogram data={hist} onZoom={(a, b) => set({ start: new Date(a).toISOString(), end: new Date(b).toISOString() })} />}
      </div>
      <div class={`tail-status ${f.tail || tail.pending > 0 ? '' : 'idle'}`} role="status" aria-live="polite">
        {f.tail && <span class={`dot ${tail.connected ? 'on' : ''}`} />}
        {f.tail && (tail.connected ? 'Live: new lines appear at the top' : 'Live tail reconnecting…')}
        {tail.pending > 0 && <button class="btn small" type="button" onClick={tail.resume}>{tail.pending} new line{tail.pending === 1 ? '' : 's'} ↑</button>}
      </div>
      <div class="results card" ref={list} tabIndex={-1}>
        <table class="logs" aria-label="Log lines, newest first">
          <thead><tr><th scope="col" class="c-time">Time</th><th scope="col" class="c-sev">Level</th><th scope="col">Message</th></tr></thead>
          <tbody>
            {events.map((e) => {
              const id = `${e.resource_id}/${e.event_id}`
              return <LogRow key={id} event={e} resource={all ? names.get(e.resource_id) ?? e.resource_id.slice(0, 8) : undefined} open={expanded === id} onToggle={() => setExpanded(expanded === id ? null : id)}
                onTrace={(t) => set({ trace_id: t, q: '' })} onValue={(v) => set({ q: `"${v.replaceAll('"', '')}"` })} />
            })}
          </tbody>
        </table>
        {events.length === 0 && !loading && error === '' && <div class="empty">No log lines match in this range.</div>}
        <div ref={sentinel} class="sentinel">{loading ? 'Loading…' : cursor === null && events.length > 0 ? 'End of results' : ''}</div>
      </div>
    </div>
  )
}

function fmtRange(a: string, b: string): string {
  const f = (s: string) => new Date(s).toLocaleString('en-GB', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' })
  return `${f(a)} – ${f(b)}`
}
