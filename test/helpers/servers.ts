// Real servers for probe tests, each on 127.0.0.1, a free port and a temporary
// directory, stopped by the test: HTTPS with a self-signed (or expired)
// certificate, plain HTTP, TCP listeners, PostgreSQL (password auth), MariaDB,
// Redis and, where a mongod binary exists, MongoDB. Database servers refuse to
// run as root, so as root they run as their Debian system user.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer as createHttpServer, type IncomingMessage, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import { createServer as createTcpServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { generate } from 'selfsigned'
import { PG_BIN } from './pg-bin.ts'
import { availableOrRequired } from './require-servers.ts'
import { freePort } from './free-port.ts'

export type Handler = (req: IncomingMessage, res: ServerResponse) => void

export { freePort }

function listen(server: Server, port = 0): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve((server.address() as { port: number }).port))
  })
}

function closeServer(server: Server, sockets: Set<Socket>): Promise<void> {
  for (const s of sockets) s.destroy()
  return new Promise((resolve) => server.close(() => resolve()))
}

function track(server: Server): Set<Socket> {
  const sockets = new Set<Socket>()
  server.on('connection', (s: Socket) => {
    sockets.add(s)
    s.once('close', () => sockets.delete(s))
  })
  return sockets
}

const okHandler: Handler = (_req, res) => {
  res.writeHead(200, { 'content-type': 'text/plain' })
  res.end('ok: all systems nominal\n')
}

export interface TestWebServer {
  url: string
  port: number
  /** PEM of the server certificate (HTTPS only): a probe's `ca` to trust it. */
  cert: string
  close(): Promise<void>
}

export interface HttpsOptions {
  /** A certificate whose validity ended a year ago. */
  expired?: boolean
  /** Days the certificate stays valid (default 365). */
  validDays?: number
  handler?: Handler
}

/** An HTTPS server with a freshly generated self-signed certificate for 127.0.0.1 and localhost. */
export async function startHttps(opts: HttpsOptions = {}): Promise<TestWebServer> {
  const day = 86_400_000
  const notBefore = opts.expired === true ? new Date(Date.now() - 730 * day) : new Date(Date.now() - day)
  const notAfter = opts.expired === true ? new Date(Date.now() - 365 * day) : new Date(Date.now() + (opts.validDays ?? 365) * day)
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], {
    keyType: 'ec', curve: 'P-256', algorithm: 'sha256', notBeforeDate: notBefore, notAfterDate: notAfter,
    extensions: [
      { name: 'basicConstraints', cA: true },
      { name: 'subjectAltName', altNames: [{ type: 2, value: 'localhost' }, { type: 7, ip: '127.0.0.1' }] },
    ],
  })
  const server = createHttpsServer({ key: pems.private, cert: pems.cert }, opts.handler ?? okHandler)
  const sockets = track(server)
  const port = await listen(server)
  return { url: `https://127.0.0.1:${port}`, port, cert: pems.cert, close: () => closeServer(server, sockets) }
}

export async function startHttp(handler: Handler = okHandler): Promise<TestWebServer> {
  const server = createHttpServer(handler)
  const sockets = track(server)
  const port = await listen(server)
  return { url: `http://127.0.0.1:${port}`, port, cert: '', close: () => closeServer(server, sockets) }
}

export interface TestTcpServer {
  port: number
  /** Stops listening and drops connections: the port then refuses. */
  close(): Promise<void>
  /** Listens again on the same port. */
  reopen(): Promise<void>
}

/** A TCP listener that sends a banner, or answers each chunk with `reply(chunk)`. */
export async function startTcp(opts: { banner?: string; reply?: (chunk: string) => string } = {}): Promise<TestTcpServer> {
  const make = () => createTcpServer((s) => {
    s.on('error', () => undefined)
    if (opts.banner !== undefined) s.write(opts.banner)
    if (opts.reply !== undefined) {
      const reply = opts.reply
      s.on('data', (d) => s.write(reply(String(d))))
    }
  })
  let server = make()
  let sockets = track(server)
  const port = await listen(server)
  let open = true
  return {
    port,
    async close() {
      if (!open) return
      open = false
      await closeServer(server, sockets)
    },
    async reopen() {
      if (open) return
      server = make()
      sockets = track(server)
      await listen(server, port)
      open = true
    },
  }
}

