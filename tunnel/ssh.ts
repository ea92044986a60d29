// Debian's OpenSSH client, run with a fixed, strict option set: no config file,
// no agent, no other identity, no password or keyboard prompts, and host trust
// only from a private known_hosts holding the pinned keys. The private key is a
// 0600 file in a fresh 0700 directory, deleted as soon as ssh has
// authenticated (and the directory when ssh exits).
import { spawn, execFile, type ChildProcess } from 'node:child_process'
import { createHash } from 'node:crypto'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Readable, Writable } from 'node:stream'
import type { SshEndpoint } from './secrets.ts'

/** Debian's openssh-client, from PATH. */
export const SSH_BIN = 'ssh'
export const SSH_KEYSCAN_BIN = 'ssh-keyscan'
/** known_hosts names the pinned keys by this alias, whatever host and port they were pinned for. */
const HOST_ALIAS = 'lookout-pinned-host'
const MAX_ERROR_LINES = 4

export const TUNNEL_FAILURES = {
  hostKey: 'host_key', auth: 'auth', connect: 'connect', refused: 'refused', dns: 'dns', target: 'target', timeout: 'timeout',
} as const
export type TunnelFailure = (typeof TUNNEL_FAILURES)[keyof typeof TUNNEL_FAILURES]

export class TunnelError extends Error {
  readonly failure: TunnelFailure
  constructor(failure: TunnelFailure, message: string) {
    super(message)
    this.failure = failure
  }
}

/** `SHA256:<unpadded base64>`, as ssh-keygen -l prints it, of a "<type> <base64>" key. */
export function fingerprintOf(key: string): string {
  const b64 = key.trim().split(/\s+/)[1] ?? ''
  return `SHA256:${createHash('sha256').update(Buffer.from(b64, 'base64')).digest('base64').replace(/=+$/, '')}`
}

/** The host keys the server offers ("<type> <base64>" each), without authenticating. */
export function scanHostKeys(host: string, port: number, timeoutMs: number): Promise<string[]> {
  const secs = String(Math.max(1, Math.ceil(timeoutMs / 1000)))
  return new Promise((resolve, reject) => {
    execFile(SSH_KEYSCAN_BIN, ['-T', secs, '-p', String(port), '--', host], { timeout: timeoutMs + 2000, maxBuffer: 256 * 1024 }, (err, stdout) => {
      const keys = String(stdout).split('\n').filter((l) => l !== '' && !l.startsWith('#'))
        .map((l) => l.trim().split(/\s+/).slice(1, 3).join(' ')).filter((k) => /^[a-z0-9@.-]+ [A-Za-z0-9+/=]+$/.test(k))
      if (keys.length > 0) resolve(keys)
      else reject(new TunnelError(TUNNEL_FAILURES.connect, `no SSH host key could be read from ${host}:${port}${err === null ? '' : ` (${err.message.split('\n')[0]})`}`))
    })
  })
}

interface Prepared {
  dir: string
  keyFile: string
  args: string[]
}

/** Where the key directories go by default; the monitor role uses `<data dir>/ssh`. */
export function defaultWorkDir(): string {
  return tmpdir()
}

