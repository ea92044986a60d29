// What the loader reads off a row message: its row count, its id, whether rows were left out.
import type { JsMsg } from '@nats-io/jetstream'
import { HEADER_ROWS } from '../broker/broker.ts'
import { countStoredRows } from '../rows/rows-read.ts'

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
