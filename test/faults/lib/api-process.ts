// `lookout serve --role api` as a child process, as an operator runs one of N
// api processes: NATS_URL and DATABASE_URL point at shared servers; its data
// directory (its own) holds only the pid lock, the admin socket and an unused
// embedded ClickHouse.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface ApiProcess {
  url: string
  pid: number
  /** SIGKILL, and wait for the exit. */
  kill9(): Promise<void>
  /** SIGTERM (drain), and wait for the exit code. */
  stop(): Promise<number | null>
}

export async function startApiProcess(env: Record<string, string>): Promise<ApiProcess> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lookout-api-'))
  const child: ChildProcess = spawn(process.execPath, ['deploy/lookout.ts', 'serve', '--role', 'api'], {
    env: {
      ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0', LOOKOUT_WORKERS: '1', LOOKOUT_MAX_EVENT_LOOP_DELAY_MS: '0',
      LOOKOUT_LOG_LEVEL: 'warn', ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stderr = ''
  child.stderr?.on('data', (d: Buffer) => {
    stderr = (stderr + d.toString()).slice(-4000)
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const url = await new Promise<string>((resolve, reject) => {
    let out = ''
    // Generous: on a loaded 2-core machine a start has taken over 30 s.
    const timer = setTimeout(() => reject(new Error(`api process did not start: ${stderr}`)), 120_000)
    child.stdout?.on('data', (d: Buffer) => {
      out += d.toString()
      const m = /on (http:\/\/\S+)/.exec(out)
      if (m !== null) {
        clearTimeout(timer)
        resolve(m[1] as string)
      }
    })
    void exited.then((code) => {
      clearTimeout(timer)
      reject(new Error(`api process exited ${code}: ${stderr}`))
    })
  })
  const cleanup = () => rmSync(dataDir, { recursive: true, force: true })
  return {
    url,
    pid: child.pid ?? 0,
    async kill9() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
      await exited
      cleanup()
    },
    async stop() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
      const code = await exited
      cleanup()
      return code
    },
  }
}
