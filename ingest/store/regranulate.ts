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

/** The granule size (rows) the table was made with. */
export async function tableGranularity(store: LogStore, table: string): Promise<number> {
  const r = await store.query<{ statement: string }>(`SHOW CREATE TABLE ${store.database}.${table}`)
  const m = GRANULARITY.exec(r.rows[0]?.statement ?? '')
  if (m === null) throw new Error(`${store.database}.${table} states no index_granularity`)
  return Number(m[1])
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
  if (await tableGranularity(store, 'logs') === rows) return false
  const create = (await store.query<{ statement: string }>(`SHOW CREATE TABLE ${db}.logs`)).rows[0]?.statement ?? ''
  const spare = create
    .replace(`CREATE TABLE ${db}.logs`, `CREATE TABLE ${db}.${SPARE_TABLE}`)
    .replace(GRANULARITY, `index_granularity = ${rows}`)
  if (!spare.includes(SPARE_TABLE)) throw new Error(`unexpected statement for ${db}.logs: ${create.slice(0, 80)}`)
  await store.command(spare)
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
