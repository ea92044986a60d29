// A real NATS JetStream cluster for tests: three nats-server processes
// (Debian's nats-server) on loopback ports with routes between them, each with
// its own JetStream store under one temporary directory, each started from the
// operators' deploy/nats/nats.conf (its node-specific values come from the
// environment, as in deploy/compose). Nodes can be killed with SIGKILL and
// restarted on the same store and ports.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { connect } from '@nats-io/transport-node'
import { jetstreamManager } from '@nats-io/jetstream'
import { findNatsServer } from '../../deploy/nats-server.ts'
import { freePort } from './free-port.ts'

/** The configuration operators deploy (three routes: a cluster of three). */
export const NATS_CLUSTER_CONF = fileURLToPath(new URL('../../deploy/nats/nats.conf', import.meta.url))
const SIZE = 3
const START_ATTEMPTS = 3
// A healthy start forms in 1-4 s here, under load too.
const FORM_TIMEOUT_MS = 20_000

/** The part of a node's /jsz meta_cluster read here (replicas: the leader's view only). */
interface MetaCluster {
  leader?: string
  cluster_size?: number
  replicas?: { name: string; current: boolean }[]
}

export interface NatsClusterOptions {
  /** Parent directory of the stores; a new temporary directory by default (removed by stop()). */
  dir?: string
  /** JetStream max_file_store of each server, bytes. */
  maxFileStore?: number
}

interface Node {
  name: string
  port: number
  clusterPort: number
  httpPort: number
  dir: string
  child: ChildProcess | null
  stderr: string
}

export class NatsCluster {
  readonly dir: string
  readonly #ownDir: boolean
  readonly #nodes: Node[] = []
  readonly #opts: Required<Omit<NatsClusterOptions, 'dir'>>
  #routes: string[] = []
  readonly #binary = findNatsServer(process.env.LOOKOUT_NATS_SERVER)

  constructor(options: NatsClusterOptions = {}) {
    this.#ownDir = options.dir === undefined
    this.dir = options.dir ?? mkdtempSync(join(tmpdir(), 'lookout-nats-cluster-'))
    this.#opts = { maxFileStore: 1024 ** 3, ...options }
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

  /**
   * Starts the three nodes and waits until all three are in the JetStream meta group.
   * Three nodes started at once on a busy machine sometimes bootstrap a meta group of
   * two that does not take the third in (CI: "no suitable peers for placement" for a
   * 3-replica stream for a whole minute; /jsz cluster_size 2). The tests here are about
   * a formed cluster, so such a start is thrown away and done again on new stores.
   */
  async start(): Promise<void> {
    const failed: string[] = []
    for (let attempt = 1; attempt <= START_ATTEMPTS; attempt++) {
      try {
        // A port freePort handed out can be taken before the node binds it (the node exits): start again too.
        await this.#startNodes()
        await this.waitFormed()
        return
      } catch (err) {
        failed.push(`start ${attempt}: ${String(err)}\n${await this.describe()}`)
        await this.#stopNodes()
        for (const n of this.#nodes) rmSync(n.dir, { recursive: true, force: true })
        this.#nodes.length = 0
      }
    }
    throw new Error(`the cluster did not form in ${START_ATTEMPTS} starts:\n${failed.join('\n')}`)
  }

  async #startNodes(): Promise<void> {
    for (let i = 0; i < SIZE; i++) {
      const name = `nats-${i + 1}`
      const dir = join(this.dir, name)
      mkdirSync(dir, { recursive: true })
      this.#nodes.push({ name, port: await freePort(), clusterPort: await freePort(), httpPort: await freePort(), dir, child: null, stderr: '' })
    }
    this.#routes = this.#nodes.map((n) => `nats-route://127.0.0.1:${n.clusterPort}`)
    for (let i = 0; i < this.#nodes.length; i++) this.#spawn(i)
    for (let i = 0; i < this.#nodes.length; i++) await this.#waitListening(i)
    await this.waitJetStream()
  }

  /** Waits until the meta leader counts every node as a current peer (its /jsz). */
  async waitFormed(timeoutMs = FORM_TIMEOUT_MS): Promise<void> {
    const deadline = Date.now() + timeoutMs
    let last = ''
    while (Date.now() < deadline) {
      for (const n of this.#nodes) {
        const meta = await this.#meta(n)
        if (meta === null || meta.leader !== n.name) continue
        last = JSON.stringify(meta)
        const peers = meta.replicas ?? []
        if (meta.cluster_size === SIZE && peers.length === SIZE - 1 && peers.every((r) => r.current)) return
      }
      await sleep(200)
    }
    throw new Error(`the meta group did not take in all ${SIZE} nodes within ${timeoutMs} ms: ${last || 'no leader'}`)
  }

  async #meta(n: Node): Promise<MetaCluster | null> {
    try {
      const res = await fetch(`http://127.0.0.1:${n.httpPort}/jsz`, { signal: AbortSignal.timeout(2000) })
      return ((await res.json()) as { meta_cluster?: MetaCluster }).meta_cluster ?? null
    } catch {
      return null
    }
  }

  /** The node's part of the deployed configuration: loopback ports instead of host names. */
  #env(n: Node): Record<string, string> {
    return {
      NATS_SERVER_NAME: n.name,
      NATS_LISTEN: `127.0.0.1:${n.port}`,
      NATS_CLUSTER_LISTEN: `127.0.0.1:${n.clusterPort}`,
      NATS_HTTP_LISTEN: `127.0.0.1:${n.httpPort}`,
      NATS_ROUTE_1: this.#routes[0] ?? '',
      NATS_ROUTE_2: this.#routes[1] ?? '',
      NATS_ROUTE_3: this.#routes[2] ?? '',
      NATS_STORE_DIR: n.dir,
      NATS_MAX_FILE_STORE: String(this.#opts.maxFileStore),
    }
  }

  #spawn(i: number): void {
    const n = this.#node(i)
    const child = spawn(this.#binary, ['-c', NATS_CLUSTER_CONF], { stdio: ['ignore', 'ignore', 'pipe'], env: { ...process.env, ...this.#env(n) } })
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

  /** Each node's meta-group view (/jsz) and its log's tail: what a failed start is explained by. */
  async describe(): Promise<string> {
    const parts: string[] = []
    for (const n of this.#nodes) {
      parts.push(`${n.name} (client ${n.port}, route ${n.clusterPort}): meta ${JSON.stringify(await this.#meta(n))}\n${n.stderr.slice(-2000)}`)
    }
    return parts.join('\n')
  }

  async stop(): Promise<void> {
    await this.#stopNodes()
    if (this.#ownDir) rmSync(this.dir, { recursive: true, force: true })
  }

  async #stopNodes(): Promise<void> {
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
  }
}
