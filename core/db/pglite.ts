// PGlite: PostgreSQL compiled to WebAssembly, in this process, on a data directory.
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { dropTemplate, pruneTemplates, readTemplate, saveTemplate, unpackTemplate } from './pglite-template.ts'
import { migrate, type MigrationSet } from './migrate.ts'
import { PGLITE_START_PARAMS } from './pglite-settings.ts'
import { PreparedTexts } from './pglite-prepared.ts'
import type { Database, ListenHandlers, QueryOptions, Sql, SqlResult } from './sql.ts'

function wrap(q: { query: PGlite['query']; exec: PGlite['exec'] }, prepared: PreparedTexts, inTransaction: boolean): Sql {
  return {
    async exec(text: string): Promise<void> {
      await q.exec(text)
    },
    async query<T>(text: string, params?: unknown[], options?: QueryOptions): Promise<SqlResult<T>> {
      const r = (options?.prepared === true ? await prepared.run<T>(q, text, params ?? [], inTransaction) : undefined)
        ?? await q.query<T>(text, params as unknown[])
      return { rows: r.rows, rowCount: r.affectedRows ?? r.rows.length }
    },
  }
}

export interface PgliteOptions {
  /** A private directory keeping an initialized cluster for fresh data directories (pglite-template.ts); absent: initdb each time. */
  templateDir?: string
  /** A new data directory made from this tarball (dumpDataDir; a backup's restore). */
  loadDataDir?: Blob
  /**
   * With `templateDir`: a fresh directory gets these migrations applied, from a
   * kept migrated cluster when one matches them (the caller's own migrate() then
   * finds nothing to do). Its rows made by migrations carry the template's time.
   */
  migrations?: readonly MigrationSet[]
}

export async function openPglite(dataDir: string, options: PgliteOptions = {}): Promise<Database> {
  const { templateDir, migrations } = options
  if (options.loadDataDir !== undefined) return wrapDatabase(await PGlite.create(dataDir, { loadDataDir: options.loadDataDir, startParams: [...PGLITE_START_PARAMS] }))
  const kind = templateDir !== undefined && migrations !== undefined && !existsSync(join(dataDir, 'PG_VERSION')) ? migratedKind(migrations) : undefined
  const migrated = kind === undefined ? null : await fromTemplate(dataDir, templateDir as string, kind)
  if (migrated !== null) return wrapDatabase(migrated)
  const pg = await createPglite(dataDir, templateDir)
  const db = wrapDatabase(pg)
  if (kind !== undefined) {
    await migrate(db, migrations as readonly MigrationSet[])
    // Best effort, as for the initdb template.
    await db.exec('CHECKPOINT').then(() => saveTemplate(pg, templateDir as string, kind)).then(() => pruneTemplates(templateDir as string, 'm-', 3)).catch(() => undefined)
  }
  return db
}

/** The template name of a cluster with these migrations: a digest of every set's stage, versions and SQL. */
function migratedKind(sets: readonly MigrationSet[]): string {
  const h = createHash('sha256')
  for (const set of sets) for (const m of set.migrations) h.update(`${set.stage}\0${m.version}\0${m.name}\0${m.sql}\0`)
  return `m-${h.digest('hex').slice(0, 16)}`
}

function wrapDatabase(db: PGlite): Database {
  const prepared = new PreparedTexts()
  const base = wrap(db, prepared, false)
  return {
    embedded: true,
    query: base.query,
    exec: base.exec,
    transaction: <T>(fn: (tx: Sql) => Promise<T>) => db.transaction((tx) => fn(wrap(tx, prepared, true))),
    close: () => db.close(),
    async dumpDataDir() {
      await db.exec('CHECKPOINT')
      // PGlite takes its query lock for the dump: no statement runs while the files are read.
      return Buffer.from(await (await db.dumpDataDir('gzip')).arrayBuffer())
    },
    // In this process: a notification cannot be lost between the engine and us.
    async listen(channel: string, handlers: ListenHandlers): Promise<() => Promise<void>> {
      const stop = await db.listen(channel, (payload) => handlers.onPayload(payload))
      handlers.onListening()
      return () => stop()
    },
  }
}

/** A fresh directory made from the `kind` template; null when there is none (or it would not load: then it is dropped). */
async function fromTemplate(dataDir: string, templateDir: string, kind?: string): Promise<PGlite | null> {
  mkdirSync(dataDir, { recursive: true, mode: 0o700 })
  // None, damaged or unsafe: the slow way, and a good template replaces a damaged one.
  const template = readTemplate(templateDir, kind)
  if (template === null) return null
  try {
    unpackTemplate(template, dataDir)
    return await PGlite.create(dataDir, { startParams: [...PGLITE_START_PARAMS] })
  } catch {
    // No usable tar here: PGlite unpacks it itself.
    emptyDir(dataDir)
  }
  try {
    return await PGlite.create(dataDir, { loadDataDir: new Blob([template as Uint8Array<ArrayBuffer>]), startParams: [...PGLITE_START_PARAMS] })
  } catch {
    // A template this PGlite cannot load: forget it and make the directory the slow way.
    dropTemplate(templateDir, kind)
    emptyDir(dataDir)
    return null
  }
}

function emptyDir(dir: string): void {
  for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true })
}

async function createPglite(dataDir: string, templateDir: string | undefined): Promise<PGlite> {
  if (templateDir === undefined || existsSync(join(dataDir, 'PG_VERSION'))) return PGlite.create(dataDir, { startParams: [...PGLITE_START_PARAMS] })
  const copy = await fromTemplate(dataDir, templateDir)
  if (copy !== null) return copy
  const db = await PGlite.create(dataDir, { startParams: [...PGLITE_START_PARAMS] })
  // Best effort: a start must not fail because the cache could not be written.
  await saveTemplate(db, templateDir).catch(() => undefined)
  return db
}
