// The tool server's connection to the desktop service: HTTP over the owner
// Unix socket, one keep-alive connection. With a grant, every request names it
// (X-Lookout-Act-As-Grant) and the service applies that grant's scopes.
import { Client } from 'undici'
import { ACT_AS_GRANT_HEADER } from '../act-as.ts'
import { ServiceUnreachable } from '../errors.ts'

export type Query = Record<string, unknown>

export interface ServiceResponse {
  status: number
  body: unknown
  /** X-Lookout-Sync: `local` when the write stays on this desktop although its workspace is connected to a portal. */
  sync?: string
}

const UNREACHABLE = new Set(['ENOENT', 'ECONNREFUSED', 'ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED'])

export function queryString(q: Query): string {
  const p = new URLSearchParams()
  for (const [k, v] of Object.entries(q)) {
    if (v === undefined || v === null) continue
    if (Array.isArray(v)) for (const x of v) p.append(k, String(x))
    else p.append(k, String(v))
  }
  const s = p.toString()
  return s === '' ? '' : `?${s}`
}

export class ServiceClient {
  readonly socketPath: string
  readonly #grant: string | null
  #client: Client

  constructor(socketPath: string, grant: string | null) {
    this.socketPath = socketPath
    this.#grant = grant
    this.#client = this.#connect()
  }

  #connect(): Client {
    return new Client('http://localhost', { socketPath: this.socketPath, headersTimeout: 60_000, bodyTimeout: 60_000 })
  }

  async request(method: string, path: string, query: Query = {}, body?: unknown): Promise<ServiceResponse> {
    const headers: Record<string, string> = {}
    if (this.#grant !== null) headers[ACT_AS_GRANT_HEADER] = this.#grant
    if (body !== undefined) headers['content-type'] = 'application/json'
    try {
      const res = await this.#client.request({
        method: method as 'GET', path: path + queryString(query), headers, body: body === undefined ? undefined : JSON.stringify(body),
      })
      const text = await res.body.text()
      let parsed: unknown = text
      try {
        parsed = text === '' ? null : JSON.parse(text)
      } catch {
        // not JSON: kept as text
      }
      const sync = res.headers['x-lookout-sync']
      return { status: res.statusCode, body: parsed, ...(typeof sync === 'string' ? { sync } : {}) }
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? ''
      if (UNREACHABLE.has(code)) {
        // A restarted service is a new socket: the next request connects afresh.
        const old = this.#client
        this.#client = this.#connect()
        void old.destroy().catch(() => undefined)
        throw new ServiceUnreachable(`the desktop service does not answer on ${this.socketPath} (${code})`)
      }
      throw err
    }
  }

  async close(): Promise<void> {
    await this.#client.close()
  }
}
