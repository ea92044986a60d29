// The console's shell: sign-in, the navigation, the workspace switcher, and the page of the current route.
import 'uplot/dist/uPlot.min.css'
import './style.css'
import { render } from 'preact'
import { useEffect, useState } from 'preact/hooks'
import { ApiError, api, wsPath } from './api.ts'
import { href, navigate, useRoute, type Route } from './router.ts'
import { tzOf } from './time.ts'
import { SignIn } from './pages/signin.tsx'
import { Explorer } from './pages/explorer.tsx'
import { Monitoring } from './pages/monitoring.tsx'
import { Overview } from './pages/overview.tsx'
import { IncidentPage } from './pages/incident.tsx'
import { Inbox } from './pages/inbox.tsx'
import { Ingest } from './pages/ingest.tsx'
import { Resources } from './pages/resources.tsx'
import { TokenPage } from './pages/token.tsx'
import type { Me, Resource, Session } from './types.ts'

const NAV = [
  ['overview', 'Overview'], ['inbox', 'Inbox'], ['logs', 'Logs'], ['monitoring', 'Monitoring'], ['ingest', 'Ingest'], ['resources', 'Resources'], ['token', 'Token'],
] as const

/** Light or dark for this tab (it starts from the system's preference; nothing is stored). */
function ThemeToggle() {
  const [light, setLight] = useState(() => matchMedia('(prefers-color-scheme: light)').matches)
  useEffect(() => { document.documentElement.dataset.theme = light ? 'light' : 'dark' }, [light])
  return <button type="button" class="btn ghost" aria-pressed={light} onClick={() => setLight(!light)}>{light ? 'Dark theme' : 'Light theme'}</button>
}

/** The inbox's unread count beside its link: polled, and told at once by the inbox page. */
function useUnread(session: Session): number | null {
  const [n, setN] = useState<number | null>(null)
  useEffect(() => {
    if (!session.me.credential.scopes.includes('monitor:read')) return
    const ws = session.me.workspace.id
    const poll = () => api<{ unread_count: number }>('GET', `${wsPath(ws)}/notifications?filter=unread&limit=1`).then((r) => setN(r.unread_count), () => undefined)
    const on = (e: Event) => setN(Number((e as CustomEvent).detail))
    window.addEventListener('lookout:unread', on)
    void poll()
    const t = setInterval(poll, 30_000)
    return () => { clearInterval(t); window.removeEventListener('lookout:unread', on) }
  }, [session.me.workspace.id])
  return n
}

/** UTC or the browser's zone for every time shown; kept in the URL (router.ts carries it along). */
function TzToggle({ route }: { route: Route }) {
  const tz = tzOf(route.params)
  const set = (v: 'utc' | 'local') => {
    // Every other parameter as it is (some repeat): only tz changes.
    const p = new URLSearchParams(route.params)
    if (v === 'local') p.set('tz', 'local')
    else p.delete('tz')
    const rest = p.toString()
    history.replaceState(null, '', `${location.hash.split('?')[0] || '#/'}${rest === '' ? '' : `?${rest}`}`)
    window.dispatchEvent(new HashChangeEvent('hashchange'))
  }
  return (
    <span class="tz" role="group" aria-label="Time zone">
      Times in
      <button type="button" class="btn small" aria-pressed={tz === 'utc'} onClick={() => set('utc')}>UTC</button>
      <button type="button" class="btn small" aria-pressed={tz === 'local'} onClick={() => set('local')}>Local</button>
    </span>
  )
}