function systemUser(name: string): { uid: number; gid: number } | null {
  try {
    const out = execFileSync('id', [name]).toString()
    const uid = /uid=(\d+)/.exec(out)?.[1]
    const gid = /gid=(\d+)/.exec(out)?.[1]
    return uid === undefined || gid === undefined ? null : { uid: Number(uid), gid: Number(gid) }
  } catch {
    return null
  }
}

/** A temporary directory the server's user owns, and the spawn identity to run it with. */
function serverDir(prefix: string, user: string): { dir: string; ids: { uid?: number; gid?: number } } {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  chmodSync(dir, 0o700)
  if (process.getuid?.() !== 0) return { dir, ids: {} }
  const u = systemUser(user)
  if (u === null) throw new Error(`running as root needs the system user ${user}`)
  chownSync(dir, u.uid, u.gid)
  return { dir, ids: u }
}

interface Proc {
  child: ChildProcess
  log(): string
}

function start(cmd: string, args: string[], ids: { uid?: number; gid?: number }): Proc {
  const child = spawn(cmd, args, { stdio: ['ignore', 'pipe', 'pipe'], ...ids })
  let out = ''
  const keep = (d: Buffer) => {
    out = (out + String(d)).slice(-4000)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  return { child, log: () => out }
}

async function waitFor(what: string, p: Proc, ready: () => Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    if (p.child.exitCode !== null) throw new Error(`${what} exited ${p.child.exitCode}: ${p.log()}`)
    if (await ready().catch(() => false)) return
    if (Date.now() > deadline) throw new Error(`${what} did not become ready: ${p.log()}`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

async function stopProc(p: Proc, signal: NodeJS.Signals, dir: string): Promise<void> {
  if (p.child.exitCode === null && p.child.signalCode === null) {
    const exited = new Promise((r) => p.child.once('exit', r))
    p.child.kill(signal)
    const timer = setTimeout(() => p.child.kill('SIGKILL'), 10_000)
    await exited
    clearTimeout(timer)
  }
  rmSync(dir, { recursive: true, force: true })
}

export interface TestDatabase {
  host: string
  port: number
  user: string
  password: string
  /** The server's process id (for CPU accounting in benchmarks). */
  pid: number
  stop(): Promise<void>
}

export { postgresAvailable } from './pg-bin.ts'

/** PostgreSQL with password (SCRAM) authentication over TCP for user `probe`. */
export async function startPostgresServer(): Promise<TestDatabase> {
  const { dir, ids } = serverDir('lookout-probe-pg-', 'postgres')
  const data = join(dir, 'data')
  const password = 'probe-pass-' + Math.random().toString(36).slice(2)
  const pwfile = join(dir, 'pw')
  writeFileSync(pwfile, password + '\n', { mode: 0o600 })
  if (ids.uid !== undefined) chownSync(pwfile, ids.uid, ids.gid as number)
  execFileSync(join(PG_BIN, 'initdb'), ['-D', data, '-U', 'probe', '--pwfile', pwfile, '--auth-host=scram-sha-256', '--auth-local=trust', '--no-sync', '-E', 'UTF8'],
    { stdio: 'pipe', ...ids })
  const port = await freePort()
  const p = start(join(PG_BIN, 'postgres'), ['-D', data, '-p', String(port), '-k', dir, '-c', 'listen_addresses=127.0.0.1', '-c', 'fsync=off'], ids)
  const { default: pg } = await import('pg')
  await waitFor('postgres', p, async () => {
    const c = new pg.Client({ host: '127.0.0.1', port, user: 'probe', password, database: 'postgres' })
    try {
      await c.connect()
      await c.query('SELECT 1')
      return true
    } finally {
      await c.end().catch(() => undefined)
    }
  })
  return { host: '127.0.0.1', port, user: 'probe', password, pid: p.child.pid as number, stop: () => stopProc(p, 'SIGINT', dir) }
}

export function mariadbAvailable(): boolean {
  return availableOrRequired(existsSync('/usr/sbin/mariadbd') && existsSync('/usr/bin/mariadb-install-db'), 'mariadbd (Debian package mariadb-server)')
}

/** MariaDB with user `probe` identified by a password, over TCP. */
export async function startMariadbServer(): Promise<TestDatabase> {
  const { dir, ids } = serverDir('lookout-probe-maria-', 'mysql')
  const data = join(dir, 'data')
  const socket = join(dir, 'mysqld.sock')
  const user = process.getuid?.() === 0 ? ['--user=mysql'] : []
  execFileSync('/usr/bin/mariadb-install-db', ['--no-defaults', `--datadir=${data}`, '--auth-root-authentication-method=normal', '--skip-test-db', ...user],
    { stdio: 'pipe', ...ids })
  const port = await freePort()
  const p = start('/usr/sbin/mariadbd', ['--no-defaults', `--datadir=${data}`, `--socket=${socket}`, `--port=${port}`, '--bind-address=127.0.0.1',
    `--pid-file=${join(dir, 'pid')}`, '--skip-log-bin', '--innodb-buffer-pool-size=16M', '--innodb-log-file-size=8M', ...user], ids)
  const mysql = await import('mysql2/promise')
  const password = 'probe-pass-' + Math.random().toString(36).slice(2)
  await waitFor('mariadbd', p, async () => {
    const c = await mysql.createConnection({ socketPath: socket, user: 'root' })
    try {
      await c.query(`CREATE USER IF NOT EXISTS 'probe'@'%' IDENTIFIED BY '${password}'`)
      await c.query(`GRANT ALL ON *.* TO 'probe'@'%'`)
      return true
    } finally {
      await c.end().catch(() => undefined)
    }
  })
  return { host: '127.0.0.1', port, user: 'probe', password, pid: p.child.pid as number, stop: () => stopProc(p, 'SIGTERM', dir) }
}

export function redisAvailable(): boolean {
  return availableOrRequired(existsSync('/usr/bin/redis-server'), 'redis-server (Debian package redis-server)')
}

/** Redis requiring a password (AUTH with the default user). */
export async function startRedisServer(): Promise<TestDatabase> {
  const { dir, ids } = serverDir('lookout-probe-redis-', 'redis')
  const port = await freePort()
  const password = 'probe-pass-' + Math.random().toString(36).slice(2)
  const p = start('/usr/bin/redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no',
    '--requirepass', password], ids)
  await waitFor('redis-server', p, async () => /Ready to accept connections/.test(p.log()))
  return { host: '127.0.0.1', port, user: 'default', password, pid: p.child.pid as number, stop: () => stopProc(p, 'SIGTERM', dir) }
}

/** The mongod binary (LOOKOUT_MONGOD or on PATH), or null: MongoDB is not a Debian package. */
export function mongodPath(): string | null {
  const candidates = [process.env.LOOKOUT_MONGOD, '/usr/bin/mongod', '/usr/local/bin/mongod'].filter((x): x is string => x !== undefined && x !== '')
  return candidates.find((c) => existsSync(c)) ?? null
}

/** MongoDB without access control (authentication is covered by the driver's own error path). */
export async function startMongoServer(): Promise<TestDatabase> {
  const bin = mongodPath()
  if (bin === null) throw new Error('no mongod binary')
  const { dir, ids } = serverDir('lookout-probe-mongo-', process.getuid?.() === 0 ? 'nobody' : '')
  const port = await freePort()
  const p = start(bin, ['--dbpath', dir, '--port', String(port), '--bind_ip', '127.0.0.1', '--nounixsocket'], ids)
  const { MongoClient } = await import('mongodb')
  await waitFor('mongod', p, async () => {
    const c = new MongoClient(`mongodb://127.0.0.1:${port}/`, { directConnection: true, serverSelectionTimeoutMS: 500 })
    try {
      await c.db('admin').command({ ping: 1 })
      return true
    } finally {
      await c.close()
    }
  })
  return { host: '127.0.0.1', port, user: '', password: '', pid: p.child.pid as number, stop: () => stopProc(p, 'SIGTERM', dir) }
}
