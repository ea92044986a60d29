// A `lookout collector` in a child process (the real command line), and a TCP
// relay in front of the API that a test can cut to make the API unreachable.
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, connect, type Server, type Socket } from 'node:net'

export interface CollectorProcess {
  child: ChildProcess
  /** Resolves with the exit code (or signal name). */
  exited: Promise<number | string>
  output(): string
  stop(): Promise<number | string>
  kill9(): Promise<number | string>
}

export function spawnCollector(url: string, token: string, dataDir: string, env: Record<string, string> = {}, extra: string[] = []): CollectorProcess {
  const child = spawn(process.execPath, ['deploy/lookout.ts', 'collector', '--url', url, '--data-dir', dataDir, '--poll-seconds', '1', ...extra], {
    // The token by environment, as the usage recommends (not visible in the process list).
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', LOOKOUT_COLLECTOR_TOKEN: token, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let out = ''
  child.stdout?.on('data', (d) => (out = (out + String(d)).slice(-20_000)))
  child.stderr?.on('data', (d) => (out = (out + String(d)).slice(-20_000)))
  const exited = new Promise<number | string>((resolve) => child.once('exit', (code, signal) => resolve(code ?? signal ?? -1)))
  return {
    child, exited,
    output: () => out,
    stop: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      return exited
    },
    kill9: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      return exited
    },
  }
}

export interface Relay {
  port: number
  url: string
  /** Refuses connections and cuts the open ones: the API is unreachable. */
  cut(): Promise<void>
  restore(): Promise<void>
  close(): Promise<void>
}

/** A loopback TCP relay to targetPort. */
export async function startRelay(targetPort: number): Promise<Relay> {
  const sockets = new Set<Socket>()
  const make = (): Server => createServer((client) => {
    const upstream = connect({ host: '127.0.0.1', port: targetPort })
    sockets.add(client)
    sockets.add(upstream)
    const drop = () => {
      client.destroy()
      upstream.destroy()
      sockets.delete(client)
      sockets.delete(upstream)
    }
    client.on('error', drop).on('close', drop)
    upstream.on('error', drop).on('close', drop)
    client.pipe(upstream)
    upstream.pipe(client)
  })
  const listen = (s: Server, port: number) => new Promise<number>((resolve, reject) => {
    s.once('error', reject)
    s.listen(port, '127.0.0.1', () => resolve((s.address() as { port: number }).port))
  })
  let server: Server | null = make()
  const port = await listen(server, 0)
  const cut = async () => {
    const s = server
    server = null
    for (const x of sockets) x.destroy()
    sockets.clear()
    if (s !== null) await new Promise<void>((resolve) => s.close(() => resolve()))
  }
  return {
    port, url: `http://127.0.0.1:${port}`,
    cut,
    async restore() {
      if (server !== null) return
      server = make()
      await listen(server, port)
    },
    close: cut,
  }
}

/** Polls until fn returns a value other than undefined, or fails after timeoutMs. */
export async function until<T>(what: string, fn: () => Promise<T | undefined>, timeoutMs = 30_000, stepMs = 200): Promise<T> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const v = await fn()
    if (v !== undefined) return v
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, stepMs))
  }
}
