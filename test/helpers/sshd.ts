// A throwaway OpenSSH server (Debian openssh-server) on a free loopback port:
// its own host key and authorized_keys in a temporary 0700 directory, the
// current user as the login (root may log in), its log kept for assertions.
import { spawn, execFileSync, type ChildProcess } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:net'
import { tmpdir, userInfo } from 'node:os'
import { join } from 'node:path'
import { freePort } from './servers.ts'
import { availableOrRequired } from './require-servers.ts'

const SSHD = '/usr/sbin/sshd'

export function sshdAvailable(): boolean {
  return availableOrRequired(existsSync(SSHD) && existsSync('/usr/bin/ssh') && existsSync('/usr/bin/ssh-keygen'), 'sshd, ssh and ssh-keygen (Debian packages openssh-server, openssh-client)')
}

export interface TestSshd {
  port: number
  user: string
  /** The client key authorized to log in (OpenSSH private key text). */
  clientKey: string
  /** Fingerprint of the current host key (SHA256:…, as ssh-keygen -l prints it). */
  hostFingerprint(): string
  /** Everything the server logged so far (LogLevel DEBUG1: forwards are logged). */
  log(): string
  /** Stops and starts again on the same port with a freshly generated host key. */
  restartWithNewHostKey(): Promise<void>
  stop(): Promise<void>
}

function keygen(file: string): void {
  execFileSync('ssh-keygen', ['-q', '-t', 'ed25519', '-N', '', '-C', 'lookout-test', '-f', file])
}

function waitListening(port: number, timeoutMs = 20_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  return new Promise((resolve, reject) => {
    const attempt = () => {
      const s = connect({ host: '127.0.0.1', port })
      s.once('connect', () => {
        s.destroy()
        resolve()
      })
      s.once('error', () => {
        if (Date.now() > deadline) reject(new Error('sshd did not start listening'))
        else setTimeout(attempt, 100)
      })
    }
    attempt()
  })
}

export async function startSshd(opts: { allowTcpForwarding?: boolean } = {}): Promise<TestSshd> {
  // As root sshd wants its privilege separation directory (the Debian package's service makes it at boot).
  if (process.getuid?.() === 0) mkdirSync('/run/sshd', { recursive: true, mode: 0o755 })
  const dir = mkdtempSync(join(tmpdir(), 'lookout-sshd-'))
  const hostKey = join(dir, 'host_key')
  const clientKeyFile = join(dir, 'client')
  keygen(hostKey)
  keygen(clientKeyFile)
  writeFileSync(join(dir, 'authorized_keys'), readFileSync(`${clientKeyFile}.pub`))
  const port = await freePort()
  const config = join(dir, 'sshd_config')
  writeFileSync(config, [
    'ListenAddress 127.0.0.1', `HostKey ${hostKey}`, `AuthorizedKeysFile ${join(dir, 'authorized_keys')}`,
    'PidFile none', 'UsePAM no', 'StrictModes no', 'PermitRootLogin yes', 'PasswordAuthentication no',
    'KbdInteractiveAuthentication no', `AllowTcpForwarding ${opts.allowTcpForwarding === false ? 'no' : 'yes'}`,
    'LogLevel DEBUG1', '',
  ].join('\n'))
  let logText = ''
  let child: ChildProcess | null = null
  const start = async () => {
    const c = spawn(SSHD, ['-D', '-e', '-f', config, '-p', String(port)], { stdio: ['ignore', 'ignore', 'pipe'] })
    c.stderr?.setEncoding('utf8')
    c.stderr?.on('data', (d: string) => {
      logText += d
    })
    child = c
    await waitListening(port)
  }
  const stopChild = async () => {
    const c = child as ChildProcess | null
    if (c === null || c.exitCode !== null) return
    const exited = new Promise((r) => c.once('exit', r))
    c.kill('SIGTERM')
    await exited
    child = null
  }
  await start()
  return {
    port,
    user: userInfo().username,
    clientKey: readFileSync(clientKeyFile, 'utf8'),
    hostFingerprint: () => String(execFileSync('ssh-keygen', ['-l', '-f', `${hostKey}.pub`])).split(' ')[1] as string,
    log: () => logText,
    async restartWithNewHostKey() {
      await stopChild()
      rmSync(hostKey, { force: true })
      rmSync(`${hostKey}.pub`, { force: true })
      keygen(hostKey)
      await start()
    },
    async stop() {
      await stopChild()
      rmSync(dir, { recursive: true, force: true })
    },
  }
}
