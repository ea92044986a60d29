// A real NATS JetStream cluster for tests: N nats-server processes (Debian's
// nats-server) on loopback ports with routes between them, each with its own
// JetStream store under one temporary directory. Nodes can be killed with
// SIGKILL and restarted on the same store and ports.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { findNatsServer } from '../../deploy/nats-server.ts'

export interface NatsClusterOptions {
  /** Number of servers; 3 by default. */
  size?: number
  /** Parent directory of the stores; a new temporary directory by default (removed by stop()). */
  dir?: string
  /** JetStream max_file_store of each server, bytes. */
  maxFileStore?: number
  /** Largest message, as in the managed server. */
  maxPayload?: string
  /** Name of the cluster (the `cluster.name` setting). */
  name?: string
}

interface Node {
  name: string
  port: number
  clusterPort: number
  dir: string
  conf: string
  child: ChildProcess | null
  stderr: string
}

/** A free loopback TCP port (released before it is returned; good enough on a test machine). */
export async function freePort(): Promise<number> {
  const srv = createServer()
  await new Promise<void>((resolve, reject) => {
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => resolve())
  })
  const addr = srv.address()
  await new Promise<void>((resolve) => srv.close(() => resolve()))
  if (addr === null || typeof addr === 'string') throw new Error('no port')
  return addr.port
}

export class NatsCluster {
  readonly dir: string
  readonly #ownDir: boolean
  readonly #nodes: Node[] = []
  readonly #opts: Required<Omit<NatsClusterOptions, 'dir'>>
  readonly #binary = findNatsServer(process.env.LOOKOUT_NATS_SERVER)

  constructor(options: NatsClusterOptions = {}) {
    this.#ownDir = options.dir === undefined
    this.dir = options.dir ?? mkdtempSync(join(tmpdir(), 'lookout-nats-cluster-'))
    this.#opts = { size: 3, maxFileStore: 1024 ** 3, maxPayload: '8MB', name: 'lookout', ...options }
  }

  /** Client URLs of every node, in node order (what NATS_URL lists). */
  get urls(): string[] {
    return this.#nodes.map((n) => `nats://127.0.0.1:${n.port}`)
  }

  get names(): string[] {
    return this.#nodes.map((n) => n.name)
  }

  pid(i: number): number | undefined {
    return this.#node(i).child?.pid
  }

  indexOf(serverName: string): number {
    const i = this.#nodes.findIndex((n) => n.name === serverName)
    if (i < 0) throw new Error(`no node named ${serverName}`)
    return i
  }

