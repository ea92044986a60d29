// Test helpers of the portal half: a cloud `lookout serve` in a child process
// on its own data directory and a fixed loopback port (so it can be killed and
// started again at the same address), cloud requests with a token, a desktop
// `lookout desktop` child process, and a loopback TCP proxy that can cut the
// portal's answers after the cloud committed.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { callAdmin } from '../../../deploy/index.ts'
import { randomUUID } from 'node:crypto'
import { freePort, httpReq, startDesktopProcess, type DesktopClient, type DesktopProcess, type Res } from '../desktop-helpers.ts'


export const SECRET_KEY = '11'.repeat(32)

export interface Cloud {
  dir: string
  url: string
  port: number
  child: ChildProcess
  workspaceId: string
  token: string
  req(method: string, path: string, body?: unknown): Promise<Res>
  /** SIGKILL (a crash), then wait for the exit. */
  kill(): Promise<void>
  /** Starts it again on the same directory and port (`env` replaces variables of the first start). */
  restart(env?: Record<string, string>): Promise<void>
  stop(): Promise<void>
}

function spawnCloud(dir: string, port: number, extra: Record<string, string>): Promise<{ child: ChildProcess; url: string }> {
  const env = {
    ...process.env, LOOKOUT_DATA_DIR: dir, LOOKOUT_PORT: String(port), LOOKOUT_HOST: '127.0.0.1', LOOKOUT_WORKERS: '1',
    LOOKOUT_LOADER_FLUSH_MS: '100', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0', ...extra,
  }
  const child = spawn(process.execPath, ['deploy/lookout.ts', 'serve'], { env, stdio: ['ignore', 'pipe', 'pipe'] })
  return new Promise((resolve, reject) => {
    let out = ''
    child.stdout?.on('data', (d) => {
      out += d
      const m = /on (http:\/\/\S+)/.exec(out)
      if (m) resolve({ child, url: m[1] as string })
    })
    child.stderr?.on('data', (d) => (out += d))
    child.once('exit', (c) => reject(new Error(`the cloud exited ${c}: ${out}`)))
  })
}

