// What the loader reads off a row message: its row count, its id, whether rows were left out.
import type { JsMsg } from '@nats-io/jetstream'
import { HEADER_ROWS } from '../broker/broker.ts'
import { countStoredRows } from '../rows/rows-read.ts'

/** Spare room in a message's buffer past which the loader keeps a copy instead (a socket read is 64 KiB). */
const SPARE_BYTES = 64 * 1024
/** The bytes the loader copied for a message (compactPayload): a buffer of the loader's alone. */
const OWNED = new WeakMap<JsMsg, Uint8Array>()
/** What a released message's bytes read as. */
const RELEASED = new Uint8Array(0)

/** The message's private record of its bytes (headers and payload), where nats.js keeps it. */
function innerOf(m: JsMsg): { _rdata?: unknown } | undefined {
  return (m as unknown as { msg?: { _rdata?: unknown } }).msg
}

/**
 * Lets the loader hold a message's bytes without the buffer they arrived in. nats.js (3.4)
 * gathers a message that spans socket reads in a buffer that doubles as it grows and hands
 * out a view of it, so a row message of 0.6 MiB kept 1.75x its size alive over a bench/e2e
 * batch (bench/e2e README, "issue 35's peak"). Under a backlog the loader holds two full
 * batches (one loading, the next pulled meanwhile): with a copy of the message alone, the
 * bound on a batch's bytes (LOOKOUT_LOADER_MAX_BYTES) is a bound on its memory. Small
 * messages sharing one socket read are left as they are (no copy per message). Reaches into
 * the message's private field: test/ingest/handed-out-twice.test.ts fails if nats.js changes it.
 */
export function compactPayload(m: JsMsg): void {
  const inner = innerOf(m)
  const raw = inner?._rdata
  if (inner === undefined || !(raw instanceof Uint8Array) || raw.buffer.byteLength - raw.byteLength <= SPARE_BYTES) return
  const own = raw.slice()
  inner._rdata = own
  OWNED.set(m, own)
}

/**
 * Frees a loaded and acknowledged message's bytes now (its copy from compactPayload), not at
 * V8's next full GC: the loader moves 0.6 KB a row through the main thread, and buffers left
 * for the GC piled up to 150 MiB past what was live (V8 lets garbage grow to half of the live
 * heap and buffers). Its data reads as empty afterwards (its headers were read when pulled).
 */
export function releasePayload(m: JsMsg): void {
  const own = OWNED.get(m)
  const inner = innerOf(m)
  if (own === undefined || inner === undefined) return
  OWNED.delete(m)
  inner._rdata = RELEASED
  const buffer = own.buffer
  if (buffer instanceof ArrayBuffer && !buffer.detached) buffer.transfer(0)
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