  #node(i: number): Node {
    const n = this.#nodes[i]
    if (n === undefined) throw new Error(`no node ${i}`)
    return n
  }

  async start(): Promise<void> {
    for (let i = 0; i < this.#opts.size; i++) {
      const name = `n${i + 1}`
      const dir = join(this.dir, name)
      mkdirSync(join(dir, 'jetstream'), { recursive: true })
      this.#nodes.push({ name, port: await freePort(), clusterPort: await freePort(), dir, conf: join(dir, 'nats.conf'), child: null, stderr: '' })
    }
    const routes = this.#nodes.map((n) => `nats-route://127.0.0.1:${n.clusterPort}`)
    for (const n of this.#nodes) {
      // The same shape as deploy/nats/nats.conf, with loopback ports instead of host names.
      writeFileSync(n.conf, [
        `server_name: ${n.name}`,
        `listen: "127.0.0.1:${n.port}"`,
        `max_payload: ${this.#opts.maxPayload}`,
        'jetstream {',
        `  store_dir: ${JSON.stringify(join(n.dir, 'jetstream'))}`,
        '  max_memory_store: 64MB',
        `  max_file_store: ${this.#opts.maxFileStore}`,
        '}',
        'cluster {',
        `  name: ${this.#opts.name}`,
        `  listen: "127.0.0.1:${n.clusterPort}"`,
        `  routes: [${routes.map((r) => JSON.stringify(r)).join(', ')}]`,
        '}',
        '',
      ].join('\n'))
    }
    for (let i = 0; i < this.#nodes.length; i++) this.#spawn(i)
    for (let i = 0; i < this.#nodes.length; i++) await this.#waitListening(i)
    await this.waitJetStream()
  }

  #spawn(i: number): void {
    const n = this.#node(i)
    const child = spawn(this.#binary, ['-c', n.conf], { stdio: ['ignore', 'ignore', 'pipe'] })
    n.child = child
    n.stderr = ''
    child.stderr?.on('data', (d: Buffer) => {
      n.stderr = (n.stderr + d.toString()).slice(-8000)
    })
  }

  async #waitListening(i: number): Promise<void> {
    const n = this.#node(i)
    for (let k = 0; k < 200; k++) {
      if (n.child?.exitCode !== null && n.child?.exitCode !== undefined) throw new Error(`${n.name} exited (${n.child.exitCode}): ${n.stderr}`)
      try {
        const nc = await connect({ servers: `nats://127.0.0.1:${n.port}`, reconnect: false, timeout: 500 })
        await nc.close()
        return
      } catch {
        await sleep(50)
      }
    }
    throw new Error(`${n.name} did not listen within 10 s: ${n.stderr}`)
  }

  /** Waits until JetStream answers through any node (a meta leader is elected). */
  async waitJetStream(timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    let last: unknown
    while (Date.now() < deadline) {
      const alive = this.urls.filter((_, i) => this.running(i))
      try {
        const nc = await connect({ servers: alive, reconnect: false, timeout: 1000 })
        try {
          const jsm = await jetstreamManager(nc, { timeout: 2000 })
          await jsm.getAccountInfo()
          return
        } finally {
          await nc.close()
        }
      } catch (err) {
        last = err
        await sleep(200)
      }
    }
    throw new Error(`JetStream did not become available: ${String(last)}`)
  }

  running(i: number): boolean {
    const c = this.#node(i).child
    return c !== null && c.exitCode === null && c.signalCode === null
  }

  /** SIGKILL: no chance to flush or to hand leadership over. */
  async kill9(i: number): Promise<void> {
    const c = this.#node(i).child
    if (c === null || c.exitCode !== null || c.signalCode !== null) return
    const exited = new Promise<void>((r) => c.once('exit', () => r()))
    c.kill('SIGKILL')
    await exited
  }

  /** Starts a stopped node again on the same store and ports. */
  async restart(i: number): Promise<void> {
    if (this.running(i)) return
    this.#spawn(i)
    await this.#waitListening(i)
  }

  /** Server name of the stream's leader, and whether every replica is current. */
  async streamState(stream: string): Promise<{ leader: string; replicas: { name: string; current: boolean; offline: boolean }[]; messages: number; bytes: number }> {
    const alive = this.urls.filter((_, i) => this.running(i))
    const nc = await connect({ servers: alive, reconnect: false, timeout: 1000 })
    try {
      const jsm = await jetstreamManager(nc, { timeout: 3000 })
      const si = await jsm.streams.info(stream)
      return {
        leader: si.cluster?.leader ?? '',
        replicas: (si.cluster?.replicas ?? []).map((r) => ({ name: r.name, current: r.current, offline: r.offline })),
        messages: si.state.messages,
        bytes: si.state.bytes,
      }
    } finally {
      await nc.close()
    }
  }

  /** Waits until the stream has a leader and every follower is online and current. */
  async waitStreamCurrent(stream: string, timeoutMs = 30_000): Promise<void> {
    const deadline = Date.now() + timeoutMs
    let last = ''
    while (Date.now() < deadline) {
      try {
        const s = await this.streamState(stream)
        last = JSON.stringify(s)
        if (s.leader !== '' && s.replicas.length === this.#nodes.length - 1 && s.replicas.every((r) => r.current && !r.offline)) return
      } catch (err) {
        last = String(err)
      }
      await sleep(250)
    }
    throw new Error(`stream ${stream} did not become current: ${last}`)
  }

  async stop(): Promise<void> {
    await Promise.all(this.#nodes.map(async (n) => {
      const c = n.child
      n.child = null
      if (c === null || c.exitCode !== null || c.signalCode !== null) return
      const exited = new Promise<void>((r) => c.once('exit', () => r()))
      c.kill('SIGTERM')
      const t = setTimeout(() => c.kill('SIGKILL'), 5000)
      await exited
      clearTimeout(t)
    }))
    if (this.#ownDir) rmSync(this.dir, { recursive: true, force: true })
  }
}
