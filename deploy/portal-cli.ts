// `lookout portal ...`: the portal connection of the running desktop service,
// over its owner socket (deploy/PORTAL.md). The token is read from --token or,
// with --token -, from standard input (so it stays out of the process list).
import { dirname } from 'node:path'
import { parseArgs } from 'node:util'
import { Client } from 'undici'
import { checkPrivateDir, desktopPaths } from '../desktop/index.ts'

export const PORTAL_USAGE = `lookout portal connect --url URL --token TOKEN|-   connect the desktop to its portal (a Lookout cloud)
  lookout portal status                           state, last sync, pending operations, last error, conflicts
  lookout portal sync                             run a sync round now
  lookout portal conflicts                        operations the portal refused (409 conflicts, other refusals)
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

async function call(socketPath: string, method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<{ status: number; body: any }> {
  checkPrivateDir(dirname(socketPath))
  const client = new Client('http://localhost', { socketPath })
  try {
    const res = await client.request({
      method, path, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.body.text()
    return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) }
  } finally {
    await client.close()
  }
}

function line(k: string, v: unknown): string {
  return `${k.padEnd(20)}${v === null || v === undefined ? '-' : String(v)}\n`
}

function formatStatus(s: Record<string, unknown>): string {
  let out = line('state', s.state)
  for (const k of ['url', 'workspace_id', 'task_taxonomy', 'last_sync_at', 'pending_operations', 'conflicts', 'reviews', 'last_error', 'last_error_at']) {
    if (k in s) out += line(k, s[k])
  }
  return out
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
    case 'sync':
      return out(await call(socketPath, 'POST', '/v1/portal/sync'), (b) => line('state', b.state) + line('captured', b.captured) + line('pushed', b.pushed) + line('pulled', b.pulled) + line('error', b.error))
    case 'conflicts':
      return out(await call(socketPath, 'GET', '/v1/portal/conflicts'))
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