async function prepare(e: SshEndpoint, workDir: string, timeoutMs: number, logLevel: string, destination = true): Promise<Prepared> {
  await mkdir(workDir, { recursive: true, mode: 0o700 })
  const dir = await mkdtemp(join(workDir, 'lookout-ssh-'))
  const keyFile = join(dir, 'id')
  const known = join(dir, 'known_hosts')
  await writeFile(keyFile, e.privateKey.endsWith('\n') ? e.privateKey : `${e.privateKey}\n`, { mode: 0o600 })
  await writeFile(known, e.hostKeys.map((k) => `${HOST_ALIAS} ${k}\n`).join(''), { mode: 0o600 })
  const args = [
    '-F', '/dev/null', '-i', keyFile, ...(destination ? ['-p', String(e.port), '-l', e.username] : []),
    '-o', 'BatchMode=yes', '-o', 'IdentitiesOnly=yes', '-o', 'IdentityAgent=none', '-o', 'ForwardAgent=no', '-o', 'ForwardX11=no',
    '-o', 'StrictHostKeyChecking=yes', '-o', `UserKnownHostsFile=${known}`, '-o', 'GlobalKnownHostsFile=/dev/null',
    '-o', `HostKeyAlias=${HOST_ALIAS}`, '-o', 'CheckHostIP=no', '-o', 'UpdateHostKeys=no', '-o', 'VerifyHostKeyDNS=no',
    '-o', 'PasswordAuthentication=no', '-o', 'KbdInteractiveAuthentication=no', '-o', 'PreferredAuthentications=publickey',
    '-o', 'ControlMaster=no', '-o', 'ControlPath=none', '-o', 'PermitLocalCommand=no', '-o', 'ProxyCommand=none',
    '-o', `ConnectTimeout=${Math.max(1, Math.ceil(timeoutMs / 1000))}`, '-o', 'ServerAliveInterval=15', '-o', `LogLevel=${logLevel}`,
  ]
  return { dir, keyFile, args }
}

interface Seen {
  /** The last few non-debug lines. */
  errors: string[]
  /** The host key fingerprint ssh printed when it refused one. */
  offered: string | null
}

function classify(seen: Seen, exitedBeforeAuth: boolean): TunnelError {
  const text = seen.errors.join(' | ').slice(0, 400)
  if (/HOST IDENTIFICATION HAS CHANGED|Host key verification failed|host key .* (is not known|has changed)/i.test(text)) {
    // ssh's own text names files and commands of this server; the fingerprint is what the user needs.
    return new TunnelError(TUNNEL_FAILURES.hostKey,
      `the SSH server's host key${seen.offered === null ? '' : ` (${seen.offered})`} does not match the pinned one: refused; to trust it, PUT the key again with it as host_fingerprint`)
  }
  if (/Permission denied|Too many authentication failures/i.test(text)) return new TunnelError(TUNNEL_FAILURES.auth, `the SSH server refused the key: ${text}`)
  const open = /open failed: (.*)/.exec(text)
  if (open !== null && !exitedBeforeAuth) {
    const why = open[1] ?? ''
    if (/refused/i.test(why)) return new TunnelError(TUNNEL_FAILURES.refused, `through the SSH tunnel: ${why}`)
    if (/not known|resolve|name/i.test(why)) return new TunnelError(TUNNEL_FAILURES.dns, `through the SSH tunnel: ${why}`)
    return new TunnelError(TUNNEL_FAILURES.target, `through the SSH tunnel: ${why}`)
  }
  if (/administratively prohibited/i.test(text)) return new TunnelError(TUNNEL_FAILURES.target, `the SSH server does not allow the forward: ${text}`)
  return new TunnelError(TUNNEL_FAILURES.connect, `the SSH connection failed: ${text === '' ? 'ssh exited' : text}`)
}

/** Watches ssh's stderr line by line: the milestones, and the last few non-debug lines for the error. */
function watch(child: ChildProcess, on: { authenticated(): void; confirmed(): void }): Seen {
  const seen: Seen = { errors: [], offered: null }
  const errors = seen.errors
  let buf = ''
  child.stderr?.setEncoding('utf8')
  child.stderr?.on('data', (chunk: string) => {
    buf += chunk
    let nl: number
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).replace(/\r$/, '')
      buf = buf.slice(nl + 1)
      const fp = /^(SHA256:[A-Za-z0-9+/]{43})\.?$/.exec(line.trim())
      if (fp !== null) seen.offered = fp[1] as string
      if (line.startsWith('Authenticated to ')) on.authenticated()
      else if (/^debug\d: channel \d+: open confirm/.test(line)) on.confirmed()
      else if (!line.startsWith('debug') && line.trim() !== '' && !/^@+$/.test(line.trim())) {
        errors.push(line.trim().slice(0, 200))
        if (errors.length > MAX_ERROR_LINES) errors.shift()
      }
    }
    if (buf.length > 4096) buf = ''
  })
  return seen
}

