// The forwarding queue: log rows accepted locally, waiting to be copied to a
// cloud workspace. Durable (PostgreSQL) and bounded by a running byte total
// kept in desktop_forward_state: an enqueue that would pass the bound is
// dropped whole and counted, and local ingestion never waits for it.
import type { Database, Sql } from '../core/index.ts'
import { encodeRows, readStoredRows, rowFormatOf, ROW_FORMATS } from '../ingest/index.ts'

/** The spec's bound: 16 MiB of queued rows. */
export const FORWARD_QUEUE_MAX_BYTES = 16 * 1024 * 1024
/** One queued batch is at most one cloud JSON batch: 1000 events (the cloud limit) and about 1 MiB. */
export const FORWARD_BATCH_MAX_EVENTS = 1000
export const FORWARD_BATCH_MAX_BYTES = 1024 * 1024

export interface QueuedBatch {
  id: string
  workspaceId: string
  resourceId: string
  events: number
  bytes: number
  rows: Uint8Array
  attempts: number
  nextAttemptAt: number
}

export interface ForwardState {
  queued_bytes: number
  queued_batches: number
  dropped_batches: number
  dropped_events: number
  forwarded_batches: number
  forwarded_events: number
  rejected_batches: number
  rejected_events: number
  last_error: string | null
  last_error_at: string | null
  last_success_at: string | null
}

interface Piece {
  /** The piece's rows, in the format they came in. */
  rows: Uint8Array
  events: number
}

/**
 * Cuts stored rows (ingest/rows/rows.ts) into pieces of at most maxEvents rows and
 * (unless one row is larger) maxBytes: lines are cut at line ends; Native
 * blocks are read and their rows written again as one block per piece.
 */
export function splitRows(rows: Uint8Array, maxEvents = FORWARD_BATCH_MAX_EVENTS, maxBytes = FORWARD_BATCH_MAX_BYTES): Piece[] {
  if (rows.byteLength === 0) return []
  if (rowFormatOf(rows) !== ROW_FORMATS.native) return splitLines(rows, maxEvents, maxBytes)
  const all = readStoredRows(rows)
  const pieces: Piece[] = []
  let start = 0
  while (start < all.length) {
    let count = Math.min(maxEvents, all.length - start)
    let block = encodeRows(all.slice(start, start + count))
    // Too large: halve the rows until it fits, or it is one row.
    while (block.byteLength > maxBytes && count > 1) {
      count = Math.ceil(count / 2)
      block = encodeRows(all.slice(start, start + count))
    }
    pieces.push({ rows: block, events: count })
    start += count
  }
  return pieces
}

function splitLines(rows: Uint8Array, maxEvents: number, maxBytes: number): Piece[] {
  const pieces: Piece[] = []
  const piece = (start: number, end: number, events: number) => ({ rows: rows.subarray(start, end), events })
  let start = 0
  let lineStart = 0
  let events = 0
  for (let i = 0; i < rows.length; i++) {
    if (rows[i] !== 0x0a) continue
    const lineEnd = i + 1
    if (events > 0 && (events === maxEvents || lineEnd - start > maxBytes)) {
      pieces.push(piece(start, lineStart, events))
      start = lineStart
      events = 0
    }
    events++
    lineStart = lineEnd
  }
  if (events > 0) pieces.push(piece(start, lineStart, events))
  return pieces
}

/** Queues the rows of one accepted request; false (and counted as dropped) when they do not fit under the bound. */
export async function enqueueRows(db: Database, workspaceId: string, resourceId: string, rows: Uint8Array, maxBytes: number): Promise<boolean> {
  const pieces = splitRows(rows)
  if (pieces.length === 0) return true
  let bytes = 0
  let events = 0
  for (const p of pieces) {
    bytes += p.rows.byteLength
    events += p.events
  }
  return db.transaction(async (tx) => {
    const room = await tx.query(
      `UPDATE desktop_forward_state SET queued_bytes = queued_bytes + $1, queued_batches = queued_batches + $2
       WHERE id = 1 AND queued_bytes + $1 <= $3 RETURNING queued_bytes`, [bytes, pieces.length, maxBytes])
    if (room.rowCount === 0) {
      await tx.query('UPDATE desktop_forward_state SET dropped_batches = dropped_batches + $1, dropped_events = dropped_events + $2 WHERE id = 1',
        [pieces.length, events])
      return false
    }
    const values: string[] = []
    const params: unknown[] = []
    for (const p of pieces) {
      const n = params.length
      values.push(`($${n + 1}, $${n + 2}, $${n + 3}, $${n + 4}, $${n + 5})`)
      params.push(workspaceId, resourceId, p.events, p.rows.byteLength, Buffer.from(p.rows.buffer, p.rows.byteOffset, p.rows.byteLength))
    }
    await tx.query(`INSERT INTO desktop_forward_queue (workspace_id, resource_id, events, bytes, rows) VALUES ${values.join(', ')}`, params)
    return true
  })
}

