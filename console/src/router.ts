// Hash routes (#/logs/<resource>?q=...): the page state lives in the URL, so a
// link can be shared, and the server only ever serves one page.
import { useEffect, useRef, useState } from 'preact/hooks'

export interface Route {
  path: string[]
  params: URLSearchParams
}

export function parseHash(hash = location.hash): Route {
  const h = hash.replace(/^#/, '')
  const q = h.indexOf('?')
  const path = (q < 0 ? h : h.slice(0, q)).split('/').filter((s) => s !== '').map(decodeURIComponent)
  return { path, params: new URLSearchParams(q < 0 ? '' : h.slice(q + 1)) }
}

/** Parameter values: a list repeats the parameter (the explorer's attribute filters). */
export type Params = Record<string, string | readonly string[] | undefined | null>

export function href(path: string[], params?: Params): string {
  const u = new URLSearchParams()
  for (const [k, v] of Object.entries(params ?? {})) {
    if (Array.isArray(v)) for (const x of v) u.append(k, x)
    else if (typeof v === 'string' && v !== '') u.set(k, v)
  }
  // The time zone choice (time.ts) follows every link, unless the link sets it (null: back to UTC).
  const tz = parseHash().params.get('tz')
  if (tz !== null && (params === undefined || !('tz' in params))) u.set('tz', tz)
  const s = u.toString()
  return `#/${path.map(encodeURIComponent).join('/')}${s === '' ? '' : `?${s}`}`
}

export function navigate(path: string[], params?: Params, replace = false): void {
  const h = href(path, params)
  if (replace) {
    history.replaceState(null, '', h)
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  } else location.hash = h
}

export function useRoute(): Route {
  const [route, setRoute] = useState(parseHash)
  const rendered = useRef(location.hash)
  useEffect(() => {
    const on = () => setRoute(parseHash())
    window.addEventListener('hashchange', on)
    // Effects run after the browser paints: a hash changed between the first render and
    // now (a link followed as the shell appeared) fired its event before anyone listened.
    if (location.hash !== rendered.current) on()
    return () => window.removeEventListener('hashchange', on)
  }, [])
  return route
}
