// The log explorer: filters in the URL (attribute filters as chips), the volume
// histogram, top values beside the results, newest-first results paged by
// cursor as the list scrolls, expandable rows, the lines around a hit in
// place, saved searches, a link that freezes the range, and a live tail.
import { useCallback, useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { api, resPath, wsPath } from '../api.ts'
import { href, navigate, type Route } from '../router.ts'
import { Histogram, type HistogramData } from '../components/histogram.tsx'
import { LogRow } from '../components/log-row.tsx'
import { ResourcePicker } from '../components/resource-picker.tsx'
import { FilterChips } from '../components/filter-chips.tsx'
import { Facets } from '../components/facets.tsx'
import { mergeContext, NewerLines, OlderLines, type ContextState } from '../components/context-rows.tsx'
import { SavedSearches } from '../components/saved-searches.tsx'
import { attrParams, filtersOf, paramsOf, query, RANGES, searchedTerms, windowOf, withAttr, type AttrFilter, type Filters } from '../search-state.ts'
import type { LogEvent, Session } from '../types.ts'
import { useTail } from './tail.ts'

const SEVERITIES = ['', 'TRACE', 'DEBUG', 'INFO', 'WARN', 'ERROR', 'FATAL']
/** The resource picker's value for every resource the token reaches. */
const ALL = '*'
const CONTEXT_LINES = 10

function go(f: Filters, replace = false) {
  navigate(['logs', f.rid], paramsOf(f), replace)
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
  const [ctx, setCtx] = useState<ContextState | null>(null)
  const [serviceCol, setServiceCol] = useState(false)
  const [q, setQ] = useState(f.q)
  const [trace, setTrace] = useState(f.trace_id)
  useEffect(() => { setQ(f.q); setTrace(f.trace_id) }, [f.q, f.trace_id])
  const list = useRef<HTMLDivElement>(null)
  const sentinel = useRef<HTMLDivElement>(null)
  const searchBox = useRef<HTMLInputElement>(null)
  const seq = useRef(0)
  // Lines the tail delivered since this search started: a first page answering later must not drop them.
  const tailed = useRef<LogEvent[]>([])

  const all = f.rid === ALL
  const canAll = session.me.credential.resources === 'all'
  const filterParams = { severity: f.severity, q: f.q, trace_id: f.trace_id, ...attrParams(f.attrs) }
  // "All resources": the workspace-wide search over every resource the session may read.
  const base = all ? wsPath(ws) : resPath(ws, f.rid)
  const logsUrl = (extra: Record<string, string | number>) => `${base}/logs${query({ ...filterParams, ...win, ...Object.fromEntries(Object.entries(extra).map(([k, v]) => [k, String(v)])) })}`
  const names = useMemo(() => new Map(session.resources.map((r) => [r.id, r.name || r.external_id])), [session.resources])
  const terms = useMemo(() => searchedTerms(f.q), [f.q])
  useEffect(() => {
    if (f.rid === '') return
    const my = ++seq.current
    setEvents([])
    setHist(null)
    setCtx(null)
    tailed.current = []
    setCursor(null)
    setError('')
    setLoading(true)
    api<{ events: LogEvent[]; next_cursor: string | null }>('GET', logsUrl({ limit: 100 }))
      .then((r) => {
        if (my !== seq.current) return
        const ids = new Set(r.events.map((e) => `${e.resource_id}/${e.event_id}`))
        setEvents([...tailed.current.filter((e) => !ids.has(`${e.resource_id}/${e.event_id}`)), ...r.events])
        setCursor(r.next_cursor)
      }, (e: Error) => my === seq.current && setError(e.message))
      .finally(() => my === seq.current && setLoading(false))
    if (all) return
    api<HistogramData>('GET', `${base}/logs/histogram${query({ ...filterParams, ...win, buckets: '120' })}`)
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

  // "/" focuses the search box from anywhere but another field.
  useEffect(() => {
    const on = (e: KeyboardEvent) => {
      const t = e.target as HTMLElement | null
      if (e.key !== '/' || e.ctrlKey || e.metaKey || e.altKey || (t !== null && (t.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName)))) return
      e.preventDefault()
      searchBox.current?.focus()
    }
    document.addEventListener('keydown', on)
    return () => document.removeEventListener('keydown', on)
  }, [])

  const tailUrl = all
    ? `/v1/logs/tail${query({ workspace_id: ws, severity: f.severity, text: f.q, ...attrParams(f.attrs) })}`
    : `${resPath(ws, f.rid)}/logs/tail${query(filterParams)}`
  const tail = useTail(f.tail && f.rid !== '' ? tailUrl : null, list, (ev) => {
    tailed.current.unshift(ev)
    setEvents((cur) => (cur.some((e) => e.event_id === ev.event_id && e.resource_id === ev.resource_id) ? cur : [ev, ...cur]))
  })

  const set = (patch: Partial<Filters>) => go({ ...f, ...patch })
  const submit = (e: Event) => {
    e.preventDefault()
    set({ q: q.trim(), trace_id: trace.trim() })
  }
  const addAttr = (a: AttrFilter) => set({ attrs: withAttr(f.attrs, a) })
  const removeAttr = (a: AttrFilter) => set({ attrs: f.attrs.filter((x) => x !== a) })
  const pickFacet = (field: string, value: string, negate: boolean) => {
    if (field === 'severity') return set({ severity: value === 'UNSET' ? '' : value })
    const m = /^(attr|resource)\.(.+)$/.exec(field)
    if (m !== null) addAttr({ scope: m[1] as 'attr' | 'resource', key: m[2] as string, value, negate })
  }
  const facetUrl = (field: string) => `${base}/logs/facets${query({ field, ...filterParams, ...win })}`
  const attrKeys = useMemo(() => [...new Set(events.slice(0, 200).flatMap((e) => Object.keys(e.attributes)))].sort(), [events])
  const frozenLink = () => `${location.origin}${location.pathname}${href(['logs', f.rid], paramsOf({ ...f, tail: false, start: win.start, end: win.end }))}`

  const context = (e: LogEvent, side: 'both' | 'older' | 'newer', from = e) => {
    const id = `${e.resource_id}/${e.event_id}`
    if (side === 'both' && ctx?.id === id) return setCtx(null)
    const n = { before: side === 'newer' ? 0 : CONTEXT_LINES, after: side === 'older' ? 0 : CONTEXT_LINES }
    api<{ before: LogEvent[]; after: LogEvent[]; more_before: boolean; more_after: boolean }>('GET', `${resPath(ws, e.resource_id)}/logs/${encodeURIComponent(from.event_id)}/context${query({ before: String(n.before), after: String(n.after), at: from.timestamp })}`)
      .then((r) => setCtx((cur) => mergeContext(cur, id, r, side)), (err: Error) => setError(err.message))
  }

  if (session.resources.length === 0) {
    return <div class="page"><h1>Logs</h1><div class="empty card">No resources yet. Register one (POST /v1/workspaces/{'{ws}'}/resources) and send it a log line.</div></div>
  }
  const cols = serviceCol ? 4 : 3
  const hitEvent = ctx === null ? undefined : events.find((e) => `${e.resource_id}/${e.event_id}` === ctx.id)
  return (
    <div class="page explorer">
      <a class="skip" href="#results" onClick={(e) => { e.preventDefault(); list.current?.focus() }}>Skip to results</a>
      <div class="page-head">
        <h1>Logs</h1>
        <ResourcePicker resources={session.resources} value={f.rid} all={canAll ? ALL : undefined} onChange={(rid) => set({ rid })} />
      </div>
      <form class="filters card" onSubmit={submit} role="search" aria-label="Log filters">
        <label class="grow">
          <span>Search <kbd title="Press / to jump here">/</kbd></span>
          <input ref={searchBox} type="search" name="q" placeholder='words, "a phrase", -exclude, a OR b' value={q} onInput={(e) => setQ((e.target as HTMLInputElement).value)} />
        </label>
        <label>
          <span>Severity (at least)</span>
          <select name="severity" value={f.severity} onChange={(e) => set({ severity: (e.target as HTMLSelectElement).value })}>
            {SEVERITIES.map((s) => <option key={s} value={s}>{s === '' ? 'Any' : s}</option>)}
          </select>
        </label>
        <label>
          <span>Trace id</span>
          <input name="trace_id" class="mono" size={34} placeholder="32 hex digits" value={trace} onInput={(e) => setTrace((e.target as HTMLInputElement).value)} />
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
      <FilterChips attrs={f.attrs} onRemove={removeAttr} onFlip={(a) => set({ attrs: withAttr(f.attrs, { ...a, negate: !a.negate }) })} />
      <SavedSearches ws={ws} f={f} all={ALL} onOpen={(g) => go(g)} frozenLink={frozenLink} />
      {error !== '' && <div class="error banner" role="alert">{error}</div>}
      <div class="hist-wrap card">
        <div class="hist-head">
          <span><strong data-testid="hist-total">{hist?.total.toLocaleString('en') ?? '…'}</strong> {hist?.total === 1 ? 'event' : 'events'} · {fmtRange(win.start, win.end)}</span>
          {(f.start !== '' || f.trace_id !== '' || f.q !== '' || f.severity !== '' || f.attrs.length > 0) &&
            <button class="btn small" type="button" onClick={() => go({ ...f, start: '', end: '', range: '1h', q: '', trace_id: '', severity: '', attrs: [] })}>Clear filters</button>}
        </div>
        {all && <p class="muted small">The volume histogram is drawn per resource: pick one to see it.</p>}
        {hist !== null && <Histogram data={hist} onZoom={(a, b) => set({ start: new Date(a).toISOString(), end: new Date(b).toISOString() })} />}
      </div>
      <div class={`tail-status ${f.tail || tail.pending > 0 ? '' : 'idle'}`} role="status" aria-live="polite">
        {f.tail && <span class={`dot ${tail.connected ? 'on' : ''}`} />}
        {f.tail && (tail.connected ? 'Live: new lines appear at the top' : 'Live tail reconnecting…')}
        {tail.pending > 0 && <button class="btn small" type="button" onClick={tail.resume}>{tail.pending} new line{tail.pending === 1 ? '' : 's'} ↑</button>}
      </div>
      <div class="results-wrap">
        <div class="results card" id="results" ref={list} tabIndex={-1}>
          <label class="toggle small col-toggle">
            <input type="checkbox" checked={serviceCol} onChange={(e) => setServiceCol((e.target as HTMLInputElement).checked)} />
            <span>Service column</span>
          </label>
          <table class="logs" aria-label="Log lines, newest first">
            <thead><tr><th scope="col" class="c-time">Time</th><th scope="col" class="c-sev">Level</th>{serviceCol && <th scope="col" class="c-svc">Service</th>}<th scope="col">Message</th></tr></thead>
            <tbody>
              {events.map((e) => {
                const id = `${e.resource_id}/${e.event_id}`
                const hit = ctx?.id === id
                return [
                  hit && ctx !== null && <NewerLines key={`n${id}`} ctx={ctx} terms={terms} cols={cols} onMore={() => context(e, 'newer', ctx.after[ctx.after.length - 1] ?? e)} />,
                  <LogRow key={id} event={e} resource={all ? names.get(e.resource_id) ?? e.resource_id.slice(0, 8) : undefined} service={serviceCol} terms={terms}
                    open={expanded === id} hit={hit} onToggle={() => setExpanded(expanded === id ? null : id)} onContext={() => context(e, 'both')}
                    onTrace={(t) => set({ trace_id: t, q: '' })} onFilter={(scope, k, value, negate) => addAttr({ scope, key: k, value, negate })} />,
                  hit && ctx !== null && <OlderLines key={`o${id}`} ctx={ctx} terms={terms} cols={cols} onMore={() => context(e, 'older', ctx.before[0] ?? e)} />,
                ]
              })}
            </tbody>
          </table>
          {ctx !== null && hitEvent === undefined && <p class="muted small">The line whose context was open is no longer listed.</p>}
          {events.length === 0 && !loading && error === '' && <div class="empty">No log lines match in this range.</div>}
          <div ref={sentinel} class="sentinel">{loading ? 'Loading…' : cursor === null && events.length > 0 ? 'End of results' : ''}</div>
        </div>
        <Facets url={facetUrl} keys={attrKeys} onPick={pickFacet} />
      </div>
    </div>
  )
}

function fmtRange(a: string, b: string): string {
  const f = (s: string) => new Date(s).toLocaleString('en-GB', { month: 'short', day: 'numeric', hour: '2-digit', minute: '2-digit', second: '2-digit' })
  return `${f(a)} – ${f(b)}`
}
