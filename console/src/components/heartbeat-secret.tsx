// Shown once after a heartbeat check is created: where to push beats, the token
// of the heartbeat source enrolled for it (only its hash is kept), and a
// command to copy. Leaving the panel forgets the token.
import { useState } from 'preact/hooks'

export interface HeartbeatSecret { checkName: string; checkId: string; resourceId: string; token: string }

export function HeartbeatSecretPanel({ secret, onClose }: { secret: HeartbeatSecret; onClose: () => void }) {
  const [copied, setCopied] = useState('')
  const url = `${location.origin}/v1/heartbeat`
  const body = JSON.stringify({ resource_id: secret.resourceId, check_id: secret.checkId })
  const example = `curl -fsS -X POST ${url} \\\n  -H "authorization: Bearer ${secret.token}" \\\n  -H 'content-type: application/json' \\\n  -d '${body}'`
  const copy = (what: string, text: string) => {
    navigator.clipboard.writeText(text).then(() => setCopied(what), () => setCopied('failed'))
  }
  return (
    <section class="card secret" aria-labelledby="hb-h" data-testid="heartbeat-secret">
      <h2 id="hb-h">Heartbeat “{secret.checkName}” created: send its beats here</h2>
      <p class="warn-text">The token is shown only now: copy it before you close this panel.</p>
      <dl class="kv">
        <dt>Push URL</dt><dd class="mono" data-testid="push-url">POST {url}</dd>
        <dt>Body</dt><dd class="mono">{body}</dd>
        <dt>Token</dt><dd class="mono"><code data-testid="push-token">{secret.token}</code>
          <button class="btn small" type="button" onClick={() => copy('token', secret.token)}>Copy token</button></dd>
      </dl>
      <h3>Example (every run of the job, or from cron)</h3>
      <pre class="mono code" data-testid="push-example">{example}</pre>
      <div class="row">
        <button class="btn" type="button" onClick={() => copy('example', example)}>Copy example</button>
        <span role="status" class="muted small">{copied === 'failed' ? 'The browser refused to copy: select the text instead.' : copied !== '' ? `Copied the ${copied}.` : ''}</span>
        <button class="btn ghost push-right" type="button" onClick={onClose}>I have copied it, close</button>
      </div>
    </section>
  )
}
