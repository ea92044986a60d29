// The rows the loader inserts, made as the pipeline makes them (the OTLP
// decoder and RowWriter, Native blocks), and a scratch store to insert
// them into: the engine benchmarks measure the product's bytes in the
// product's schema, not rows the engine generates.
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { decodeOtlpProtobuf, EmbeddedStore, engineArgs, migrateLogStore, newRowFields, openLogStore, RowWriter, type LogStore } from '../../ingest/internal.ts'
import { encodeProtobuf, makeRecords } from './traffic.ts'

/** Requests 0..count-1 of the default traffic shape as stored-row bytes, request i received at receivedNs(i). */
export function storedRows(count: number, workspaceId: string, resourceId: string, receivedNs: (i: number) => string): Buffer[] {
  const fields = newRowFields()
  const out: Buffer[] = []
  for (let i = 0; i < count; i++) {
    const now = receivedNs(i)
    const w = new RowWriter(workspaceId, resourceId, i.toString(16).padStart(24, '0'), now, 64 * 1024 * 1024)
    decodeOtlpProtobuf(encodeProtobuf(makeRecords(i + 1)), w, { minTimeNs: 0n, maxTimeNs: 1n << 62n, receivedNs: now, maxMessageLength: 65536, fields, unstamped: 0 })
    out.push(Buffer.from(w.finish().data))
  }
  return out
}

/**
 * A chdb store in a new temporary directory (the caller removes it), with the product schema migrated;
 * `extraArgs` are engine arguments at start beside the product's (server settings, e.g. the merge pool).
 */
export async function scratchLogStore(prefix: string, extraArgs: string[] = []): Promise<{ dir: string; store: LogStore }> {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  const store = extraArgs.length === 0 ? openLogStore({ path: dir }) : new EmbeddedStore(dir, 'lookout', null, [...engineArgs(), ...extraArgs], false)
  await migrateLogStore(store, { retentionDays: 7 })
  return { dir, store }
}

/** Active parts of a table in the store's database, and their size on disk in bytes. */
export async function activePartsSize(store: LogStore, table: string): Promise<{ parts: number; bytes: number }> {
  const r = await store.query<{ c: string; b: string }>(`SELECT count() AS c, sum(bytes_on_disk) AS b FROM system.parts WHERE database = {db:String} AND table = {t:String} AND active`, { db: store.database, t: table })
  return { parts: Number(r.rows[0]?.c ?? 0), bytes: Number(r.rows[0]?.b ?? 0) }
}

/** Active parts of a table in the store's database. */
export async function activeParts(store: LogStore, table: string): Promise<number> {
  return (await activePartsSize(store, table)).parts
}
