// `lookout portal ...`: the portal connection of the running desktop service,
// over its owner socket (deploy/PORTAL.md). The token is read from --token or,
// with --token -, from standard input (so it stays out of the process list).
import { parseArgs } from 'node:util'
import { desktopPaths } from '../desktop/index.ts'
import { ownerCall } from './owner-socket.ts'

export const PORTAL_USAGE = `Usage:
  lookout portal connect --url URL --token TOKEN|-   connect the desktop to its portal (a Lookout cloud)
  lookout portal status                           state (of the last attempt), last sync, pending operations,
                                                  conflicts, what stays local by design
  lookout portal sync                             run a sync round now, print what it did (exit 1 when it failed)
  lookout portal conflicts                        operations the portal refused (409 conflicts, other refusals):
                                                  task number (of a comment or an edge: its task), title,
                                                  the fields in conflict
  lookout portal resolve SEQ retry|drop           retry (local values win) or drop a refused operation
  lookout portal reviews                          catalogue entries that need review
  lookout portal review ID local|portal           keep the local or the portal value
  lookout portal disconnect
  (every portal command takes --socket PATH; default the desktop service's owner socket)`

async function readStdin(): Promise<string> {
  let s = ''
  for await (const chunk of process.stdin) s += String(chunk)
  return s.trim()
}

function call(socketPath: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: any }> {
  return ownerCall(socketPath, method, path, body)
}

function line(k: string, v: unknown): string {
  return `${k.padEnd(20)}${v === null || v === undefined ? '-' : String(v)}\n`
}

function formatStatus(s: Record<string, unknown>): string {
  let out = line('state', s.state)
  for (const k of ['url', 'workspace_id', 'task_taxonomy', 'last_attempt_at', 'last_sync_at', 'pending_operations', 'conflicts', 'reviews', 'last_error', 'last_error_at']) {
    if (k in s) out += line(k, s[k])
  }
  if (Array.isArray(s.local_only)) out += line('local by design', s.local_only.join(', '))
  return out
}

function formatRound(b: Record<string, unknown>): string {
  return line('state', b.state) + line('captured', b.captured) + line('pushed', b.pushed) + line('pulled', b.pulled) +
    line('conflicts opened', b.conflicts_opened) + (b.error === null ? '' : line('error', b.error))
}

/** One line per operation: seq, the task's number and title, the fields in conflict, and why. */
function formatConflicts(b: { items: { seq: string; number: number | null; title: string | null; item_type: string; op: string; payload: Record<string, unknown>; state: string; last_error: string | null }[] }): string {
  if (b.items.length === 0) return 'no conflicts\n'
  return b.items.map((c) => {
    // A comment's or an edge's operation is named by its task (the edge's from item).
    const task = c.number === null ? 'task (no number yet)' : `task #${c.number}`
    const what = c.item_type === 'note' || c.item_type === 'deliverable' ? c.item_type
      : c.item_type === 'comment' ? `comment on ${task}` : c.item_type === 'edge' ? `edge from ${task}` : task
    const fields = c.op === 'create' ? 'creation' : Object.keys(c.payload).join(', ')
    return `${c.seq.padEnd(8)}${what} ${JSON.stringify(c.title ?? '')}\n${' '.repeat(8)}${c.state}: ${fields}${c.last_error === null ? '' : ` (${c.last_error})`}\n`
  }).join('')
}

export async function portalCommand(args: string[]): Promise<number> {
  const [verb, ...rest] = args
  const { values, positionals } = parseArgs({
    args: rest, allowPositionals: true,
    options: { url: { type: 'string' }, token: { type: 'string' }, socket: { type: 'string' }, json: { type: 'boolean' } },
  })
  const socketPath = values.socket ?? desktopPaths().socketPath
  const out = (r: { status: number; body: any }, text?: (b: any) => string) => {
    if (r.status >= 400) {
      process.stderr.write(`lookout portal ${verb}: ${r.body?.error?.message ?? `failed (${r.status})`}\n`)
      return 1
    }
    process.stdout.write(values.json === true || text === undefined ? JSON.stringify(r.body, null, 2) + '\n' : text(r.body))
    return 0
  }
  switch (verb) {
    case 'connect': {
      if (values.url === undefined || values.token === undefined) throw new Error(`lookout portal connect needs --url and --token\n\n${PORTAL_USAGE}`)
      const token = values.token === '-' ? await readStdin() : values.token
      return out(await call(socketPath, 'POST', '/v1/portal/connection', { url: values.url, token }), formatStatus)
    }
    case 'status':
      return out(await call(socketPath, 'GET', '/v1/portal/connection'), formatStatus)
    case 'disconnect':
      return out(await call(socketPath, 'DELETE', '/v1/portal/connection'), (b) => `${b.state}\n`)
    case 'sync': {
      const r = await call(socketPath, 'POST', '/v1/portal/sync')
      const code = out(r, formatRound)
      if (code !== 0 || r.body.state === 'connected') return code
      process.stderr.write(`lookout portal sync: the round failed (${r.body.state}): ${r.body.error}\n`)
      return 1
    }
    case 'conflicts':
      return out(await call(socketPath, 'GET', '/v1/portal/conflicts'), formatConflicts)
    case 'reviews':
      return out(await call(socketPath, 'GET', '/v1/portal/reviews'))
    case 'resolve': {
      const [seq, action] = positionals
      if (seq === undefined || (action !== 'retry' && action !== 'drop')) throw new Error('lookout portal resolve SEQ retry|drop')
      return out(await call(socketPath, 'POST', `/v1/portal/conflicts/${encodeURIComponent(seq)}`, { action }))
    }
    case 'review': {
      const [id, keep] = positionals
      if (id === undefined || (keep !== 'local' && keep !== 'portal')) throw new Error('lookout portal review ID local|portal')
      return out(await call(socketPath, 'POST', `/v1/portal/reviews/${encodeURIComponent(id)}`, { keep }))
    }
    default:
      throw new Error(`unknown command portal ${verb ?? ''}\n\n${PORTAL_USAGE}`)
  }
}
