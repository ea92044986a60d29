// The bytes of one insert: one buffer, or the pieces it is made of (the loader's
// message payloads, in order). Pieces are not copied into one buffer first: the
// embedded engine reads them from a file written piece by piece, and a server
// gets them as a stream; a contiguous copy cost the loader a kept buffer of up to
// 1.25x LOOKOUT_LOADER_MAX_BYTES at peak (bench/memory README).
export type RowBody = Uint8Array | readonly Uint8Array[]

/** The pieces of `body` as Buffers over the same memory (no copy). */
export function rowBodyPieces(body: RowBody): Buffer[] {
  const pieces = body instanceof Uint8Array ? [body] : body
  return pieces.map((p) => Buffer.from(p.buffer, p.byteOffset, p.byteLength))
}

/** `body` as one buffer: a copy when it is in pieces (for the in-memory insert, which takes one). */
export function rowBodyWhole(body: RowBody): Uint8Array {
  return body instanceof Uint8Array ? body : Buffer.concat(body)
}

export function rowBodyBytes(body: RowBody): number {
  if (body instanceof Uint8Array) return body.byteLength
  let n = 0
  for (const p of body) n += p.byteLength
  return n
}
