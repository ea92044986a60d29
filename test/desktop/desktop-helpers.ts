// Test helpers of the desktop faces: a real desktop service (startDesktop) on
// temporary directories, requests on its owner socket and on its loopback
// listener, and a client run as another user.
import { chmodSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { spawn, type ChildProcess } from 'node:child_process'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Client } from 'undici'
import { startDesktop, type Desktop, type DesktopOptions } from '../../deploy/index.ts'
import { freePort } from '../helpers/free-port.ts'

export interface Res {
  status: number
  body: any
  headers: Record<string, unknown>
}

export function parse(text: string): unknown {
  try {
    return text === '' ? undefined : JSON.parse(text)
  } catch {
    return text
  }
}

/** One request on a Unix socket (the owner's, unless headers say otherwise). */
export async function socketReq(socketPath: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const client = new Client('http://localhost', { socketPath })
  try {
    const h: Record<string, string> = { ...headers }
    if (body !== undefined) h['content-type'] ??= 'application/json'
    const res = await client.request({ method: method as 'GET', path, headers: h, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.statusCode, body: parse(await res.body.text()), headers: res.headers }
  } finally {
    await client.close()
  }
}

/** One request over TCP (the loopback listener), as a non-browser client. */
export async function httpReq(base: string, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<Res> {
  const client = new Client(base)
  try {
    const h: Record<string, string> = { ...headers }
    let payload: string | Uint8Array | undefined
    if (typeof body === 'string' || body instanceof Uint8Array) payload = body
    else if (body !== undefined) {
      payload = JSON.stringify(body)
      h['content-type'] ??= 'application/json'
    }
    const res = await client.request({ method: method as 'GET', path, headers: h, body: payload })
    return { status: res.statusCode, body: parse(await res.body.text()), headers: res.headers }
  } finally {
    await client.close()
  }
}

export { freePort }

/** Connects to a Unix socket as another user (uid/gid), in a child process; resolves with "CONNECTED" or the error code. */
export function connectAs(uid: number, gid: number, socketPath: string): Promise<string> {
  const script = `const s=require('node:net').connect(process.argv[1]);s.on('connect',()=>{process.stdout.write('CONNECTED');s.destroy()});s.on('error',(e)=>process.stdout.write(e.code||e.message))`
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['-e', script, socketPath], { uid, gid, stdio: ['ignore', 'pipe', 'pipe'], cwd: '/' })
    let out = ''
    let err = ''
    p.stdout.on('data', (d) => (out += d))
    p.stderr.on('data', (d) => (err += d))
    p.on('error', reject)
    p.on('exit', () => resolve(out.trim() || `no output: ${err.trim()}`))
  })
}

/** Requests a test makes on a running desktop service through its owner socket. */
export interface DesktopClient {
  base: string
  env: NodeJS.ProcessEnv
  socketPath: string
  workspaceId: string
  owner(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<Res>
  /** Registers a resource (owner socket) and returns its id. */
  resource(externalId?: string): Promise<string>
  /** Creates a grant (owner socket) and returns its id and token. */
  grant(scopes: string[], resources?: 'all' | string[], kind?: 'access' | 'sender'): Promise<{ id: string; token: string }>
}

export interface TestDesktop extends DesktopClient {
  desktop: Desktop
  stop(): Promise<void>
}

/**
 * A temporary base directory that others may traverse (0755), so that only
 * the service's own private directory keeps them out, and the environment
 * that puts the service's socket and data in it.
 */
function testEnv(extra: Record<string, string> = {}): { base: string; env: NodeJS.ProcessEnv } {
  const base = mkdtempSync(join(tmpdir(), 'lookout-desktop-'))
  chmodSync(base, 0o755)
  mkdirSync(join(base, 'run'), { mode: 0o755 })
  chmodSync(join(base, 'run'), 0o755)
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    XDG_RUNTIME_DIR: join(base, 'run'),
    LOOKOUT_DATA_DIR: join(base, 'data'),
    LOOKOUT_WORKERS: '1',
    LOOKOUT_LOADER_FLUSH_MS: '100',
    LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0',
    ...extra,
  }
  return { base, env }
}

async function clientOf(base: string, env: NodeJS.ProcessEnv, socketPath: string): Promise<DesktopClient> {
  const owner = (method: string, path: string, body?: unknown, headers?: Record<string, string>) => socketReq(socketPath, method, path, body, headers)
  const ws = await owner('GET', '/v1/workspaces')
  const workspaceId = ws.body.items[0].id as string
  return {
    base, env, socketPath, workspaceId, owner,
    async resource(externalId = `res-${Math.random().toString(36).slice(2)}`) {
      const r = await owner('POST', `/v1/workspaces/${workspaceId}/resources`, { external_id: externalId, name: externalId, kind: 'server' })
      if (r.status !== 201) throw new Error(`resource: ${r.status} ${JSON.stringify(r.body)}`)
      return r.body.id as string
    },
    async grant(scopes, resources = 'all', kind = 'access') {
      const r = await owner('POST', '/v1/grants', { name: `g-${scopes.join('-')}`, scopes, resources, kind })
      if (r.status !== 201) throw new Error(`grant: ${r.status} ${JSON.stringify(r.body)}`)
      return { id: r.body.id as string, token: r.body.token as string }
    },
  }
}

/** A desktop service in this process (startDesktop), for tests that look inside it. */
export async function startTestDesktop(options: Omit<DesktopOptions, 'env'> & { env?: Record<string, string> } = {}): Promise<TestDesktop> {
  const { base, env } = testEnv(options.env)
  const desktop = await startDesktop({ logger: false, onError: () => undefined, ...options, env })
  const client = await clientOf(base, env, desktop.paths.socketPath)
  return {
    ...client, desktop,
    async stop() {
      await desktop.stop()
      rmSync(base, { recursive: true, force: true })
    },
  }
}

export interface DesktopProcess extends DesktopClient {
  child: ChildProcess
  /** What the command printed so far. */
  stdout(): string
  /** SIGTERM, then its exit code (idempotent). */
  terminate(): Promise<number | null>
  /** terminate() and remove the directories. */
  stop(): Promise<void>
}

/**
 * `lookout desktop` as the user runs it: a child process, ready once it prints
 * its socket. `again` starts it on the directories of a previous (stopped) one.
 */
export async function startDesktopProcess(extraEnv: Record<string, string> = {}, again?: DesktopProcess): Promise<DesktopProcess> {
  const { base, env } = again === undefined ? testEnv(extraEnv) : { base: again.base, env: again.env }
  const child = spawn(process.execPath, ['deploy/lookout.ts', 'desktop'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  let err = ''
  child.stdout.on('data', (d) => (out += d))
  child.stderr.on('data', (d) => (err += d))
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const socketPath = await new Promise<string>((resolve, reject) => {
    const onData = () => {
      const m = /owner socket (\S+)/.exec(out)
      if (m !== null) {
        child.stdout.off('data', onData)
        resolve(m[1] as string)
      }
    }
    child.stdout.on('data', onData)
    void exited.then((code) => reject(new Error(`lookout desktop exited ${code} before it was ready: ${out}${err}`)))
  })
  let terminated: Promise<number | null> | null = null
  const terminate = () => (terminated ??= (async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    return exited
  })())
  let client: DesktopClient
  try {
    client = await clientOf(base, env, socketPath)
  } catch (e) {
    await terminate()
    throw e
  }
  return {
    ...client, child, terminate,
    stdout: () => out,
    async stop() {
      await terminate()
      rmSync(base, { recursive: true, force: true })
    },
  }
}
