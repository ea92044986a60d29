// What the loader reads off a row message: its row count, its id, its lines.
import type { JsMsg } from '@nats-io/jetstream'
import { HEADER_ROWS } from './broker.ts'

export function rowsOf(m: JsMsg): number {
  return Number(m.headers?.get(HEADER_ROWS) ?? 0) || countLines(m.data)
}

export function msgIdOf(m: JsMsg): string {
  return m.headers?.get('Nats-Msg-Id') ?? ''
}

export function countLines(b: Uint8Array): number {
  let n = 0
  for (let i = b.indexOf(10); i !== -1; i = b.indexOf(10, i + 1)) n++
  return n
}

/** Whether rows were left out of this message's payload. */
export function trimmed(m: JsMsg, bodies: Map<JsMsg, Uint8Array>): boolean {
  const b = bodies.get(m)
  return b !== undefined && b.byteLength !== m.data.byteLength
}
