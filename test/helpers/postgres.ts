// A throwaway PostgreSQL server from the Debian package: initdb + postgres on a
// free loopback port in a temporary directory. PostgreSQL refuses to run as
// root, so as root the server runs as the `postgres` system user (runuser).
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pg from 'pg'
import { freePort } from './free-port.ts'
import { PG_BIN } from './pg-bin.ts'

export interface TestPostgres {
  /** postgres://... of a fresh database on the server. */
  url: string
  port: number
  /** The server's data directory (postmaster.pid holds the postmaster's pid). */
  dataDir: string
  /** Creates another empty database and returns its URL. */
  database(name: string): Promise<string>
  stop(): Promise<void>
}

export { postgresAvailable } from './pg-bin.ts'

/** As root: run as the postgres user; otherwise as ourselves. */
function asServerUser(cmd: string, args: string[]): [string, string[]] {
  return process.getuid?.() === 0 ? ['runuser', ['-u', 'postgres', '--', cmd, ...args]] : [cmd, args]
}

function systemUser(name: string): { uid: number; gid: number } {
  const out = execFileSync('id', [name]).toString()
  const uid = /uid=(\d+)/.exec(out)?.[1]
  const gid = /gid=(\d+)/.exec(out)?.[1]
  if (uid === undefined || gid === undefined) throw new Error(`no system user ${name}`)
  return { uid: Number(uid), gid: Number(gid) }
}

async function waitReady(url: string, server: ChildProcess, log: () => string): Promise<void> {
  const deadline = Date.now() + 30_000
  for (;;) {
    if (server.exitCode !== null) throw new Error(`postgres exited ${server.exitCode}: ${log()}`)
    const c = new pg.Client({ connectionString: url })
    try {
      await c.connect()
      await c.query('SELECT 1')
      await c.end()
      return
    } catch {
      await c.end().catch(() => undefined)
      if (Date.now() > deadline) throw new Error(`postgres did not become ready: ${log()}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

export async function startTestPostgres(options: { maxConnections?: number; settings?: Record<string, string> } = {}): Promise<TestPostgres> {
  const dir = mkdtempSync(join(tmpdir(), 'lookout-pg-'))
  const data = join(dir, 'data')
  if (process.getuid?.() === 0) {
    const u = systemUser('postgres')
    chownSync(dir, u.uid, u.gid)
  }
  chmodSync(dir, 0o700)
  const [initCmd, initArgs] = asServerUser(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--no-sync'])
  execFileSync(initCmd, initArgs, { stdio: 'pipe' })
  const port = await freePort()
  const [cmd, args] = asServerUser(join(PG_BIN, 'postgres'), [
    '-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1',
    '-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off',
    '-c', `max_connections=${options.maxConnections ?? 100}`,
    ...Object.entries(options.settings ?? {}).flatMap(([k, v]) => ['-c', `${k}=${v}`]),
  ])
  const server = spawn(cmd, args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  server.stderr?.on('data', (d) => {
    stderr = (stderr + String(d)).slice(-4000)
  })
  const base = `postgres://postgres@127.0.0.1:${port}`
  await waitReady(`${base}/postgres`, server, () => stderr)
  const admin = new pg.Client({ connectionString: `${base}/postgres` })
  await admin.connect()
  const database = async (name: string): Promise<string> => {
    await admin.query(`CREATE DATABASE "${name.replaceAll('"', '')}"`)
    return `${base}/${name}`
  }
  const url = await database('lookout')
  let stopped: Promise<void> | null = null
  return {
    url,
    port,
    dataDir: data,
    database,
    stop: () => (stopped ??= (async () => {
      await admin.end().catch(() => undefined)
      const exited = server.exitCode !== null ? Promise.resolve() : new Promise((r) => server.once('exit', r))
      // A "fast" shutdown through pg_ctl: runuser does not pass every signal on to the server.
      const [stopCmd, stopArgs] = asServerUser(join(PG_BIN, 'pg_ctl'), ['stop', '-D', data, '-m', 'fast', '-w', '-t', '20'])
      try {
        execFileSync(stopCmd, stopArgs, { stdio: 'pipe' })
      } catch {
        server.kill('SIGKILL')
      }
      await exited
      rmSync(dir, { recursive: true, force: true })
    })()),
  }
}
