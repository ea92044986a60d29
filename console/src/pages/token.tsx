// The signed-in token: its workspace, scopes and resource grant (never its secret).
import type { Session } from '../types.ts'

export function TokenPage({ session }: { session: Session }) {
  const c = session.me.credential
  const names = new Map(session.resources.map((r) => [r.id, r.name]))
  return (
    <div class="page">
      <div class="page-head"><h1>Signed-in token</h1></div>
      <section class="card">
        <dl class="kv">
          <dt>Name</dt><dd>{c.name || '(unnamed)'}</dd>
          <dt>Token id</dt><dd class="mono">{c.id}</dd>
          <dt>Kind</dt><dd>{c.kind}</dd>
          <dt>Workspace</dt><dd>{session.me.workspace.name} <span class="mono small muted">{session.me.workspace.id}</span></dd>
          <dt>Resources</dt><dd>{c.resources === 'all' ? 'every resource of the workspace' : <ul class="plain">{c.resources.map((r) => <li key={r}>{names.get(r) ?? r} <span class="mono small muted">{r}</span></li>)}</ul>}</dd>
          <dt>Scopes</dt><dd><ul class="chips">{c.scopes.map((s) => <li key={s}>{s}</li>)}</ul></dd>
        </dl>
        <p class="muted">The console acts with exactly this token. Revoking it (<code>lookout token revoke {c.id}</code>) ends this session on the next request. API reference: <a href="/v1/docs/">/v1/docs</a> · <a href="/v1/openapi.json">/v1/openapi.json</a></p>
      </section>
    </div>
  )
}
