// `lookout serve` (every role, embedded engines) as a child process on a data
// directory, in a process group of its own with the nats-server it manages, so
// that a test can SIGKILL the server process alone or the whole group.
import { spawn, type ChildProcess } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'

export interface ServeProcess {
  url: string
  pid: number
  /** Resolves with the exit code or signal once the process is gone and its stderr is read to the end. */
  readonly gone: Promise<string>
  /** SIGKILL of the server process only (its nats-server lives on until the next start takes it over). */
  kill9(): void
  /** SIGKILL of the process group: the server and its nats-server at once. */
  kill9Group(): void
  /** SIGTERM: the server drains and stops its nats-server. */
  stop(): Promise<string>
}

/**
 * Starts `node deploy/lookout.ts serve` with `env` on top of this process's
 * environment; `onStderrLine` sees every stderr line as it arrives (from the
 * first), in the order written, and `onStdoutLine` every stdout line (the log).
 */
export async function startServe(
  env: Record<string, string>, onStderrLine: (line: string) => void = () => {}, onStdoutLine: (line: string) => void = () => {},
): Promise<ServeProcess> {
  const child: ChildProcess = spawn(process.execPath, ['deploy/lookout.ts', 'serve'], {
    env: { ...process.env, LOOKOUT_PORT: '0', LOOKOUT_LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  let tail = ''
  const stderrDone = new Promise<void>((resolve) => {
    const rl = createInterface({ input: child.stderr! })
    rl.on('line', (line) => {
      tail = (tail + line + '\n').slice(-4000)
      onStderrLine(line)
    })
    rl.once('close', () => resolve())
  })
  const exited = new Promise<string>((resolve) => child.once('exit', (code, signal) => resolve(signal ?? String(code))))
  const gone = Promise.all([exited, stderrDone]).then(([how]) => how)
  const url = await new Promise<string>((resolve, reject) => {
    let found = false
    // A start after a kill loads the backlog while it starts: 60 s was once too short on a loaded 2-core machine.
    const timer = setTimeout(() => {
      // Not left running behind the failure: the caller never gets a handle to stop it.
      try {
        process.kill(-(child.pid as number), 'SIGKILL')
      } catch {
        // gone already
      }
      reject(new Error(`lookout serve did not start within 120 s: ${tail}`))
    }, 120_000)
    createInterface({ input: child.stdout! }).on('line', (line) => {
      onStdoutLine(line)
      const m = found ? null : /on (http:\/\/\S+)/.exec(line)
      if (m !== null) {
        found = true
        clearTimeout(timer)
        resolve(m[1] as string)
      }
    })
    void exited.then((how) => {
      clearTimeout(timer)
      reject(new Error(`lookout serve exited (${how}): ${tail}`))
    })
  })
  const pid = child.pid as number
  const running = () => child.exitCode === null && child.signalCode === null
  return {
    url,
    pid,
    gone,
    kill9() {
      if (running()) child.kill('SIGKILL')
    },
    kill9Group() {
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {
        // the group is gone already
      }
    },
    async stop() {
      if (running()) child.kill('SIGTERM')
      return gone
    },
  }
}

/** Kills a managed nats-server a killed server left behind on this data directory (teardown). */
export function killLeftoverNats(dataDir: string): void {
  const pidFile = join(dataDir, 'nats', 'nats-server.pid')
  if (!existsSync(pidFile)) return
  const pid = Number(readFileSync(pidFile, 'utf8').trim())
  let cmd = ''
  try {
    cmd = readFileSync(`/proc/${pid}/cmdline`, 'utf8')
  } catch {
    return
  }
  if (cmd.includes(join(dataDir, 'nats'))) process.kill(pid, 'SIGKILL')
}