function Shell({ session, onSignOut }: { session: Session; onSignOut: () => void }) {
  const route = useRoute()
  const page = route.path[0] ?? 'overview'
  const unread = useUnread(session)
  const content = page === 'overview' ? <Overview session={session} />
    : page === 'inbox' ? <Inbox session={session} route={route} />
    : page === 'incident' ? <IncidentPage session={session} route={route} />
    : page === 'monitoring' ? <Monitoring session={session} route={route} />
    : page === 'ingest' ? <Ingest session={session} />
    : page === 'resources' ? <Resources session={session} />
    : page === 'token' ? <TokenPage session={session} />
    : <Explorer session={session} route={route} />
  return (
    <div class="shell">
      <nav class="sidebar" aria-label="Main">
        <div class="brand"><span class="logo" aria-hidden="true" />Lookout</div>
        <ul>
          {NAV.map(([p, label]) => (
            <li key={p}><a href={href([p])} aria-current={page === p ? 'page' : undefined} class={page === p ? 'active' : ''}>{label}
              {p === 'inbox' && unread !== null && unread > 0 && <span class="badge" data-testid="unread-badge"><span class="sr-only">, unread: </span>{unread}</span>}</a></li>
          ))}
          <li><a href="/v1/docs/" target="_blank" rel="noopener">API reference ↗</a></li>
        </ul>
      </nav>
      <div class="main">
        <header class="topbar">
          <label class="ws">
            <span>Workspace</span>
            <select aria-label="Workspace" value={session.me.workspace.id} disabled={session.workspaces.length < 2}
              onChange={() => navigate(['resources'])}>
              {session.workspaces.map((w) => <option key={w.id} value={w.id}>{w.name}</option>)}
            </select>
          </label>
          <TzToggle route={route} />
          <span class="who">{session.me.credential.name || 'token'} · {session.me.credential.resources === 'all' ? 'all resources' : `${session.me.credential.resources.length} resource(s)`}</span>
          <ThemeToggle />
          <button type="button" class="btn ghost" onClick={onSignOut}>Sign out</button>
        </header>
        {/* Focusable: it is the scrolling region, so keyboard users can scroll it. */}
        <main id="content" tabIndex={0}>{content}</main>
      </div>
    </div>
  )
}

function App() {
  const [session, setSession] = useState<Session | null>(null)
  const [state, setState] = useState<'loading' | 'signed-out' | 'ready'>('loading')
  const [notice, setNotice] = useState('')

  const load = async () => {
    try {
      // Asked first, so a visitor without a session gets the form without a refused request.
      const s = await api<{ signed_in: boolean; workspace_id?: string }>('GET', '/console/session')
      if (!s.signed_in || s.workspace_id === undefined) {
        setState('signed-out')
        return
      }
      // All at once: the session already named the workspace.
      const [me, workspaces, resources] = await Promise.all([
        api<Me>('GET', '/v1/me'),
        api<{ items: { id: string; name: string }[] }>('GET', '/v1/workspaces'),
        api<{ items: Resource[] }>('GET', `${wsPath(s.workspace_id)}/resources?limit=100`),
      ])
      setSession({ me, workspaces: workspaces.items, resources: resources.items })
      setState('ready')
    } catch (err) {
      if (err instanceof ApiError && err.status === 401) setState('signed-out')
      else {
        setNotice((err as Error).message)
        setState('signed-out')
      }
    }
  }

  useEffect(() => {
    const onOut = (e: Event) => {
      setNotice(String((e as CustomEvent).detail ?? ''))
      setSession(null)
      setState('signed-out')
    }
    window.addEventListener('lookout:signed-out', onOut)
    // The view a signed-out visitor was sent to (a shared link): where they land after signing in.
    let wanted = /^#\/./.test(location.hash) ? location.hash : ''
    // A one-time link: #signin=<code>. The code leaves the address bar before anything else happens.
    // Also in a tab that is already open, where following the link only changes the #.
    const fromLink = (): boolean => {
      const m = /^#signin=([A-Za-z0-9_-]+)$/.exec(location.hash)
      if (m === null) return false
      history.replaceState(null, '', wanted || '#/overview')
      api('POST', '/console/session', { code: m[1] }).then(() => {
        wanted = ''
        return load()
      }, (err: Error) => {
        setNotice(err.message)
        setState('signed-out')
      })
      return true
    }
    const onHash = () => {
      if (fromLink()) return
      if (/^#\/./.test(location.hash) && document.querySelector('.shell') === null) wanted = location.hash
    }
    window.addEventListener('hashchange', onHash)
    if (!fromLink()) void load()
    return () => {
      window.removeEventListener('lookout:signed-out', onOut)
      window.removeEventListener('hashchange', onHash)
    }
  }, [])

  const signOut = async () => {
    await api('POST', '/console/signout').catch(() => undefined)
    setSession(null)
    setNotice('Signed out.')
    setState('signed-out')
  }

  if (state === 'loading') return <div class="center muted" role="status">Loading…</div>
  if (state === 'signed-out' || session === null) return <SignIn notice={notice} onSignedIn={() => { setNotice(''); void load() }} />
  return <Shell session={session} onSignOut={() => void signOut()} />
}

const root = document.getElementById('app')
if (root !== null) render(<App />, root)
