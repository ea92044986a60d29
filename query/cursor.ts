// Page cursors: the position of the last event returned (keyset, no OFFSET),
// bound to the query's filters, and a hint of how wide the next page's first
// time window should be. Signed by the caller's codec, so tampering shows.
import { filterDigest, type LogFilter, type Position } from './filters.ts'

/** Signs and checks opaque cursors (core/cursor.ts's CursorCodec has this shape). */
export interface CursorSigner {
  encode(kind: string, values: readonly unknown[]): string
  /** The values, or null when the cursor is malformed, forged or of another kind. */
  decode(kind: string, cursor: string): unknown[] | null
}

export interface PageCursor {
  after: Position
  /** Suggested width (ns) of the next page's first window. */
  hintNs: bigint
}

const KIND = 'logs'
const VERSION = 1
const NS_RE = /^-?\d{1,19}$/
const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

export function encodeCursor(signer: CursorSigner, f: LogFilter, c: PageCursor): string {
  return signer.encode(KIND, [VERSION, filterDigest(f), c.after.tsNs.toString(), c.after.eventId, c.after.resourceId, c.hintNs.toString()])
}

/** The cursor's position, or null when it is not a valid cursor of this very query. */
export function decodeCursor(signer: CursorSigner, f: LogFilter, cursor: string): PageCursor | null {
  const v = signer.decode(KIND, cursor)
  if (v === null || v.length !== 6) return null
  const [version, digest, ts, eventId, resourceId, hint] = v
  if (version !== VERSION || digest !== filterDigest(f)) return null
  if (typeof ts !== 'string' || !NS_RE.test(ts) || typeof hint !== 'string' || !NS_RE.test(hint)) return null
  if (typeof eventId !== 'string' || eventId.length > 512 || typeof resourceId !== 'string' || !UUID_RE.test(resourceId)) return null
  return { after: { tsNs: BigInt(ts), eventId, resourceId }, hintNs: BigInt(hint) }
}
