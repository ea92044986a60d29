// Backups of a data directory while the service runs (owner-only: the owner
// socket's /admin/backups, `lookout backup create|list`), and their restore on a
// stopped data directory, here or on another machine (`lookout backup restore`).
//
// A backup is a directory `<data dir>/backups/<id>/` (0700):
//   manifest.json       what it holds, sizes, the cut, the time it took
//   logs.native.zst     the log store's rows (ClickHouse Native format, zstd)
//   postgres.tar.gz     the project store (PGlite's data directory, after a checkpoint)
//   secret.key          the sealing key of the data directory, when it has one (sealed secrets open with it)
// The cut: the broker's stream sequence is read first and the backup waits for the
// loaders to have acknowledged it, so every event accepted before the backup began
// is in the log store's copy (the broker holds nothing older; what arrives later is
// in neither). The project store is dumped after the logs, so each logged resource
// is in it.
import { randomBytes } from 'node:crypto'
import { chmodSync, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Database } from '../core/index.ts'
import { ConflictError } from '../core/index.ts'
import { EmbeddedStore, type Broker, type LogStore } from '../ingest/index.ts'
import { secretKeyPath } from './secret-key.ts'
import { BackupUnavailableError } from './errors.ts'

export const BACKUP_FORMAT = 'lookout-backup-1'
const FILES = { manifest: 'manifest.json', logs: 'logs.native.zst', postgres: 'postgres.tar.gz', key: 'secret.key' } as const
/** How long a backup waits for the loaders to catch up with the broker. */
const DRAIN_TIMEOUT_MS = 120_000

export interface BackupManifest {
  format: typeof BACKUP_FORMAT
  id: string
  created_at: string
  duration_ms: number
  bytes: number
  postgres: { file: string; bytes: number }
  logs: { file: string; rows: number; bytes: number }
  broker: { stream_last_seq: number; drained: true }
  secret_key: boolean
}

export interface BackupSources {
  dataDir: string
  db: Database
  store: LogStore
  broker: Broker
  /** Set when the process can restore while it runs (`lookout serve`, `lookout desktop`): deploy/backup-live.ts. */
  live?: { ask(ref: string): { restore_id: string; id: string }; go(): void }
}

export function backupsDir(dataDir: string): string {
  return join(dataDir, 'backups')
}

let running: Promise<unknown> | null = null

/** Whether this process is taking a backup now (a restore waits for it). */
export function backupRunning(): boolean {
  return running !== null
}

/** Takes a backup of the running service's stores; one at a time per process. */
export function createBackup(src: BackupSources): Promise<BackupManifest> {
  if (running !== null) throw new ConflictError('a backup is already being taken; retry when it is done')
  const p = takeBackup(src).finally(() => {
    running = null
  })
  running = p
  return p
}

async function takeBackup(src: BackupSources): Promise<BackupManifest> {
  if (src.db.dumpDataDir === undefined) throw new BackupUnavailableError('the project store is an external PostgreSQL (DATABASE_URL): back it up with pg_dump')
  if (!src.store.embedded) throw new BackupUnavailableError('the log store is a ClickHouse server (CLICKHOUSE_URL): back it up with its BACKUP command')
  const started = Date.now()
  const id = `${new Date(started).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${randomBytes(3).toString('hex')}`
  const root = backupsDir(src.dataDir)
  mkdirSync(root, { recursive: true, mode: 0o700 })
  const partial = join(root, `${id}.partial`)
  mkdirSync(partial, { mode: 0o700 })
  try {
    const lastSeq = await drain(src.broker)
    const logsPath = join(partial, FILES.logs)
    const rows = await exportLogs(src.store, logsPath)
    writeFileSync(join(partial, FILES.postgres), await src.db.dumpDataDir(), { mode: 0o600 })
    const key = secretKeyPath(src.dataDir)
    const hasKey = existsSync(key)
    if (hasKey) {
      copyFileSync(key, join(partial, FILES.key))
      chmodSync(join(partial, FILES.key), 0o600)
    }
    const size = (f: string) => (existsSync(join(partial, f)) ? statSync(join(partial, f)).size : 0)
    const manifest: BackupManifest = {
      format: BACKUP_FORMAT, id, created_at: new Date(started).toISOString(), duration_ms: Date.now() - started,
      bytes: size(FILES.logs) + size(FILES.postgres) + size(FILES.key),
      postgres: { file: FILES.postgres, bytes: size(FILES.postgres) },
      logs: { file: FILES.logs, rows, bytes: size(FILES.logs) },
      broker: { stream_last_seq: lastSeq, drained: true },
      secret_key: hasKey,
    }
    writeFileSync(join(partial, FILES.manifest), JSON.stringify(manifest, null, 2) + '\n', { mode: 0o600 })
    // Complete or absent: a crash leaves only a .partial directory, which list() skips.
    renameSync(partial, join(root, id))
    return manifest
  } catch (err) {
    rmSync(partial, { recursive: true, force: true })
    throw err
  }
}

/** Waits until the loaders acknowledged every message the stream held when the backup began. */
async function drain(broker: Broker): Promise<number> {
  const { lastSeq } = await broker.cut()
  const deadline = Date.now() + DRAIN_TIMEOUT_MS
  for (;;) {
    if ((await broker.cut()).ackFloor >= lastSeq) return lastSeq
    if (Date.now() > deadline) throw new BackupUnavailableError(`the loaders have not stored the accepted events within ${DRAIN_TIMEOUT_MS / 1000} s (is the loader role running?); retry`)
    await new Promise((r) => setTimeout(r, 100))
  }
}

async function exportLogs(store: LogStore, path: string): Promise<number> {
  // A service that never had logs has no engine yet: nothing to copy.
  if (store instanceof EmbeddedStore && store.waiting) return 0
  const file = path.replace(/'/g, "\\'")
  // One query: a snapshot of the table's parts as they were when it started.
  await store.command(`INSERT INTO FUNCTION file('${file}', 'Native') SELECT * FROM ${store.database}.logs`)
  // Counted in the file: rows inserted meanwhile are in the table, not in the copy.
  const n = await store.query<{ n: string }>(`SELECT count() AS n FROM file('${file}', 'Native')`)
  return Number(n.rows[0]?.n ?? 0)
}

/** The complete backups of a data directory, newest first. */
export function listBackups(dataDir: string): BackupManifest[] {
  const root = backupsDir(dataDir)
  if (!existsSync(root)) return []
  const out: BackupManifest[] = []
  for (const name of readdirSync(root)) {
    const m = join(root, name, FILES.manifest)
    if (name.endsWith('.partial') || !existsSync(m)) continue
    out.push(JSON.parse(readFileSync(m, 'utf8')) as BackupManifest)
  }
  return out.sort((a, b) => (a.created_at < b.created_at ? 1 : -1))
}

/** A backup named by id (in the data directory) or by its path (copied from elsewhere). */
export function readBackup(dataDir: string, ref: string): { dir: string; manifest: BackupManifest } {
  const dir = existsSync(join(ref, FILES.manifest)) ? resolve(ref) : join(backupsDir(dataDir), ref)
  const m = join(dir, FILES.manifest)
  if (!existsSync(m)) throw new Error(`no backup ${ref} (neither a directory holding ${FILES.manifest} nor an id in ${backupsDir(dataDir)})`)
  const manifest = JSON.parse(readFileSync(m, 'utf8')) as BackupManifest
  if (manifest.format !== BACKUP_FORMAT) throw new Error(`${dir} is not a backup this version reads (format ${String(manifest.format)})`)
  return { dir, manifest }
}

export const BACKUP_FILES = FILES
