// The explorer's state as it lives in the URL (#/logs/<resource>?q=…&attr.k=v):
// filters, attribute filters (repeatable), the range; and what the page derives
// from it (the API's query parameters, the words to highlight, a frozen range).
import type { Params, Route } from './router.ts'

export interface AttrFilter { scope: 'attr' | 'resource'; key: string; value: string; negate: boolean }

export interface Filters {
  rid: string
  range: string
  start: string
  end: string
  severity: string
  q: string
  trace_id: string
  tail: boolean
  attrs: AttrFilter[]
}

export const RANGES: [string, string, number][] = [
  ['15m', 'Last 15 minutes', 15 * 60_000], ['1h', 'Last hour', 3_600_000], ['6h', 'Last 6 hours', 6 * 3_600_000],
  ['24h', 'Last 24 hours', 86_400_000], ['7d', 'Last 7 days', 7 * 86_400_000],
]

const ATTR_RE = /^(-?)(attr|resource)\.(.+)$/

export function filtersOf(route: Route, fallbackRid: string): Filters {
  const p = route.params
  const attrs: AttrFilter[] = []
  for (const [k, v] of p) {
    const m = ATTR_RE.exec(k)
    if (m !== null && v !== '') attrs.push({ scope: m[2] as 'attr' | 'resource', key: m[3] as string, value: v, negate: m[1] === '-' })
  }
  return {
    rid: route.path[1] ?? fallbackRid, range: p.get('range') ?? '', start: p.get('start') ?? '', end: p.get('end') ?? '',
    severity: p.get('severity') ?? '', q: p.get('q') ?? '', trace_id: p.get('trace_id') ?? '', tail: p.get('tail') === '1', attrs,
  }
}

/** The attribute filters as query parameters (`-resource.host.name` → [values]): for the API and the URL alike. */
export function attrParams(attrs: readonly AttrFilter[]): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const a of attrs) (out[`${a.negate ? '-' : ''}${a.scope}.${a.key}`] ??= []).push(a.value)
  return out
}

/** The URL parameters of a state. */
export function paramsOf(f: Filters): Params {
  return {
    range: f.start === '' ? (f.range || undefined) : undefined, start: f.start || undefined, end: f.end || undefined,
    severity: f.severity || undefined, q: f.q || undefined, trace_id: f.trace_id || undefined, tail: f.tail ? '1' : undefined,
    ...attrParams(f.attrs),
  }
}

/** A query string from parameters, repeating list values. */
export function query(params: Params): string {
  const u = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const x of v) u.append(k, x)
    else if (typeof v === 'string' && v !== '') u.set(k, v)
  }
  const s = u.toString()
  return s === '' ? '' : `?${s}`
}

/** Adds a filter (AND); the same key and value with the other sign replaces it. */
export function withAttr(attrs: readonly AttrFilter[], a: AttrFilter): AttrFilter[] {
  const rest = attrs.filter((x) => !(x.scope === a.scope && x.key === a.key && x.value === a.value))
  return [...rest, a]
}

/** The range a search covers: absolute when the URL says so, else the quick pick ending now. */
export function windowOf(f: Filters, now: number): { start: string; end: string } {
  if (f.start !== '' && f.end !== '') return { start: f.start, end: f.end }
  const ms = RANGES.find((r) => r[0] === f.range)?.[2] ?? 3_600_000
  return { start: new Date(now - ms).toISOString(), end: new Date(now).toISOString() }
}

/** The words and phrases a search looks for (not the excluded ones, not OR): what the results highlight. */
export function searchedTerms(q: string): string[] {
  const out: string[] = []
  for (const m of q.matchAll(/(-?)"([^"]*)"?|(\S+)/g)) {
    if (m[1] === '-' || m[3] === 'OR') continue
    const term = m[2] ?? m[3] ?? ''
    if (term.startsWith('-') && term.length > 1 && term[1] !== '-') continue
    if (term.trim() !== '') out.push(term.trim())
  }
  return out
}
