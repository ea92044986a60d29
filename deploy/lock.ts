// One server per data directory: chdb and PGlite corrupt a directory two
// processes share. A pid file, taken over when its process is gone (kill -9).
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { DataDirBusy } from './errors.ts'

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** The pid holding the directory, or null when nobody (alive) does. */
export function lockHolder(dataDir: string): number | null {
  try {
    const pid = Number(readFileSync(join(dataDir, 'lookout.pid'), 'utf8').trim())
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) ? pid : null
  } catch {
    return null
  }
}

export function acquireDataDir(dataDir: string): () => void {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  const holder = lockHolder(dataDir)
  if (holder !== null) throw new DataDirBusy(`the data directory ${dataDir} is in use by process ${holder}`)
  const file = join(dataDir, 'lookout.pid')
  writeFileSync(file, String(process.pid) + '\n')
  return () => {
    try {
      if (readFileSync(file, 'utf8').trim() === String(process.pid)) rmSync(file, { force: true })
    } catch {
      // already gone
    }
  }
}
