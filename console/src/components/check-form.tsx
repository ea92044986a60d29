// Create, edit or delete a check: fields per kind (check-fields.ts), every
// problem the API finds shown at once, each beside its field and in a summary.
import { useState } from 'preact/hooks'
import { ApiError, api, resPath } from '../api.ts'
import { FIELDS, KINDS, TEMPLATES, configOf, fieldOfLoc, valuesOf, type Field, type Values } from './check-fields.ts'
import type { Resource } from '../types.ts'

export interface Check {
  id: string; resource_id: string; name: string; kind: string; configuration: Record<string, unknown>; enabled: boolean; required: boolean
  state: string; health: string; health_since: string; stale: boolean; revision: number; interval_seconds: number
  confirmation?: { candidate: string | null; streak: number }
  last_result: { status: string; code: string | null; reason: string | null; latency_ms: number | null; observed_at: string | null; details?: Record<string, unknown> | null } | null
  last_beat_at?: string | null
  open_incident_id: string | null
  [extra: string]: unknown
}

/** A new check's starting point: its kind, values, keys the form does not show (e.g. attribute filters) and name. */
export interface Draft { kind: string; values: Values; base: Record<string, unknown>; name: string }

export interface FormProps {
  ws: string
  resources: Resource[]
  /** The resource of the check (edit) or the one a new check goes to at first. */
  rid: string
  check: Check | null
  draft?: Draft | undefined
  onSaved: (check: Check, rid: string, created: boolean) => void
  onDeleted: () => void
  onCancel: () => void
}

interface Problem { field: string | null; text: string }

function FieldInput({ f, value, error, onChange }: { f: Field; value: string | boolean | undefined; error: string | undefined; onChange: (v: string | boolean) => void }) {
  const id = `f-${f.key.replace('.', '-')}`
  const described = error === undefined ? undefined : `${id}-err`
  const err = error === undefined ? null : <span class="field-error" id={described}>{error}</span>
  if (f.type === 'checkbox') {
    return <label class="toggle"><input id={id} type="checkbox" checked={value === true} aria-describedby={described} onChange={(e) => onChange((e.target as HTMLInputElement).checked)} /><span>{f.label}</span>{err}</label>
  }
  return (
    <label class={f.wide === true ? 'grow' : ''}>
      <span>{f.label}</span>
      {f.type === 'select'
        ? <select id={id} value={String(value ?? '')} aria-invalid={error !== undefined} aria-describedby={described} onChange={(e) => onChange((e.target as HTMLSelectElement).value)}>
            {(f.options ?? []).map((o) => <option key={o} value={o}>{o === '' ? 'Any' : o}</option>)}
          </select>
        : <input id={id} class={f.key.endsWith('trace_id') ? 'mono' : ''} inputMode={f.type === 'number' ? 'decimal' : undefined} value={String(value ?? '')} placeholder={f.placeholder}
            aria-invalid={error !== undefined} aria-describedby={described} onInput={(e) => onChange((e.target as HTMLInputElement).value)} />}
      {err}
    </label>
  )
}

