// The event id the routes show. A row stored under a derived id (ingest's
// isDerivedEventId) shows it with the line's time in front: 16 hex digits of the
// timestamp (ns, big-endian, so such ids sort by time), 48 digits in all. The time
// costs nothing stored (the row has it) and lets the id alone find its line
// through the primary key (context.ts). A sender's own id shows as given.
import { isDerivedEventId } from '../ingest/index.ts'

const SHOWN = /^[0-9a-f]{48}$/

/** The id a route shows for a stored row. */
export function shownEventId(eventId: string, batchId: string, timestampNs: bigint): string {
  if (!isDerivedEventId(eventId, batchId)) return eventId
  return BigInt.asUintN(64, timestampNs).toString(16).padStart(16, '0') + eventId
}

/**
 * The time and stored id a shown derived id names; null for any other id (a
 * sender's own, one shown before ids carried the time). A sender's id of the
 * same form names no time of ours: a reader takes it as a hint and checks the row.
 */
export function parseShownEventId(id: string): { atNs: bigint; storedId: string } | null {
  if (!SHOWN.test(id)) return null
  return { atNs: BigInt.asIntN(64, BigInt('0x' + id.slice(0, 16))), storedId: id.slice(16) }
}
