// Stopping a benchmark's child process: SIGTERM for an orderly stop, SIGKILL if
// it has not exited 20 s later.
import type { ChildProcess } from 'node:child_process'

export async function stopChild(proc: ChildProcess): Promise<void> {
  if (proc.exitCode !== null || proc.signalCode !== null) return
  const exited = new Promise<void>((r) => proc.once('exit', () => r()))
  proc.kill('SIGTERM')
  const hard = setTimeout(() => proc.kill('SIGKILL'), 20_000)
  await exited
  clearTimeout(hard)
}
