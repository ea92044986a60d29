// The managed nats-server of the embedded default: a child process with
// JetStream storing under the data directory, on a free loopback port.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { delimiter, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { setTimeout as sleep } from 'node:timers/promises'
import { detectNatsServerVersion, jetstreamSyncLines, type NatsServerVersion } from './nats-sync.ts'
import { NatsServerMissing } from './errors.ts'

export interface ManagedNatsOptions {
  dir: string
  /** Largest message; the loader's chunks stay well under it. */
  maxPayload?: string
  maxFileStore?: number
  binary?: string
}

/**
 * Debian trixie's nats-server 2.10, which deploy/fetch-nats.sh (run by bootstrap.sh) unpacks
 * into the project's git-ignored tools folder: it can fsync every write (deploy/nats-sync.ts).
 */
export const FETCHED_NATS_SERVER = fileURLToPath(new URL('../tools/nats-server/usr/sbin/nats-server', import.meta.url))

/**
 * The nats-server binary: an explicit one (LOOKOUT_NATS_SERVER), else the fetched 2.10,
 * else one on PATH or in the sbin folders Debian installs it to (bookworm's 2.9.10).
 */
export function findNatsServer(explicit?: string): string {
  if (explicit !== undefined && explicit !== '') return explicit
  if (existsSync(FETCHED_NATS_SERVER)) return FETCHED_NATS_SERVER
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/usr/local/bin', '/usr/bin']
  for (const d of dirs) {
    const p = join(d, 'nats-server')
    if (d !== '' && existsSync(p)) return p
  }
  throw new NatsServerMissing('nats-server not found: run bash deploy/bootstrap.sh (or apt-get install nats-server), or set LOOKOUT_NATS_SERVER')
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

function cmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ')
  } catch {
    return ''
  }
}

export class ManagedNats {
  readonly #opts: Required<ManagedNatsOptions>
  #child: ChildProcess | null = null
  #url = ''
  // undefined: not asked yet; null: the binary printed no version.
  #version: NatsServerVersion | null | undefined = undefined

  constructor(options: ManagedNatsOptions) {
    this.#opts = {
      maxPayload: '8MB',
      maxFileStore: 64 * 1024 ** 3,
      binary: findNatsServer(options.binary ?? process.env.LOOKOUT_NATS_SERVER),
      ...options,
    }
  }

  get url(): string {
    return this.#url
  }

  get pid(): number | undefined {
    return this.#child?.pid
  }

  /** The binary's own `--version`, read at the first start. */
  get version(): NatsServerVersion | null | undefined {
    return this.#version
  }

  /** Whether the running configuration fsyncs every JetStream write (`sync_interval: always`). */
  get syncAlways(): boolean {
    return jetstreamSyncLines(this.#version ?? null).length > 0
  }

  get confPath(): string {
    return join(this.#opts.dir, 'nats.conf')
  }

  /** Kills a nats-server left behind by a crashed launcher on this directory. */
  async #reapStale(): Promise<void> {
    const pidFile = join(this.#opts.dir, 'nats-server.pid')
    if (existsSync(pidFile)) {
      const pid = Number(readFileSync(pidFile, 'utf8').trim())
      if (Number.isInteger(pid) && pid > 0 && alive(pid) && cmdline(pid).includes(this.confPath)) {
        process.kill(pid, 'SIGTERM')
        for (let i = 0; i < 50 && alive(pid); i++) await sleep(100)
        if (alive(pid)) process.kill(pid, 'SIGKILL')
      }
      rmSync(pidFile, { force: true })
    }
    for (const f of readdirSync(this.#opts.dir)) if (f.endsWith('.ports')) rmSync(join(this.#opts.dir, f), { force: true })
  }

  async start(): Promise<string> {
    const dir = this.#opts.dir
    mkdirSync(join(dir, 'jetstream'), { recursive: true })
    await this.#reapStale()
    if (this.#version === undefined) this.#version = await detectNatsServerVersion(this.#opts.binary)
    writeFileSync(this.confPath, [
      'listen: "127.0.0.1:-1"',
      'server_name: lookout_embedded',
      `ports_file_dir: ${JSON.stringify(dir)}`,
      `pid_file: ${JSON.stringify(join(dir, 'nats-server.pid'))}`,
      `max_payload: ${this.#opts.maxPayload}`,
      'jetstream {',
      `  store_dir: ${JSON.stringify(join(dir, 'jetstream'))}`,
      '  max_memory_store: 64MB',
      `  max_file_store: ${this.#opts.maxFileStore}`,
      ...jetstreamSyncLines(this.#version),
      '}',
      '',
    ].join('\n'))
    const child = spawn(this.#opts.binary, ['-c', this.confPath], { stdio: ['ignore', 'ignore', 'pipe'] })
    this.#child = child
    let stderr = ''
    child.stderr?.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000)
    })
    const portsFile = join(dir, `nats-server_${child.pid}.ports`)
    for (let i = 0; i < 200; i++) {
      if (child.exitCode !== null) throw new Error(`nats-server exited (${child.exitCode}): ${stderr}`)
      if (existsSync(portsFile)) {
        try {
          const ports = JSON.parse(readFileSync(portsFile, 'utf8')) as { nats?: string[] }
          const u = ports.nats?.[0]
          if (u !== undefined) {
            this.#url = u
            return u
          }
        } catch {
          // written but not complete yet
        }
      }
      await sleep(50)
    }
    child.kill('SIGKILL')
    throw new Error(`nats-server did not start within 10 s: ${stderr}`)
  }

  /** Graceful stop (flushes JetStream), then SIGKILL after the grace period. */
  async stop(graceMs = 5000): Promise<void> {
    const child = this.#child
    this.#child = null
    if (child === null || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((r) => child.once('exit', () => r()))
    child.kill('SIGTERM')
    const t = setTimeout(() => child.kill('SIGKILL'), graceMs)
    await exited
    clearTimeout(t)
  }

  /** For fault tests: kill without a chance to flush. */
  kill9(): void {
    this.#child?.kill('SIGKILL')
  }
}
