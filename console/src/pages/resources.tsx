// Resources the token reaches, each with its monitoring health, checks, monitor
// sources and latest log line, and links to its logs and checks.
import { useEffect, useState } from 'preact/hooks'
import { api, resPath } from '../api.ts'
import { href } from '../router.ts'
import { fmtAgo, fmtDateTime } from '../time.ts'
import type { Session } from '../types.ts'

interface Facts { health?: string; checks?: number; sources?: number; lastLog?: string | null }

const HEALTH: Record<string, string> = { healthy: 'up', unhealthy: 'down', unknown: 'unknown' }

export function Resources({ session }: { session: Session }) {
  const ws = session.me.workspace.id
  const scopes = session.me.credential.scopes
  const [facts, setFacts] = useState<Record<string, Facts>>({})
  useEffect(() => {
    let live = true
    const queue = [...session.resources]
    // A few at a time: a workspace may hold many resources.
    const worker = async () => {
      for (let r = queue.shift(); r !== undefined; r = queue.shift()) {
        const f: Facts = {}
        const base = resPath(ws, r.id)
        await Promise.all([
          scopes.includes('monitor:read') && api<{ health: { status?: string } | string; checks: unknown[]; sources: unknown[] }>('GET', `${base}/monitoring?view=status`).then((s) => {
            const h = typeof s.health === 'string' ? s.health : s.health?.status ?? 'unknown'
            f.health = HEALTH[h] ?? h
            f.checks = s.checks.length
            f.sources = s.sources.length
          }, () => undefined),
          scopes.includes('logs:read') && api<{ events: { timestamp: string }[] }>('GET', `${base}/logs?limit=1`).then((l) => {
            f.lastLog = l.events[0]?.timestamp ?? null
          }, () => undefined),
        ])
        if (!live) return
        const id = r.id
        setFacts((cur) => ({ ...cur, [id]: f }))
      }
    }
    void Promise.all([worker(), worker(), worker(), worker()])
    return () => { live = false }
  }, [ws])
  return (
    <div class="page">
      <div class="page-head"><h1>Resources</h1><span class="muted">{session.resources.length} in {session.me.workspace.name}</span></div>
      <section class="card">
        {session.resources.length === 0 ? <p class="muted">No resources yet.</p> : (
          <table class="grid" aria-label="Resources">
            <thead><tr><th scope="col">Name</th><th scope="col">External id</th><th scope="col">Kind</th><th scope="col">Health</th><th scope="col">Checks</th><th scope="col">Monitor sources</th><th scope="col">Latest log line</th><th scope="col"><span class="sr-only">Links</span></th></tr></thead>
            <tbody>
              {session.resources.map((r) => {
                const f = facts[r.id]
                return (
                  <tr key={r.id} data-resource={r.id}>
                    <td class="strong">{r.name}</td><td class="mono small">{r.external_id}</td><td>{r.kind}</td>
                    <td>{f?.health === undefined ? <span class="muted">–</span> : <span class={`pill state-${f.health}`} data-state={f.health}>{f.health}</span>}</td>
                    <td class="num">{f?.checks ?? '–'}</td>
                    <td class="num">{f?.sources ?? '–'}</td>
                    <td>{f?.lastLog === undefined ? '–' : f.lastLog === null ? <span class="muted">none yet</span> : <span title={fmtDateTime(f.lastLog)}>{fmtAgo(f.lastLog)}</span>}</td>
                    <td class="actions"><a class="btn small" href={href(['logs', r.id])}>Logs</a> <a class="btn small" href={href(['monitoring', r.id])}>Checks</a></td>
                  </tr>
                )
              })}
            </tbody>
          </table>
        )}
      </section>
    </div>
  )
}