export interface Channel {
  /** Bytes from the target, through the SSH server. */
  readable: Readable
  /** Bytes to the target. */
  writable: Writable
  close(): void
}

/**
 * `ssh -W host:port`: a channel to the target as the SSH server sees it. Resolves
 * once the server confirms the channel, so a refused target is told apart from
 * an unreachable SSH server.
 */
export async function openChannel(e: SshEndpoint, workDir: string, target: { host: string; port: number }, timeoutMs: number): Promise<Channel> {
  const p = await prepare(e, workDir, timeoutMs, 'DEBUG2')
  const child = spawn(SSH_BIN, [...p.args, '-W', `${target.host.includes(':') ? `[${target.host}]` : target.host}:${target.port}`, '--', e.host], {
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  const cleanup = () => void rm(p.dir, { recursive: true, force: true })
  let authed = false
  return new Promise<Channel>((resolve, reject) => {
    let settled = false
    const timer = setTimeout(() => fail(new TunnelError(TUNNEL_FAILURES.timeout, `the SSH tunnel did not open within ${timeoutMs} ms`)), timeoutMs)
    const fail = (err: TunnelError) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill('SIGKILL')
      reject(err)
    }
    const seen = watch(child, {
      authenticated: () => {
        authed = true
        void rm(p.keyFile, { force: true })
      },
      confirmed: () => {
        if (settled) return
        settled = true
        clearTimeout(timer)
        const readable = child.stdout as Readable
        const writable = child.stdin as Writable
        writable.on('error', () => undefined)
        resolve({ readable, writable, close: () => child.kill('SIGTERM') })
      },
    })
    child.once('error', (err) => {
      cleanup()
      fail(new TunnelError(TUNNEL_FAILURES.connect, `ssh cannot run: ${err.message}`))
    })
    child.once('exit', () => {
      cleanup()
      fail(classify(seen, !authed))
    })
  })
}

/** Connects and authenticates without opening anything (`ssh -N`), then disconnects: proves the key and host trust work. */
export async function authenticate(e: SshEndpoint, workDir: string, timeoutMs: number): Promise<void> {
  const p = await prepare(e, workDir, timeoutMs, 'VERBOSE')
  const child = spawn(SSH_BIN, [...p.args, '-N', '--', e.host], { stdio: ['ignore', 'ignore', 'pipe'] })
  return new Promise<void>((resolve, reject) => {
    let settled = false
    const timer = setTimeout(() => finish(new TunnelError(TUNNEL_FAILURES.timeout, `the SSH server did not authenticate within ${timeoutMs} ms`)), timeoutMs)
    const finish = (err: TunnelError | null) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      child.kill('SIGTERM')
      if (err === null) resolve()
      else reject(err)
    }
    const seen = watch(child, {
      authenticated: () => {
        void rm(p.keyFile, { force: true })
        finish(null)
      },
      confirmed: () => undefined,
    })
    child.once('error', (err) => {
      void rm(p.dir, { recursive: true, force: true })
      finish(new TunnelError(TUNNEL_FAILURES.connect, `ssh cannot run: ${err.message}`))
    })
    child.once('exit', () => {
      void rm(p.dir, { recursive: true, force: true })
      finish(classify(seen, true))
    })
  })
}

/** One argument for a POSIX shell, single-quoted. */
function shellQuote(a: string): string {
  return `'${a.replaceAll("'", "'\\''")}'`
}

export interface SshCommand {
  /** For GIT_SSH_COMMAND (git runs it through sh and appends port, user@host and the command). */
  command: string
  /** Removes the key and known_hosts: call when the git command is done. */
  dispose(): Promise<void>
}

/**
 * The same strict client for git over SSH: the key and pinned host keys in a
 * fresh 0700 directory that lives as long as the git command that uses it.
 */
export async function sshCommand(e: SshEndpoint, workDir: string, timeoutMs: number): Promise<SshCommand> {
  const p = await prepare(e, workDir, timeoutMs, 'ERROR', false)
  return {
    command: [SSH_BIN, ...p.args].map(shellQuote).join(' '),
    dispose: () => rm(p.dir, { recursive: true, force: true }),
  }
}
