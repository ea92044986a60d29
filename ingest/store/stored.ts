// What the log store already holds, as the loader asks it before loading a
// redelivered message. In the cluster layout every replica is asked
// (clusterAllReplicas over logs_local, a down replica skipped) and the most
// complete answer wins: a replica that has not fetched a part yet must not
// hide an insert, or a redelivered batch would be loaded twice.
import type { LogStore } from './store.ts'

function rowsOf(store: LogStore, columns: string, where: string): string {
  return store.cluster === null
    ? `SELECT ${columns} FROM ${store.database}.logs WHERE ${where}`
    : `SELECT hostName() AS replica, ${columns} FROM clusterAllReplicas('${store.cluster}', ${store.database}.logs_local) WHERE ${where}`
}

function settings(store: LogStore): string {
  return store.cluster === null ? '' : ' SETTINGS skip_unavailable_shards = 1'
}

/**
 * Receive times (ns, decimal text) the rows looked for carry: a message's rows
 * all carry its request's receive time, so a lookup reads only the granules
 * of that time (the minmax index on received_at), not the whole retention.
 */
export interface ReceivedRange {
  lo: string
  hi: string
}

function batchWhere(range: ReceivedRange | null): string {
  const ids = 'batch_id IN {ids:Array(String)}'
  return range === null ? ids : `received_at >= fromUnixTimestamp64Nano({lo:Int64}) AND received_at <= fromUnixTimestamp64Nano({hi:Int64}) AND ${ids}`
}

/** Rows stored per batch id (message id); ids with no row are absent. */
export async function storedBatchRows(store: LogStore, batchIds: readonly string[], range: ReceivedRange | null = null): Promise<Map<string, number>> {
  if (batchIds.length === 0) return new Map()
  const where = batchWhere(range)
  const sql = store.cluster === null
    ? `${rowsOf(store, 'batch_id, count() AS n', where)} GROUP BY batch_id`
    : `SELECT batch_id, max(n) AS n FROM (${rowsOf(store, 'batch_id, count() AS n', where)} GROUP BY replica, batch_id) GROUP BY batch_id`
  const r = await store.query<{ batch_id: string; n: string | number }>(sql + settings(store), { ids: batchIds, ...range })
  return new Map(r.rows.map((row) => [row.batch_id, Number(row.n)]))
}

/** Event ids stored under these batch ids (the rows of a batch stored in part). */
export async function storedEventIds(store: LogStore, batchIds: readonly string[], range: ReceivedRange | null = null): Promise<Set<string>> {
  if (batchIds.length === 0) return new Set()
  const r = await store.query<{ event_id: string }>(
    `SELECT DISTINCT event_id FROM (${rowsOf(store, 'event_id', batchWhere(range))})${settings(store)}`, { ids: batchIds, ...range })
  return new Set(r.rows.map((row) => row.event_id))
}

/** Which of these event ids the resource already has stored. */
export async function knownEventIds(store: LogStore, resourceId: string, eventIds: readonly string[]): Promise<Set<string>> {
  if (eventIds.length === 0) return new Set()
  const r = await store.query<{ event_id: string }>(
    `SELECT DISTINCT event_id FROM (${rowsOf(store, 'event_id', 'resource_id = {rid:UUID} AND event_id IN {ids:Array(String)}')})${settings(store)}`,
    { rid: resourceId, ids: eventIds })
  return new Set(r.rows.map((row) => row.event_id))
}
