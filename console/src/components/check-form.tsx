// Create or edit a check of any kind; the API's own validation messages are shown as they come.
import { useState } from 'preact/hooks'
import { api } from '../api.ts'

export interface Check {
  id: string; name: string; kind: string; configuration: Record<string, unknown>; enabled: boolean; required: boolean
  state: string; health: string; stale: boolean; revision: number; interval_seconds: number
  last_result: { status: string; code: string | null; reason: string | null; latency_ms: number | null; observed_at: string | null } | null
  open_incident_id: string | null
}

const TEMPLATES: Record<string, Record<string, unknown>> = {
  https: { url: 'https://example.com/health', interval_seconds: 60 },
  tcp: { host: 'db.internal', port: 5432, interval_seconds: 60 },
  icmp: { host: 'gateway.internal', count: 3, interval_seconds: 60 },
  postgresql: { host: 'db.internal', port: 5432, tls: 'prefer', interval_seconds: 60 },
  mysql: { host: 'db.internal', port: 3306, interval_seconds: 60 },
  mariadb: { host: 'db.internal', port: 3306, interval_seconds: 60 },
  redis: { host: 'cache.internal', port: 6379, interval_seconds: 60 },
  mongodb: { host: 'mongo.internal', port: 27017, interval_seconds: 60 },
  heartbeat: { interval_seconds: 300, grace_seconds: 30 },
}

export function CheckForm({ base, check, onDone, onCancel }: { base: string; check: Check | null; onDone: () => void; onCancel: () => void }) {
  const [name, setName] = useState(check?.name ?? '')
  const [kind, setKind] = useState(check?.kind ?? 'https')
  const [config, setConfig] = useState(JSON.stringify(check?.configuration ?? TEMPLATES.https, null, 2))
  const [required, setRequired] = useState(check?.required ?? true)
  const [errors, setErrors] = useState<string[]>([])
  const [busy, setBusy] = useState(false)
  const submit = async (e: Event) => {
    e.preventDefault()
    let configuration: unknown
    try {
      configuration = JSON.parse(config)
    } catch {
      setErrors(['Configuration: not valid JSON'])
      return
    }
    setBusy(true)
    try {
      await api('POST', `${base}/monitoring`, { ...(check === null ? {} : { id: check.id }), name, kind, configuration, required })
      onDone()
    } catch (err) {
      setErrors((err as Error).message.split('; '))
    } finally {
      setBusy(false)
    }
  }
  return (
    <form class="card check-form" onSubmit={(e) => void submit(e)} aria-labelledby="check-form-h">
      <h2 id="check-form-h">{check === null ? 'New check' : `Edit ${check.name}`}</h2>
      <div class="row">
        <label><span>Name</span><input name="name" value={name} maxLength={100} required onInput={(e) => setName((e.target as HTMLInputElement).value)} /></label>
        <label><span>Kind</span>
          <select name="kind" value={kind} onChange={(e) => {
            const k = (e.target as HTMLSelectElement).value
            setKind(k)
            if (check === null) setConfig(JSON.stringify(TEMPLATES[k] ?? {}, null, 2))
          }}>
            {Object.keys(TEMPLATES).map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </label>
        <label class="toggle"><input type="checkbox" checked={required} onChange={(e) => setRequired((e.target as HTMLInputElement).checked)} /><span>Required for resource health</span></label>
      </div>
      <label><span>Configuration (JSON, as the API takes it)</span>
        <textarea name="configuration" class="mono" rows={7} spellcheck={false} value={config} onInput={(e) => setConfig((e.target as HTMLTextAreaElement).value)} />
      </label>
      {errors.length > 0 && <ul class="error" role="alert">{errors.map((m) => <li key={m}>{m}</li>)}</ul>}
      <div class="row">
        <button class="btn primary" type="submit" disabled={busy}>{check === null ? 'Create check' : 'Save'}</button>
        <button class="btn ghost" type="button" onClick={onCancel}>Cancel</button>
      </div>
    </form>
  )
}
