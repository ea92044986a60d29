// Saved searches (shared in the workspace): save the current view under a
// name, list them, open one; and the current view's actions: copy a link that
// freezes the range, and alert on this search (the log-check form, prefilled).
import { useEffect, useState } from 'preact/hooks'
import { api, wsPath } from '../api.ts'
import { href } from '../router.ts'
import { attrParams, type AttrFilter, type Filters } from '../search-state.ts'

export interface SavedSearch {
  id: string
  name: string
  resource_id: string | null
  query: { q?: string; severity?: string; trace_id?: string; filters?: AttrFilter[]; range?: { last?: string; start?: string; end?: string } }
  revision: number
}

/** The explorer state a saved search opens (resource null: every resource, the picker's `all`). */
export function filtersOfSaved(s: SavedSearch, all: string): Filters {
  const q = s.query
  return {
    rid: s.resource_id ?? all, range: q.range?.last ?? '', start: q.range?.start ?? '', end: q.range?.end ?? '',
    severity: q.severity ?? '', q: q.q ?? '', trace_id: q.trace_id ?? '', tail: false,
    attrs: (q.filters ?? []).map((a) => ({ ...a, negate: a.negate === true })),
  }
}

function savedOf(f: Filters, all: string): Omit<SavedSearch, 'id' | 'revision'> {
  const range = f.start !== '' && f.end !== '' ? { start: f.start, end: f.end } : { last: f.range || '1h' }
  const query: SavedSearch['query'] = { range }
  if (f.q !== '') query.q = f.q
  if (f.severity !== '') query.severity = f.severity
  if (f.trace_id !== '') query.trace_id = f.trace_id
  if (f.attrs.length > 0) query.filters = f.attrs
  return { name: '', resource_id: f.rid === all ? null : f.rid, query }
}

/** The log-check form of the monitoring page, prefilled with this search (its documented hash route). */
export function alertHref(f: Filters, all: string): string {
  return href(['monitoring', 'new'], {
    kind: 'log', resource: f.rid === all ? undefined : f.rid, q: f.q || undefined, severity: f.severity || undefined,
    trace_id: f.trace_id || undefined, ...attrParams(f.attrs),
  })
}

export function SavedSearches({ ws, f, all, onOpen, frozenLink }: { ws: string; f: Filters; all: string; onOpen: (f: Filters) => void; frozenLink: () => string }) {
  const [items, setItems] = useState<SavedSearch[]>([])
  const [naming, setNaming] = useState(false)
  const [name, setName] = useState('')
  const [msg, setMsg] = useState('')
  const [link, setLink] = useState('')
  const load = () => api<{ items: SavedSearch[] }>('GET', `${wsPath(ws)}/saved-searches`).then((r) => setItems(r.items), (e: Error) => setMsg(e.message))
  useEffect(() => { void load() }, [ws])
  const save = async (e: Event) => {
    e.preventDefault()
    try {
      const s = await api<SavedSearch>('POST', `${wsPath(ws)}/saved-searches`, { ...savedOf(f, all), name: name.trim() })
      setNaming(false)
      setName('')
      setMsg(`Saved as “${s.name}”.`)
      await load()
    } catch (err) {
      setMsg((err as Error).message)
    }
  }
  const copy = async () => {
    const url = frozenLink()
    setLink(url)
    try {
      await navigator.clipboard.writeText(url)
      setMsg('Link copied: it shows this exact time range.')
    } catch {
      setMsg('Copy the link below: it shows this exact time range.')
    }
  }
  return (
    <div class="saved" role="group" aria-label="Saved searches and sharing">
      <label>
        <span class="sr-only">Open a saved search</span>
        <select aria-label="Open a saved search" value="" onChange={(e) => {
          const s = items.find((x) => x.id === (e.target as HTMLSelectElement).value)
          if (s !== undefined) onOpen(filtersOfSaved(s, all))
        }}>
          <option value="">Saved searches ({items.length})</option>
          {items.map((s) => <option key={s.id} value={s.id}>{s.name}</option>)}
        </select>
      </label>
      {naming ? (
        <form class="inline" onSubmit={(e) => void save(e)}>
          <input aria-label="Name of the saved search" placeholder="name" value={name} required maxLength={200} onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          <button class="btn small primary" type="submit" disabled={name.trim() === ''}>Save</button>
          <button class="btn small" type="button" onClick={() => setNaming(false)}>Cancel</button>
        </form>
      ) : <button class="btn small" type="button" onClick={() => { setNaming(true); setMsg('') }}>Save search</button>}
      <button class="btn small" type="button" onClick={() => void copy()}>Copy link</button>
      <a class="btn small" href={alertHref(f, all)}>Alert on this search</a>
      {msg !== '' && <span class="muted small" role="status">{msg}</span>}
      {link !== '' && <input class="mono link-out" readOnly aria-label="Link to this view" value={link} onFocus={(e) => (e.target as HTMLInputElement).select()} />}
    </div>
  )
}
