// Sign in with a pasted access token; it is exchanged for the session cookie and forgotten.
import { useState } from 'preact/hooks'
import { api } from '../api.ts'

export function SignIn({ notice, onSignedIn }: { notice: string; onSignedIn: () => void }) {
  const [token, setToken] = useState('')
  const [error, setError] = useState('')
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setError('')
    try {
      await api('POST', '/console/session', { token: token.trim() })
      setToken('')
      onSignedIn()
    } catch (err) {
      setError((err as Error).message)
    } finally {
      setBusy(false)
    }
  }
  return (
    <main class="signin">
      <form class="card signin-card" onSubmit={(e) => void submit(e)} aria-labelledby="signin-title">
        <div class="brand big"><span class="logo" aria-hidden="true" />Lookout</div>
        <h1 id="signin-title">Sign in to the console</h1>
        <p class="muted">Run <code>npx lookout console</code> on the server and open the link it prints, or paste an access token.</p>
        {notice !== '' && <p class="notice" role="status">{notice}</p>}
        <label for="token">Access token</label>
        <input id="token" name="token" type="password" autocomplete="off" spellcheck={false} placeholder="lkt_…"
          value={token} onInput={(e) => setToken((e.target as HTMLInputElement).value)} required />
        {error !== '' && <p class="error" role="alert">{error}</p>}
        <button class="btn primary" type="submit" disabled={busy || token.trim() === ''}>{busy ? 'Signing in…' : 'Sign in'}</button>
        <p class="fine muted">The token is exchanged for a session cookie; the browser never stores it.</p>
      </form>
    </main>
  )
}
