// What the loader reads off a row message: its row count, its id, whether rows were left out.
import type { JsMsg } from '@nats-io/jetstream'
import { HEADER_ROWS } from '../broker/broker.ts'
import { countStoredRows } from '../rows/rows-read.ts'

/** Spare room in a message's buffer past which the loader keeps a copy instead (a socket read is 64 KiB). */
const SPARE_BYTES = 64 * 1024

/**
 * Lets the loader hold a message's bytes without the buffer they arrived in. nats.js (3.4)
 * gathers a message that spans socket reads in a buffer that doubles as it grows and hands
 * out a view of it, so a row message of 0.6 MiB kept 1.75x its size alive over a bench/e2e
 * batch (bench/e2e README, "issue 35's peak"). Under a backlog the loader holds two full
 * batches (one loading, the next pulled meanwhile): with a copy of the message alone, the
 * bound on a batch's bytes (LOOKOUT_LOADER_MAX_BYTES) is a bound on its memory, and the
 * oversized buffer, just allocated, goes in the next young-generation GC. Small messages
 * sharing one socket read are left as they are (no copy per message). Reaches into the
 * message's private field: test/ingest/handed-out-twice.test.ts fails if nats.js changes it.
 */
export function compactPayload(m: JsMsg): void {
  const inner = (m as unknown as { msg?: { _rdata?: unknown } }).msg
  const raw = inner?._rdata
  if (inner === undefined || !(raw instanceof Uint8Array) || raw.buffer.byteLength - raw.byteLength <= SPARE_BYTES) return
  inner._rdata = raw.slice()
}

export function rowsOf(m: JsMsg): number {
  return Number(m.headers?.get(HEADER_ROWS) ?? 0) || countStoredRows(m.data)
}

export function msgIdOf(m: JsMsg): string {
  return m.headers?.get('Nats-Msg-Id') ?? ''
}

/** Whether rows were left out of this message's payload. */
export function trimmed(m: JsMsg, bodies: Map<JsMsg, Uint8Array>): boolean {
  const b = bodies.get(m)
  return b !== undefined && b.byteLength !== m.data.byteLength
}
