// The signed-in principal's notifications (incident opened, recovered) with its
// own read marks: unread first in weight, mark one or all read; opening one marks it read.
import { useEffect, useState } from 'preact/hooks'
import { api, qs, wsPath } from '../api.ts'
import { href, navigate, type Route } from '../router.ts'
import type { InboxItem } from '../on-call.ts'
import { fmtDateTime, fmtWhen } from '../time.ts'
import type { Session } from '../types.ts'

interface Page { items: InboxItem[]; next_cursor: string | null; unread_count: number }

/** Tells the navigation's badge the new unread count at once (it also polls). */
export function announceUnread(n: number): void {
  window.dispatchEvent(new CustomEvent('lookout:unread', { detail: n }))
}

export function Inbox({ session, route }: { session: Session; route: Route }) {
  const ws = session.me.workspace.id
  const filter = route.params.get('filter') === 'unread' ? 'unread' : 'all'
  const [items, setItems] = useState<InboxItem[]>([])
  const [cursor, setCursor] = useState<string | null>(null)
  const [unread, setUnread] = useState<number | null>(null)
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const load = async (more: boolean) => {
    setBusy(true)
    try {
      const p = await api<Page>('GET', `${wsPath(ws)}/notifications${qs({ filter, limit: 20, cursor: more ? cursor : undefined })}`)
      setItems((cur) => (more ? [...cur, ...p.items] : p.items))
      setCursor(p.next_cursor)
      setUnread(p.unread_count)
      announceUnread(p.unread_count)
      setError('')
    } catch (e) {
      setError((e as Error).message)
    } finally {
      setBusy(false)
    }
  }
  useEffect(() => { void load(false) }, [ws, filter])
  const mark = async (body: { action: 'read' | 'unread' | 'read_all'; id?: string }) => {
    try {
      const r = await api<{ item?: InboxItem; unread_count: number }>('POST', `${wsPath(ws)}/notifications/actions`, body)
      setUnread(r.unread_count)
      announceUnread(r.unread_count)
      if (body.action === 'read_all') setItems((cur) => (filter === 'unread' ? [] : cur.map((i) => ({ ...i, state: 'read' }))))
      else if (r.item !== undefined) {
        const item = r.item
        setItems((cur) => (filter === 'unread' && item.state === 'read' ? cur.filter((i) => i.id !== item.id) : cur.map((i) => (i.id === item.id ? item : i))))
      }
    } catch (e) {
      setError((e as Error).message)
    }
  }
  const open = (i: InboxItem) => {
    if (i.state === 'unread') void mark({ action: 'read', id: i.id })
    if (i.resource_id !== null && i.incident_id !== null) navigate(['incident', i.resource_id, i.incident_id])
  }
  return (
    <div class="page">
      <div class="page-head">
        <h1>Inbox</h1>
        <span class="muted" data-testid="unread-count">{unread === null ? '' : unread === 0 ? 'nothing unread' : `${unread} unread`}</span>
        <span class="tz" role="group" aria-label="Show">
          <a class="btn small" aria-current={filter === 'all' ? 'page' : undefined} href={href(['inbox'])}>All</a>
          <a class="btn small" aria-current={filter === 'unread' ? 'page' : undefined} href={href(['inbox'], { filter: 'unread' })}>Unread</a>
        </span>
        <button class="btn push-right" type="button" disabled={unread === 0} onClick={() => void mark({ action: 'read_all' })}>Mark all read</button>
      </div>
      {error !== '' && <div class="error banner" role="alert">{error}</div>}
      <section class="card">
        {items.length === 0 && !busy ? <p class="muted">{filter === 'unread' ? 'Nothing unread.' : 'No notifications yet: they come when an incident opens or recovers on a resource you can read.'}</p> : (
          <table class="grid" aria-label="Notifications, newest first">
            <thead><tr><th scope="col">When</th><th scope="col">Notification</th><th scope="col">Severity</th><th scope="col"><span class="sr-only">Actions</span></th></tr></thead>
            <tbody>
              {items.map((i) => (
                <tr key={i.id} data-notification={i.id} class={i.state === 'unread' ? 'unread' : ''}>
                  <td class="small" title={fmtDateTime(i.created_at)}>{fmtWhen(i.created_at)}</td>
                  <td>{i.incident_id !== null && i.resource_id !== null
                    ? <button type="button" class="link strong" onClick={() => open(i)}>{i.title}</button> : <span class="strong">{i.title}</span>}
                    {i.state === 'unread' && <span class="sr-only"> (unread)</span>}
                    <div class="muted small">{i.body}</div></td>
                  <td><span class={`pill ${i.severity === 'critical' ? 'bad' : i.severity === 'warning' ? 'warn' : 'ok'}`}>{i.severity}</span></td>
                  <td class="actions">{i.state === 'unread'
                    ? <button class="btn small" type="button" onClick={() => void mark({ action: 'read', id: i.id })}>Mark read</button>
                    : <button class="btn small ghost" type="button" onClick={() => void mark({ action: 'unread', id: i.id })}>Mark unread</button>}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
        {cursor !== null && <p><button class="btn" type="button" disabled={busy} onClick={() => void load(true)}>Older notifications</button></p>}
      </section>
    </div>
  )
}
