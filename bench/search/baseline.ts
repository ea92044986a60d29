// The statements a shape ran before issue 34's speed round, kept as the raw
// baseline of bench/search (its `raw` column replays them), so the ratio
// HTTP / raw shows the gain of the new statements in the same run.
import type { LogStore, QueryParams } from '../../ingest/index.ts'
import { EVENT_COLUMNS, filterConditions, LogSearch, type LogFilter } from '../../query/internal.ts'

const MS = 1_000_000n
const DAY = 86_400_000n * MS
const MINUTE = 60_000n * MS

/**
 * Context before the round (five statements on the bench set): the event by id, the
 * older side as a search page continued from it (a 1-minute first window), the newer
 * side through forward windows of 1 minute, then 8x wider each.
 */
export async function contextBefore(store: LogStore, search: LogSearch, ws: string, rid: string, eventId: string, before: number, after: number): Promise<void> {
  const filter: LogFilter = { workspaceId: ws, resourceIds: [rid], startNs: null, endNs: null, minSeverity: null, text: null, traceId: null }
  const params: QueryParams = { eid: eventId }
  const found = await store.query<{ timestamp_ns: string }>(
    `SELECT ${EVENT_COLUMNS} FROM ${store.database}.logs WHERE ${filterConditions(filter, params).join(' AND ')} AND event_id = {eid:String} ORDER BY timestamp DESC LIMIT 1`, params)
  const ts = BigInt((found.rows[0] as { timestamp_ns: string }).timestamp_ns)
  await search.page({ filter, limit: before, after: { tsNs: ts, eventId, resourceId: rid }, hintNs: MINUTE })
  const ceiling = BigInt(Date.now()) * MS + DAY
  let got = 0
  let lo = ts
  for (let span = MINUTE, first = true; ; span *= 8n, first = false) {
    const hi = lo + span >= ceiling ? null : lo + span
    const p: QueryParams = { lo: lo.toString(), limit: after + 1 - got, a_ts: ts.toString(), a_eid: eventId }
    const where = filterConditions(filter, p)
    where.push('timestamp >= fromUnixTimestamp64Nano({lo:Int64})')
    if (hi !== null) {
      where.push('timestamp < fromUnixTimestamp64Nano({hi:Int64})')
      p.hi = hi.toString()
    }
    if (first) where.push('(timestamp > fromUnixTimestamp64Nano({a_ts:Int64}) OR event_id > {a_eid:String})')
    const r = await store.query(`SELECT ${EVENT_COLUMNS} FROM ${store.database}.logs WHERE ${where.join(' AND ')} ORDER BY timestamp, event_id LIMIT {limit:UInt32}`, p)
    got += r.rows.length
    if (got > after || hi === null) return
    lo = hi
  }
}
