// Top values beside the results: severity, the service, the host and any
// attribute the user picks, each value a button that narrows the search.
import { useEffect, useState } from 'preact/hooks'
import { api } from '../api.ts'

export interface FacetData { field: string; values: { value: string; count: number }[]; other: number; total: number }

const FIXED = ['severity', 'resource.service.name', 'resource.host.name']
const LABELS: Record<string, string> = { severity: 'Level', 'resource.service.name': 'Service', 'resource.host.name': 'Host' }

/** `url(field)` is the facets request for a field with the current filters. */
export function Facets({ url, keys, onPick }: { url: (field: string) => string; keys: readonly string[]; onPick: (field: string, value: string, negate: boolean) => void }) {
  const [extra, setExtra] = useState('')
  const fields = extra === '' ? FIXED : [...FIXED, extra]
  const [data, setData] = useState<Record<string, FacetData | string>>({})
  const urls = fields.map(url)
  useEffect(() => {
    let live = true
    setData({})
    for (let i = 0; i < fields.length; i++) {
      const field = fields[i] as string
      api<FacetData>('GET', urls[i] as string).then(
        (d) => live && setData((cur) => ({ ...cur, [field]: d })),
        (e: Error) => live && setData((cur) => ({ ...cur, [field]: e.message })))
    }
    return () => { live = false }
  }, [urls.join('\n')])
  return (
    <aside class="facets card" aria-label="Top values">
      <h2>Top values</h2>
      {fields.map((field) => {
        const d = data[field]
        return (
          <section key={field} class="facet" data-field={field}>
            <h3>{LABELS[field] ?? field.replace(/^attr\./, '')}</h3>
            {d === undefined ? <p class="muted small">…</p> : typeof d === 'string' ? <p class="error small">{d}</p>
              : d.values.length === 0 ? <p class="muted small">none in this range</p> : (
                <ul>
                  {d.values.map((v) => (
                    <li key={v.value}>
                      <button type="button" class="link facet-value" title={field === 'severity' ? `Show ${v.value} and worse` : `Only ${v.value}`}
                        onClick={() => onPick(field, v.value, false)}>{v.value === '' ? '(empty)' : v.value}</button>
                      {field !== 'severity' && <button type="button" class="facet-not" aria-label={`Exclude ${v.value}`} title={`Exclude ${v.value}`} onClick={() => onPick(field, v.value, true)}>−</button>}
                      <span class="count">{v.count.toLocaleString('en')}</span>
                    </li>
                  ))}
                  {d.other > 0 && <li class="muted small">other <span class="count">{d.other.toLocaleString('en')}</span></li>}
                </ul>
              )}
          </section>
        )
      })}
      <label class="facet-pick">
        <span>Another attribute</span>
        <select value={extra} onChange={(e) => setExtra((e.target as HTMLSelectElement).value)}>
          <option value="">choose…</option>
          {keys.map((k) => <option key={k} value={`attr.${k}`}>{k}</option>)}
        </select>
      </label>
    </aside>
  )
}
