// The size cap on stored logs: drops whole daily partitions, oldest first,
// until the table fits. (The time limit is the table's TTL, see schema.ts.)
import type { LogStore } from './store.ts'
import { isWaiting } from './embedded-store.ts'

export interface SizeCapResult {
  bytesBefore: number
  bytesAfter: number
  droppedPartitions: string[]
}

export async function enforceSizeCap(store: LogStore, maxBytes: number, table = 'logs'): Promise<SizeCapResult> {
  // An engine that was never needed holds no logs: nothing to cap, and no reason to start it.
  if (isWaiting(store)) return { bytesBefore: 0, bytesAfter: 0, droppedPartitions: [] }
  const db = store.database
  const parts = await store.query<{ partition: string; bytes: string }>(
    `SELECT partition, sum(bytes_on_disk) AS bytes FROM system.parts
     WHERE database = {db:String} AND table = {t:String} AND active
     GROUP BY partition ORDER BY partition`, { db, t: table })
  let total = 0
  for (const p of parts.rows) total += Number(p.bytes)
  const before = total
  const dropped: string[] = []
  // The newest partition is kept even over the cap: it holds what is arriving now.
  for (let i = 0; i < parts.rows.length - 1 && total > maxBytes; i++) {
    const p = parts.rows[i] as { partition: string; bytes: string }
    await store.command(`ALTER TABLE ${db}.${table} DROP PARTITION {p:String}`, { p: p.partition })
    total -= Number(p.bytes)
    dropped.push(p.partition)
  }
  return { bytesBefore: before, bytesAfter: total, droppedPartitions: dropped }
}

/** Runs the size cap periodically; returns a function that stops it. */
export function scheduleSizeCap(store: LogStore, maxBytes: number, everyMs: number, onError: (err: unknown) => void): () => void {
  let busy = false
  const timer = setInterval(() => {
    if (busy) return
    busy = true
    enforceSizeCap(store, maxBytes).catch(onError).finally(() => {
      busy = false
    })
  }, everyMs)
  timer.unref()
  return () => clearInterval(timer)
}