interface QueueRow {
  id: string | number
  workspace_id: string
  resource_id: string
  events: number
  bytes: number
  rows: Uint8Array
  attempts: number
  next_attempt_at: Date
}

/** The oldest queued batch (the queue is forwarded in order). */
export async function headOfQueue(db: Sql): Promise<QueuedBatch | null> {
  const r = await db.query<QueueRow>(
    'SELECT id, workspace_id, resource_id, events, bytes, rows, attempts, next_attempt_at FROM desktop_forward_queue ORDER BY id LIMIT 1')
  const row = r.rows[0]
  if (row === undefined) return null
  return {
    id: String(row.id),
    workspaceId: row.workspace_id,
    resourceId: row.resource_id,
    events: row.events,
    bytes: row.bytes,
    rows: row.rows,
    attempts: row.attempts,
    nextAttemptAt: new Date(row.next_attempt_at).getTime(),
  }
}

/** Removes a batch that was forwarded (or rejected for good) and frees its bytes. */
export async function settleBatch(db: Database, b: QueuedBatch, outcome: 'forwarded' | 'rejected', error?: string): Promise<void> {
  await db.transaction(async (tx) => {
    const d = await tx.query('DELETE FROM desktop_forward_queue WHERE id = $1', [b.id])
    if (d.rowCount === 0) return
    if (outcome === 'forwarded') {
      await tx.query(
        `UPDATE desktop_forward_state SET queued_bytes = queued_bytes - $1, queued_batches = queued_batches - 1,
           forwarded_batches = forwarded_batches + 1, forwarded_events = forwarded_events + $2, last_success_at = now()
         WHERE id = 1`, [b.bytes, b.events])
    } else {
      await tx.query(
        `UPDATE desktop_forward_state SET queued_bytes = queued_bytes - $1, queued_batches = queued_batches - 1,
           rejected_batches = rejected_batches + 1, rejected_events = rejected_events + $2, last_error = $3, last_error_at = now()
         WHERE id = 1`, [b.bytes, b.events, error ?? 'rejected'])
    }
  })
}

/** Leaves a batch at the head for another attempt after `delayMs`. */
export async function deferBatch(db: Database, b: QueuedBatch, error: string, delayMs: number): Promise<void> {
  await db.transaction(async (tx) => {
    await tx.query(
      `UPDATE desktop_forward_queue SET attempts = attempts + 1, last_error = $2,
         next_attempt_at = now() + ($3::int * interval '1 millisecond') WHERE id = $1`, [b.id, error, Math.round(delayMs)])
    await tx.query('UPDATE desktop_forward_state SET last_error = $1, last_error_at = now() WHERE id = 1', [error])
  })
}

/** Makes every queued batch due now (the target changed: try at once). */
export async function retryQueueNow(db: Sql): Promise<void> {
  await db.query('UPDATE desktop_forward_queue SET next_attempt_at = now() WHERE next_attempt_at > now()')
}

interface StateRow {
  queued_bytes: string | number
  queued_batches: number
  dropped_batches: string | number
  dropped_events: string | number
  forwarded_batches: string | number
  forwarded_events: string | number
  rejected_batches: string | number
  rejected_events: string | number
  last_error: string | null
  last_error_at: Date | null
  last_success_at: Date | null
}

const iso = (d: Date | null): string | null => (d === null ? null : new Date(d).toISOString())

export async function forwardState(db: Sql): Promise<ForwardState> {
  const r = await db.query<StateRow>('SELECT * FROM desktop_forward_state WHERE id = 1')
  const s = r.rows[0]
  if (s === undefined) throw new Error('desktop_forward_state has no row')
  return {
    queued_bytes: Number(s.queued_bytes),
    queued_batches: s.queued_batches,
    dropped_batches: Number(s.dropped_batches),
    dropped_events: Number(s.dropped_events),
    forwarded_batches: Number(s.forwarded_batches),
    forwarded_events: Number(s.forwarded_events),
    rejected_batches: Number(s.rejected_batches),
    rejected_events: Number(s.rejected_events),
    last_error: s.last_error,
    last_error_at: iso(s.last_error_at),
    last_success_at: iso(s.last_success_at),
  }
}
