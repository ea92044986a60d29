// `lookout status`: the running server's readiness, as GET /v1/ready reports it,
// over the owner socket in the data directory when the server runs there, else
// over HTTP to LOOKOUT_HOST:LOOKOUT_PORT.
import { existsSync } from 'node:fs'
import { Client } from 'undici'
import type { LookoutConfig } from './config.ts'
import { adminSocketPath } from './admin.ts'
import { ServerUnreachableError } from './errors.ts'

export interface StatusReport {
  /** Where it was asked: unix:<path> or http://host:port. */
  via: string
  version: string
  status: string
  dependencies: Record<string, string>
}

const TIMEOUT_MS = 10_000

async function ask(client: Client, via: string): Promise<StatusReport> {
  const get = async (path: string) => {
    const res = await client.request({ method: 'GET', path, headersTimeout: TIMEOUT_MS, bodyTimeout: TIMEOUT_MS })
    const body = await res.body.json() as Record<string, unknown>
    return { status: res.statusCode, body }
  }
  const health = await get('/v1/health')
  if (health.status === 404) throw new ServerUnreachableError(`the server at ${via} runs without the api role: it reports no readiness`)
  const ready = await get('/v1/ready')
  if (ready.status !== 200 && ready.status !== 503) throw new ServerUnreachableError(`${via} answered GET /v1/ready with ${ready.status}`)
  return {
    via,
    version: String(health.body.version ?? '?'),
    status: String(ready.body.status ?? 'unavailable'),
    dependencies: (ready.body.dependencies ?? {}) as Record<string, string>,
  }
}

function httpOrigin(config: LookoutConfig): string {
  // A server listening on every interface is reached on loopback.
  const host = config.host === '0.0.0.0' || config.host === '' ? '127.0.0.1' : config.host === '::' ? '::1' : config.host
  return `http://${host.includes(':') ? `[${host}]` : host}:${config.port}`
}

function unreachable(err: unknown): boolean {
  const code = (err as NodeJS.ErrnoException).code ?? ''
  return ['ECONNREFUSED', 'ENOENT', 'ECONNRESET', 'EHOSTUNREACH', 'UND_ERR_SOCKET', 'UND_ERR_CONNECT_TIMEOUT'].includes(code)
}

/** Asks the owner socket if a server holds the data directory, else the HTTP listener. */
export async function readStatus(config: LookoutConfig): Promise<StatusReport> {
  const socketPath = adminSocketPath(config.dataDir)
  if (existsSync(socketPath)) {
    const client = new Client('http://localhost', { socketPath })
    try {
      return await ask(client, `unix:${socketPath}`)
    } catch (err) {
      if (!unreachable(err)) throw err
      // A socket left by a killed server: try HTTP.
    } finally {
      await client.close()
    }
  }
  const origin = httpOrigin(config)
  const client = new Client(origin, { connectTimeout: TIMEOUT_MS })
  try {
    return await ask(client, origin)
  } catch (err) {
    if (unreachable(err)) throw new ServerUnreachableError(`no Lookout server answers on ${socketPath} or ${origin}`)
    throw err
  } finally {
    await client.close()
  }
}

export function formatStatus(r: StatusReport): string {
  const width = Math.max(10, ...Object.keys(r.dependencies).map((n) => n.length))
  const lines = [`lookout ${r.version} (${r.via}): ${r.status}`]
  for (const [name, state] of Object.entries(r.dependencies)) lines.push(`  ${name.padEnd(width)}  ${state}`)
  return lines.join('\n') + '\n'
}