export async function startCloud(extra: Record<string, string> = {}): Promise<Cloud> {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-portal-cloud-'))
  const port = await freePort()
  let { child, url } = await spawnCloud(dir, port, extra)
  const workspaceId = (await callAdmin(dir, 'POST', '/admin/workspaces', { name: 'portal' }) as { id: string }).id
  const token = (await callAdmin(dir, 'POST', '/admin/tokens', {
    workspace: workspaceId, resources: 'all', name: 'desktop',
    scopes: ['project:read', 'project:write', 'resources:write', 'logs:read', 'logs:write', 'monitor:read'],
  }) as { token: string }).token
  const alive = () => child.exitCode === null && child.signalCode === null
  const waitExit = () => new Promise<void>((r) => (alive() ? child.once('exit', () => r()) : r()))
  const cloud: Cloud = {
    dir, port, workspaceId, token,
    get url() { return url },
    get child() { return child },
    req: (method, path, body) => httpReq(url, method, path, body, { authorization: `Bearer ${token}` }),
    async kill() {
      const exited = waitExit()
      child.kill('SIGKILL')
      await exited
    },
    async restart(env = {}) {
      ({ child, url } = await spawnCloud(dir, port, { ...extra, ...env }))
    },
    async stop() {
      if (alive()) {
        const exited = waitExit()
        child.kill('SIGTERM')
        await exited
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
  return cloud
}

export async function startPortalDesktop(extra: Record<string, string> = {}): Promise<DesktopProcess> {
  // Rounds run when the test asks (POST /v1/portal/sync) or on connect, not on a timer.
  return startDesktopProcess({ LOOKOUT_SECRET_KEY: SECRET_KEY, LOOKOUT_PORTAL_SYNC_MS: '3600000', ...extra })
}

/** Runs the `lookout` CLI with the desktop's environment; resolves with its exit code and output. */
export function cli(env: NodeJS.ProcessEnv, args: string[], extra: Record<string, string> = {}, input?: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const p = spawn(process.execPath, ['deploy/lookout.ts', ...args], { env: { ...env, ...extra }, stdio: [input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'] })
    if (input !== undefined) p.stdin?.end(input)
    let stdout = ''
    let stderr = ''
    p.stdout?.on('data', (d) => (stdout += d))
    p.stderr?.on('data', (d) => (stderr += d))
    p.on('error', reject)
    p.on('exit', (code) => resolve({ code, stdout, stderr }))
  })
}

/** A desktop task created on the owner socket, and a sync round now: each throws unless it succeeded. */
export function deskOps(desk: DesktopClient) {
  return {
    async create(title: string, extra: Record<string, unknown> = {}) {
      const r = await desk.owner('POST', '/v1/projects/items', { idempotency_key: randomUUID(), title, ...extra })
      if (r.status !== 201) throw new Error(`create: ${r.status} ${JSON.stringify(r.body)}`)
      return r.body
    },
    async sync() {
      const r = await desk.owner('POST', '/v1/portal/sync')
      if (r.status !== 200) throw new Error(`sync: ${r.status} ${JSON.stringify(r.body)}`)
      return r.body
    },
  }
}

/** A loopback port nothing listens on (a TCP check against it fails). */
export async function closedPort(): Promise<number> {
  return freePort()
}

export { until } from '../../helpers/until.ts'

/** Every task of the cloud workspace (live, archived and deleted). */
export async function cloudTasks(cloud: Cloud): Promise<any[]> {
  const all: any[] = []
  for (const f of ['', '&archived=true', '&deleted=true']) {
    let cursor = ''
    for (;;) {
      const r = await cloud.req('GET', `/v1/workspaces/${cloud.workspaceId}/tasks?limit=100${f}${cursor}`)
      if (r.status !== 200) throw new Error(`cloud tasks: ${r.status} ${JSON.stringify(r.body)}`)
      all.push(...r.body.items)
      if (r.body.next_cursor === null) break
      cursor = `&cursor=${encodeURIComponent(r.body.next_cursor)}`
    }
  }
  return all
}

/** Every task of the desktop workspace. */
export async function desktopTasks(d: DesktopProcess): Promise<any[]> {
  const all: any[] = []
  for (const f of ['', '&archived=true', '&deleted=true']) {
    let cursor = ''
    for (;;) {
      const r = await d.owner('GET', `/v1/projects/items?item_type=task&limit=100${f}${cursor}`)
      if (r.status !== 200) throw new Error(`desktop tasks: ${r.status} ${JSON.stringify(r.body)}`)
      all.push(...r.body.items)
      if (r.body.next_cursor === null) break
      cursor = `&cursor=${encodeURIComponent(r.body.next_cursor)}`
    }
  }
  return all
}

/**
 * A loopback proxy in front of the cloud. `cut(match, n)` makes the next n
 * requests whose first line matches lose their answer: the request reaches the
 * cloud (which commits it), and the client connection is destroyed when the
 * answer starts, before a byte of it is passed on. `requests` lists what went through.
 */
export class CuttingProxy {
  readonly #server: Server
  readonly #sockets = new Set<Socket>()
  #rule: { match: RegExp; left: number } | null = null
  cuts = 0
  /** The first line of every request passed on, in order. */
  readonly requests: string[] = []
  port = 0

  readonly #upstreamPort: number

  constructor(upstreamPort: number) {
    this.#upstreamPort = upstreamPort
    this.#server = createServer((client) => this.#handle(client))
  }

  async start(): Promise<string> {
    await new Promise<void>((r) => this.#server.listen(0, '127.0.0.1', () => r()))
    this.port = (this.#server.address() as { port: number }).port
    return `http://127.0.0.1:${this.port}`
  }

  cut(match: RegExp, n: number): void {
    this.#rule = { match, left: n }
  }

  #handle(client: Socket): void {
    const upstream = connect(this.#upstreamPort, '127.0.0.1')
    this.#sockets.add(client).add(upstream)
    let cutThis = false
    client.on('data', (d) => {
      // A request's first line is at the start of a chunk when requests are not pipelined (undici's default).
      const first = d.toString('latin1').split('\r\n', 1)[0] ?? ''
      if (/^(GET|POST|PATCH|DELETE|PUT) /.test(first)) {
        this.requests.push(first)
        cutThis = false
        if (this.#rule !== null && this.#rule.left > 0 && this.#rule.match.test(first)) {
          this.#rule.left--
          cutThis = true
        }
      }
      upstream.write(d)
    })
    upstream.on('data', (d) => {
      if (cutThis) {
        this.cuts++
        client.destroy()
        upstream.destroy()
        return
      }
      client.write(d)
    })
    const close = () => {
      client.destroy()
      upstream.destroy()
      this.#sockets.delete(client)
      this.#sockets.delete(upstream)
    }
    client.on('close', close).on('error', close)
    upstream.on('close', close).on('error', close)
  }

  async stop(): Promise<void> {
    for (const s of this.#sockets) s.destroy()
    await new Promise<void>((r) => this.#server.close(() => r()))
  }
}
