// `lookout backup create|list|restore` (deploy/backup.ts, deploy/backup-restore.ts).
// create asks the running service over its owner socket (the desktop's with
// --desktop, else the admin socket of LOOKOUT_DATA_DIR); list reads the data
// directory; restore asks the running service (which restarts on the backup,
// deploy/backup-live.ts), else runs here on the stopped data directory.
import { parseArgs } from 'node:util'
import { desktopPaths } from '../desktop/index.ts'
import { adminSocketPath, callAdmin } from './admin.ts'
import { listBackups } from './backup.ts'
import { restoreBackup } from './backup-restore.ts'
import { loadConfig } from './config.ts'
import { ServerUnreachableError, UsageError } from './errors.ts'
import { ownerBody, ownerCall } from './owner-socket.ts'
import type { LiveRestoreOutcome } from './backup-live.ts'
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'

export const BACKUP_USAGE = `lookout backup create [--desktop | --socket PATH]   a consistent backup of the running service's stores
  lookout backup list [--desktop | --data-dir DIR]       the backups of the data directory, newest first
  lookout backup restore ID|PATH [--desktop | --data-dir DIR | --socket PATH] [--force]
                                                 restore: a running service restarts on the backup by itself;
                                                 else into the stopped data directory (another machine's too)`

/** How long the CLI waits for a running service to come back on the restored data. */
const LIVE_RESTORE_WAIT_MS = 600_000

/** Asks the running service to restore and waits for its outcome; null when no service runs there. */
async function restoreRunning(socket: string, desktop: boolean, ref: string): Promise<LiveRestoreOutcome | null> {
  const call = (method: 'GET' | 'POST', path: string, body?: unknown) => ownerCall(socket, method, path, body, undefined, desktop).catch((err: unknown) => {
    if (err instanceof ServerUnreachableError) return null
    throw err
  })
  const asked = await call('POST', '/admin/backups/restore', { backup: (existsSync(ref) ? resolve(ref) : ref) })
  if (asked === null) return null
  const { restore_id: id } = ownerBody(asked, 'lookout backup restore') as { restore_id: string }
  // The service stops, restores and starts again: no answer, 503, then the outcome of this request.
  const deadline = Date.now() + LIVE_RESTORE_WAIT_MS
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250))
    const r = await call('GET', '/admin/backups/restore').catch(() => null)
    const last = r?.status === 200 ? (r.body as { last: LiveRestoreOutcome | null }).last : null
    if (last?.restore_id === id) return last
  }
  throw new ServerUnreachableError(`the service did not come back within ${LIVE_RESTORE_WAIT_MS / 1000} s of the restore: see its output`)
}

export async function backupCommand(args: string[]): Promise<number> {
  const [verb, ...rest] = args
  const { values, positionals } = parseArgs({
    args: rest, allowPositionals: true,
    options: { desktop: { type: 'boolean' }, socket: { type: 'string' }, 'data-dir': { type: 'string' }, force: { type: 'boolean' } },
  })
  const desktop = values.desktop === true || values.socket !== undefined
  const dataDir = values['data-dir'] ?? (values.desktop === true ? desktopPaths().dataDir : undefined)
  const config = loadConfig(dataDir === undefined ? process.env : { ...process.env, LOOKOUT_DATA_DIR: dataDir })
  const print = (v: unknown) => process.stdout.write(JSON.stringify(v, null, 2) + '\n')
  if (verb === 'create') {
    if (desktop) {
      print(ownerBody(await ownerCall(values.socket ?? desktopPaths().socketPath, 'POST', '/admin/backups'), 'lookout backup create'))
      return 0
    }
    const r = await callAdmin(config.dataDir, 'POST', '/admin/backups')
    if (r === null) throw new ServerUnreachableError(`no service runs on ${config.dataDir} (no admin socket): start it, or restore/list offline`)
    print(r)
    return 0
  }
  if (verb === 'list') {
    for (const m of listBackups(config.dataDir)) process.stdout.write(`${m.id}\t${m.created_at}\t${m.bytes} bytes\t${m.logs.rows} log rows\n`)
    return 0
  }
  if (verb === 'restore') {
    const ref = positionals[0]
    if (ref === undefined) throw new UsageError(`lookout backup restore needs the backup's id or path\n\n${BACKUP_USAGE}`)
    // A running service restores itself (deploy/backup-live.ts); else the data directory is restored here.
    const socket = values.socket ?? (values.desktop === true ? desktopPaths().socketPath : adminSocketPath(config.dataDir))
    const live = await restoreRunning(socket, desktop, ref)
    if (live !== null) {
      print(live)
      return live.ok ? 0 : 1
    }
    print(await restoreBackup(config, ref, values.force === true))
    return 0
  }
  throw new UsageError(`unknown command backup ${verb ?? ''}\n\n${BACKUP_USAGE}`)
}
