// PGlite: PostgreSQL compiled to WebAssembly, in this process, on a data directory.
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { dropTemplate, readTemplate, saveTemplate } from './pglite-template.ts'
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
}

export async function openPglite(dataDir: string, options: PgliteOptions = {}): Promise<Database> {
  const db = options.loadDataDir === undefined
    ? await createPglite(dataDir, options.templateDir)
    : await PGlite.create(dataDir, { loadDataDir: options.loadDataDir, startParams: [...PGLITE_START_PARAMS] })
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

async function createPglite(dataDir: string, templateDir: string | undefined): Promise<PGlite> {
  if (templateDir === undefined || existsSync(join(dataDir, 'PG_VERSION'))) return PGlite.create(dataDir, { startParams: [...PGLITE_START_PARAMS] })
  mkdirSync(dataDir, { recursive: true })
  // None, damaged or unsafe: the slow way, and a good template replaces a damaged one.
  const template = readTemplate(templateDir)
  if (template !== null) {
    try {
      return await PGlite.create(dataDir, { loadDataDir: template, startParams: [...PGLITE_START_PARAMS] })
    } catch {
      // A template this PGlite cannot load: forget it and make the directory the slow way.
      dropTemplate(templateDir)
      for (const f of readdirSync(dataDir)) rmSync(join(dataDir, f), { recursive: true, force: true })
    }
  }
  const db = await PGlite.create(dataDir, { startParams: [...PGLITE_START_PARAMS] })
  // Best effort: a start must not fail because the cache could not be written.
  await saveTemplate(db, templateDir).catch(() => undefined)
  return db
}
