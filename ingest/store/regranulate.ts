// The log table's granule size is fixed when the table is made (ClickHouse
// refuses to change index_granularity later), so an embedded store made before
// migration 7 is rebuilt once: a table like it with the new size takes every
// partition's parts as hard links (ATTACH PARTITION FROM: no copy, the old parts
// keep their granules until a merge rewrites them), then the two swap names.
// Safe to repeat: a run cut short leaves the spare table, which the next drops.
// The new table's insert-deduplication window starts empty; a message redelivered
// after the restart is still checked against the stored rows (loader-dedup.ts).
import type { LogStore } from './store-port.ts'

/** The spare table a rebuild fills before the swap. */
export const SPARE_TABLE = 'logs_regranulate'

const GRANULARITY = /index_granularity = (\d+)/

/** The statement that made `table` (SHOW CREATE TABLE). */
export async function createStatement(store: LogStore, table: string): Promise<string> {
  const r = await store.query<{ statement: string }>(`SHOW CREATE TABLE ${store.database}.${table}`)
  return r.rows[0]?.statement ?? ''
}

/** The granule size (rows) a table's statement gives it. */
export function granularityOf(create: string): number {
  const m = GRANULARITY.exec(create)
  if (m === null) throw new Error(`no index_granularity in: ${create.slice(0, 80)}`)
  return Number(m[1])
}

/** The granule size (rows) the table was made with. */
export async function tableGranularity(store: LogStore, table: string): Promise<number> {
  return granularityOf(await createStatement(store, table))
}

/** `create` (the statement of `logs`) for a twin named `name`, with granules of `rows`. */
export function twinStatement(create: string, db: string, name: string, rows: number): string {
  const twin = create.replace(`CREATE TABLE ${db}.logs`, `CREATE TABLE ${db}.${name}`).replace(GRANULARITY, `index_granularity = ${rows}`)
  if (!twin.includes(`${db}.${name}`)) throw new Error(`unexpected statement for ${db}.logs: ${create.slice(0, 80)}`)
  return twin
}

/**
 * Rebuilds `logs` with granules of `rows` unless it has them. Only for the
 * embedded engine, which this process alone writes (its preparation runs before
 * any insert); a ClickHouse server shared by several processes could take an
 * insert into the old table between the attach and the swap.
 */
export async function regranulate(store: LogStore, rows: number): Promise<boolean> {
  const db = store.database
  await store.command(`DROP TABLE IF EXISTS ${db}.${SPARE_TABLE} SYNC`)
  const create = await createStatement(store, 'logs')
  if (granularityOf(create) === rows) return false
  await store.command(twinStatement(create, db, SPARE_TABLE, rows))
  const parts = await store.query<{ id: string }>(
    `SELECT DISTINCT partition_id AS id FROM system.parts WHERE database = {db:String} AND table = 'logs' AND active`, { db })
  for (const { id } of parts.rows) {
    // Partition ids are the engine's own (digits of a date); the check keeps the literal plain.
    if (!/^\w+$/.test(id)) throw new Error(`unexpected partition id ${JSON.stringify(id)}`)
    await store.command(`ALTER TABLE ${db}.${SPARE_TABLE} ATTACH PARTITION ID '${id}' FROM ${db}.logs`)
  }
  await store.command(`EXCHANGE TABLES ${db}.logs AND ${db}.${SPARE_TABLE}`)
  await store.command(`DROP TABLE ${db}.${SPARE_TABLE} SYNC`)
  return true
}
