// `lookout backup create|list|restore` (deploy/backup.ts, deploy/backup-restore.ts).
// create asks the running service over its owner socket (the desktop's with
// --desktop, else the admin socket of LOOKOUT_DATA_DIR); list reads the data
// directory; restore runs here, on a stopped data directory.
import { parseArgs } from 'node:util'
import { desktopPaths } from '../desktop/index.ts'
import { callAdmin } from './admin.ts'
import { listBackups } from './backup.ts'
import { restoreBackup } from './backup-restore.ts'
import { loadConfig } from './config.ts'
import { ServerUnreachableError, UsageError } from './errors.ts'
import { ownerBody, ownerCall } from './owner-socket.ts'

export const BACKUP_USAGE = `lookout backup create [--desktop | --socket PATH]   a consistent backup of the running service's stores
  lookout backup list [--desktop | --data-dir DIR]       the backups of the data directory, newest first
  lookout backup restore ID|PATH [--desktop | --data-dir DIR] [--force]
                                                 restore into a stopped data directory (another machine's too)`

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
    print(await restoreBackup(config, ref, values.force === true))
    return 0
  }
  throw new UsageError(`unknown command backup ${verb ?? ''}\n\n${BACKUP_USAGE}`)
}
