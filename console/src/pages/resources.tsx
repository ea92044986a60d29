// Resources the token reaches, with links to their logs and checks.
import { href } from '../router.ts'
import type { Session } from '../types.ts'

export function Resources({ session }: { session: Session }) {
  return (
    <div class="page">
      <div class="page-head"><h1>Resources</h1><span class="muted">{session.resources.length} in {session.me.workspace.name}</span></div>
      <section class="card">
        {session.resources.length === 0 ? <p class="muted">No resources yet.</p> : (
          <table class="grid" aria-label="Resources">
            <thead><tr><th scope="col">Name</th><th scope="col">External id</th><th scope="col">Kind</th><th scope="col">Environment</th><th scope="col">Status</th><th scope="col"><span class="sr-only">Links</span></th></tr></thead>
            <tbody>
              {session.resources.map((r) => (
                <tr key={r.id} data-resource={r.id}>
                  <td class="strong">{r.name}</td><td class="mono small">{r.external_id}</td><td>{r.kind}</td><td>{r.environment || '–'}</td><td>{r.status}</td>
                  <td class="actions"><a class="btn small" href={href(['logs', r.id])}>Logs</a> <a class="btn small" href={href(['monitoring', r.id])}>Checks</a></td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </section>
    </div>
  )
}
