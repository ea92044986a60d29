// Calls to the Lookout API with the session cookie (never a token: the browser
// has none). Changes carry the same-origin header the server demands.

export type DetailItem = { loc?: (string | number)[]; msg?: string; type?: string }

export class ApiError extends Error {
  readonly status: number
  readonly code: string
  /** A 422's items, for forms that show each problem at its field. */
  readonly items: DetailItem[]
  constructor(status: number, code: string, message: string, items: DetailItem[] = []) {
    super(message)
    this.status = status
    this.code = code
    this.items = items
  }
}

// Parameter names as the page labels them.
const FIELD_NAMES: Record<string, string> = {
  q: 'Search', text: 'Search', trace_id: 'Trace id', start: 'Start of the range', end: 'End of the range', severity: 'Level',
  cursor: 'Page', field: 'Top values of', name: 'Name',
}

/** Schema wording (patterns, formats) as a person would say it. */
function wordsOf(name: string, msg: string): string {
  if (name === 'trace_id' && /pattern/.test(msg)) return 'a trace id is 32 hexadecimal digits (0-9, a-f)'
  if (/format "?date-time"?|valid datetime/.test(msg)) return 'give a date and time, as in 2026-11-27T10:00:00Z'
  if (/must NOT have more than (\d+) characters/.test(msg)) return msg.replace(/must NOT have more than (\d+) characters/, 'may be at most $1 characters long')
  if (/must NOT have fewer than 1 characters/.test(msg)) return 'give a value'
  return msg
}

/** A sentence a person can act on, for every error shape the API answers with. */
export function humanMessage(status: number, body: unknown): { code: string; message: string } {
  const b = body as { detail?: DetailItem[]; error?: { message?: string; code?: string } } | undefined
  const items = Array.isArray(b?.detail) ? b.detail : []
  const code = b?.error?.code ?? items[0]?.type ?? `HTTP_${status}`
  if (status === 422 && items.length > 0) {
    const what = items.map((d) => {
      const name = (d.loc ?? []).filter((x) => x !== 'body' && x !== 'query').join('.')
      return `${FIELD_NAMES[name] ?? (/^-?(attr|resource)\./.test(name) ? `Filter ${name.replace(/^-/, 'not ')}` : name || 'Input')}: ${wordsOf(name, d.msg ?? 'invalid')}`
    })
    return { code: 'LOOKOUT_VALIDATION', message: what.join('; ') }
  }
  const raw = b?.error?.message ?? items[0]?.msg ?? ''
  const known: Record<string, string> = {
    LOOKOUT_CONSOLE_SESSION_INVALID: 'Your session has ended. Sign in again.',
    LOOKOUT_AUTH_MISSING: 'You are not signed in.',
    LOOKOUT_AUTH_INVALID: 'Your token is no longer valid. Sign in again.',
    LOOKOUT_FORBIDDEN: `Your token may not do this: ${raw}.`,
    LOOKOUT_NOT_FOUND: `Not found: ${raw}.`,
    LOOKOUT_TAIL_UNAVAILABLE: 'Live tail is unavailable on this server right now.',
    LOOKOUT_TAIL_BUSY: 'Too many live tails are open on this server; try again in a moment.',
    LOOKOUT_OVERLOADED: 'The server is overloaded; try again in a moment.',
  }
  if (known[code] !== undefined) return { code, message: known[code] }
  if (status === 503) return { code, message: `A part of Lookout is unavailable (${raw || 'the store may be down'}); try again shortly.` }
  if (status >= 500) return { code, message: 'Lookout hit an internal error. Try again; if it persists, see the server log.' }
  return { code, message: raw || `Request failed (${status}).` }
}

export async function api<T = any>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (method !== 'GET') headers['x-lookout-csrf'] = '1'
  if (body !== undefined) headers['content-type'] = 'application/json'
  let res: Response
  try {
    res = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), credentials: 'same-origin' })
  } catch {
    throw new ApiError(0, 'NETWORK', 'Could not reach the Lookout server. Check that it is running, then try again.')
  }
  const text = await res.text()
  let parsed: unknown
  try {
    parsed = text === '' ? undefined : JSON.parse(text)
  } catch {
    parsed = text
  }
  if (!res.ok) {
    const h = humanMessage(res.status, parsed)
    const d = (parsed as { detail?: unknown } | undefined)?.detail
    const err = new ApiError(res.status, h.code, h.message, res.status === 422 && Array.isArray(d) ? d as DetailItem[] : [])
    if (res.status === 401) window.dispatchEvent(new CustomEvent('lookout:signed-out', { detail: h.code === 'LOOKOUT_AUTH_MISSING' ? '' : h.message }))
    throw err
  }
  return parsed as T
}

export const wsPath = (ws: string) => `/v1/workspaces/${encodeURIComponent(ws)}`
export const resPath = (ws: string, rid: string) => `${wsPath(ws)}/resources/${encodeURIComponent(rid)}`

export function qs(params: Record<string, string | number | undefined | null>): string {
  const u = new URLSearchParams()
  for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null && v !== '') u.set(k, String(v))
  const s = u.toString()
  return s === '' ? '' : `?${s}`
}
