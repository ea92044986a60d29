// Requests the CLI makes on the running desktop service's owner socket
// (`lookout staff --desktop`, `lookout backup`, `lookout portal`): the socket's directory is
// checked first (owner-only, desktop/paths.ts), and a service that is not
// running is said in one line instead of a bare ENOENT.
import { existsSync } from 'node:fs'
import { dirname } from 'node:path'
import { Client } from 'undici'
import { checkPrivateDir } from '../desktop/index.ts'
import { ServerUnreachableError } from './errors.ts'

export interface OwnerResponse {
  status: number
  body: any
}

/** Every command that needs the desktop says the same one line when it does not run. */
function notRunning(socketPath: string): Error {
  return new ServerUnreachableError(`the desktop service is not running (no owner socket at ${socketPath}): start it with \`lookout desktop\``)
}

export async function ownerCall(socketPath: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown, timeoutMs = 300_000, privateDir = true): Promise<OwnerResponse> {
  if (!existsSync(socketPath)) throw notRunning(socketPath)
  try {
    // The desktop's runtime directory is private; `lookout serve`'s socket is in its data directory (the socket itself is 0600).
    if (privateDir) checkPrivateDir(dirname(socketPath))
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') throw notRunning(socketPath)
    throw err
  }
  // A backup of a large data directory takes minutes: the timeouts follow the caller.
  const client = new Client('http://localhost', { socketPath, headersTimeout: timeoutMs, bodyTimeout: timeoutMs })
  try {
    const res = await client.request({
      method, path, headers: body === undefined ? {} : { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await res.body.text()
    return { status: res.statusCode, body: text === '' ? undefined : JSON.parse(text) }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    // No socket, or one left behind by a service that died: nobody listens on it.
    if (code === 'ENOENT' || code === 'ECONNREFUSED') throw notRunning(socketPath)
    throw err
  } finally {
    await client.close()
  }
}

/** The body of a successful answer, else an error carrying the service's message. */
export function ownerBody(r: OwnerResponse, what: string): any {
  if (r.status >= 400) throw new Error(`${what}: ${r.body?.error?.message ?? r.body?.detail?.[0]?.msg ?? `failed (${r.status})`}`)
  return r.body
}
