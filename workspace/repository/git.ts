// The git binary, run without a shell (execFile/spawn with an argument list)
// in a scrubbed environment: no system or user config, no prompts, literal
// pathspecs (a path is never pathspec magic), only file and https transports
// (and ssh, with the resource's registered key, for an ssh:// remote),
// no hooks, no redirects. Nothing of the server's environment (secrets
// included) reaches git.
import { execFile, spawn, type ChildProcess } from 'node:child_process'

export class GitError extends Error {
  readonly exitCode: number | null
  readonly stderr: string

  constructor(message: string, exitCode: number | null, stderr: string) {
    super(message)
    this.exitCode = exitCode
    this.stderr = stderr
  }
}

export class GitMissing extends Error {}

const CONFIG = [
  '-c', 'core.hooksPath=/dev/null',
  '-c', 'core.fsmonitor=false',
  '-c', 'http.followRedirects=false',
  '-c', 'protocol.allow=never',
  '-c', 'protocol.file.allow=always',
  '-c', 'protocol.https.allow=always',
  '-c', 'credential.helper=',
]

export function gitEnv(home: string, sshCommand?: string): NodeJS.ProcessEnv {
  return {
    // An ssh:// remote of a resource with a registered key: the managed runtime's strict ssh client (monitor/tunnel).
    ...(sshCommand === undefined ? {} : { GIT_SSH_COMMAND: sshCommand, GIT_SSH_VARIANT: 'ssh' }),
    PATH: process.env.PATH ?? '/usr/local/bin:/usr/bin:/bin',
    HOME: home,
    LC_ALL: 'C',
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    SSH_ASKPASS: '/bin/false',
    GIT_LITERAL_PATHSPECS: '1',
    GIT_NO_REPLACE_OBJECTS: '1',
    GIT_ALLOW_PROTOCOL: sshCommand === undefined ? 'file:https' : 'file:https:ssh',
  }
}

export interface GitRunOptions {
  home: string
  gitDir?: string
  timeoutMs?: number
  maxBuffer?: number
  signal?: AbortSignal
  /** GIT_SSH_COMMAND for an ssh:// remote; without it the ssh transport stays off. */
  sshCommand?: string
}

function argv(args: readonly string[], o: GitRunOptions): string[] {
  const ssh = o.sshCommand === undefined ? [] : ['-c', 'protocol.ssh.allow=always']
  return [...CONFIG, ...ssh, ...(o.gitDir === undefined ? [] : [`--git-dir=${o.gitDir}`]), ...args]
}

/** Runs git to completion; stdout as bytes. Rejects with GitError (non-zero exit) or GitMissing. */
export function git(args: readonly string[], o: GitRunOptions): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    execFile('git', argv(args, o), {
      env: gitEnv(o.home, o.sshCommand), encoding: 'buffer', maxBuffer: o.maxBuffer ?? 16 * 1024 * 1024,
      timeout: o.timeoutMs ?? 30_000, killSignal: 'SIGKILL', signal: o.signal, cwd: o.home,
    }, (err, stdout, stderr) => {
      if (err === null) return resolve(stdout)
      const e = err as NodeJS.ErrnoException & { code?: string | number; killed?: boolean }
      if (e.code === 'ENOENT') return reject(new GitMissing('git is not installed on the server'))
      const text = Buffer.isBuffer(stderr) ? stderr.toString('utf8') : String(stderr ?? '')
      const why = e.killed === true ? 'git took too long and was stopped' : text.trim().split('\n').slice(-3).join(' ')
      reject(new GitError(why || `git exited with ${String(e.code)}`, typeof e.code === 'number' ? e.code : null, text))
    })
  })
}

/** Starts git with piped stdout, for output read as it comes (and cut short). */
export function gitStream(args: readonly string[], o: GitRunOptions): ChildProcess {
  return spawn('git', argv(args, o), { env: gitEnv(o.home, o.sshCommand), stdio: ['ignore', 'pipe', 'pipe'], cwd: o.home, signal: o.signal, timeout: o.timeoutMs ?? 30_000, killSignal: 'SIGKILL' })
}

/**
 * Reads blobs in one `git cat-file --batch` process (a process per file would
 * cost more than the parsing); answers them in the order asked. A missing
 * object is null.
 */
export function gitBlobs(oids: readonly string[], o: GitRunOptions): Promise<(Buffer | null)[]> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', argv(['cat-file', '--batch'], o), {
      env: gitEnv(o.home), stdio: ['pipe', 'pipe', 'pipe'], cwd: o.home, signal: o.signal, timeout: o.timeoutMs ?? 120_000, killSignal: 'SIGKILL',
    })
    const out: (Buffer | null)[] = []
    const chunks: Buffer[] = []
    let buffered = 0
    let stderr = ''
    // Parsing state: the header of the next object, or the bytes still owed to the current one.
    let need = -1
    const take = (n: number): Buffer => {
      const all = chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks)
      chunks.length = 0
      const head = all.subarray(0, n)
      if (all.length > n) chunks.push(all.subarray(n))
      buffered = all.length - n
      return head
    }
    const pump = (): void => {
      for (;;) {
        if (need < 0) {
          const all = chunks.length === 1 ? chunks[0] as Buffer : Buffer.concat(chunks)
          chunks.length = 0
          chunks.push(all)
          const nl = all.indexOf(10)
          if (nl < 0) return
          const header = take(nl + 1).toString('latin1').trim()
          if (header.endsWith(' missing')) {
            out.push(null)
            continue
          }
          need = Number(header.split(' ')[2]) + 1 // the content and its newline
        }
        if (buffered < need) return
        out.push(take(need).subarray(0, need - 1))
        need = -1
      }
    }
    child.stdout.on('data', (d: Buffer) => {
      chunks.push(d)
      buffered += d.length
      pump()
    })
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString('utf8')).slice(-2000)
    })
    child.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new GitMissing('git is not installed on the server') : err))
    child.once('close', (code) => {
      if (code === 0 && out.length === oids.length) resolve(out)
      else reject(new GitError(stderr.trim().split('\n').pop() || `git cat-file exited with ${String(code)}`, code, stderr))
    })
    child.stdin.end(oids.join('\n') + '\n')
  })
}