export function CheckForm({ ws, resources, rid: initialRid, check, draft, onSaved, onDeleted, onCancel }: FormProps) {
  const [rid, setRid] = useState(initialRid)
  const [name, setName] = useState(check?.name ?? draft?.name ?? '')
  const [kind, setKind] = useState(check?.kind ?? draft?.kind ?? 'https')
  const [values, setValues] = useState<Values>(check !== null ? valuesOf(check.kind, check.configuration) : draft?.values ?? { ...TEMPLATES.https })
  const [required, setRequired] = useState(check?.required ?? true)
  const [problems, setProblems] = useState<Problem[]>([])
  const [busy, setBusy] = useState(false)
  const [confirmDelete, setConfirmDelete] = useState(false)
  // Keys the form does not show survive an edit of the same kind; a new kind starts clean.
  const base = check !== null && kind === check.kind ? check.configuration : kind === draft?.kind ? draft.base : {}

  const submit = async (e: Event) => {
    e.preventDefault()
    setBusy(true)
    setProblems([])
    try {
      const body = { ...(check === null ? {} : { id: check.id }), name: name.trim() === '' ? null : name.trim(), kind, configuration: configOf(kind, values, base), required }
      const saved = await api<Check>('POST', `${resPath(ws, rid)}/monitoring`, body)
      onSaved(saved, rid, check === null)
    } catch (err) {
      const items = err instanceof ApiError ? err.items : []
      setProblems(items.length === 0 ? [{ field: null, text: (err as Error).message }]
        : items.map((d) => {
          const field = fieldOfLoc(d.loc ?? [])
          const label = field === null ? 'Configuration' : field === 'name' ? 'Name' : FIELDS[kind]?.find((f) => f.key === field)?.label ?? field
          return { field, text: `${label}: ${d.msg ?? 'invalid'}` }
        }))
    } finally {
      setBusy(false)
    }
  }
  const remove = async () => {
    if (check === null) return
    setBusy(true)
    try {
      await api('POST', `${resPath(ws, rid)}/monitoring/actions`, { id: check.id, revision: check.revision, action: 'delete' })
      onDeleted()
    } catch (err) {
      setProblems([{ field: null, text: (err as Error).message }])
      setConfirmDelete(false)
    } finally {
      setBusy(false)
    }
  }
  const errorOf = (field: string) => problems.find((p) => p.field === field)?.text.replace(/^[^:]*: /, '')
  const fields = FIELDS[kind] ?? []
  return (
    <form class="card check-form" noValidate onSubmit={(e) => void submit(e)} aria-labelledby="check-form-h">
      <h2 id="check-form-h">{check === null ? (kind === 'log' ? 'New log check' : 'New check') : `Edit ${check.name}`}</h2>
      {problems.length > 0 && (
        <div class="error banner" role="alert">
          <strong>{problems.length === 1 ? 'One problem' : `${problems.length} problems`} to fix:</strong>
          <ul class="error">{problems.map((p) => <li key={p.text}>{p.text}</li>)}</ul>
        </div>
      )}
      <div class="row">
        {check === null && resources.length > 1 && (
          <label><span>Resource</span>
            <select id="f-resource" value={rid} onChange={(e) => setRid((e.target as HTMLSelectElement).value)}>
              {resources.map((r) => <option key={r.id} value={r.id}>{r.name || r.external_id}</option>)}
            </select>
          </label>
        )}
        <label><span>Name</span>
          <input id="f-name" name="name" value={name} maxLength={100} aria-invalid={errorOf('name') !== undefined} aria-describedby={errorOf('name') === undefined ? undefined : 'f-name-err'}
            onInput={(e) => setName((e.target as HTMLInputElement).value)} />
          {errorOf('name') !== undefined && <span class="field-error" id="f-name-err">{errorOf('name')}</span>}
        </label>
        <label><span>Kind</span>
          <select name="kind" value={kind} onChange={(e) => {
            const k = (e.target as HTMLSelectElement).value
            setKind(k)
            setValues(check?.kind === k ? valuesOf(k, check.configuration) : { ...(TEMPLATES[k] ?? {}) })
            setProblems([])
          }}>
            {KINDS.map((k) => <option key={k} value={k}>{k}</option>)}
          </select>
        </label>
        <label class="toggle"><input type="checkbox" checked={required} onChange={(e) => setRequired((e.target as HTMLInputElement).checked)} /><span>Required for resource health</span></label>
      </div>
      <fieldset class="row kind-fields">
        <legend class="sr-only">{kind} settings</legend>
        {fields.map((f) => <FieldInput key={`${kind}-${f.key}`} f={f} value={values[f.key]} error={errorOf(f.key)} onChange={(v) => setValues((cur) => ({ ...cur, [f.key]: v }))} />)}
      </fieldset>
      {kind === 'heartbeat' && check === null && <p class="muted small">After creating it you get the push URL and a token for this resource, shown once.</p>}
      {kind === 'log' && <p class="muted small">Counts the matching lines of the last window at every run: down when the count is above (or below) the threshold, confirmed by two runs like every check.</p>}
      <div class="row">
        <button class="btn primary" type="submit" disabled={busy}>{check === null ? 'Create check' : 'Save'}</button>
        <button class="btn ghost" type="button" onClick={onCancel}>Cancel</button>
        {check !== null && !confirmDelete && <button class="btn danger push-right" type="button" onClick={() => setConfirmDelete(true)}>Delete check</button>}
        {check !== null && confirmDelete && (
          <span class="push-right confirm" role="group" aria-label="Confirm deletion">
            <span>Delete “{check.name}” and its observations? Its open incident closes.</span>
            <button class="btn danger" type="button" disabled={busy} onClick={() => void remove()}>Yes, delete</button>
            <button class="btn" type="button" onClick={() => setConfirmDelete(false)}>Keep it</button>
          </span>
        )}
      </div>
    </form>
  )
}
