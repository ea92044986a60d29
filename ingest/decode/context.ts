// What every decoder gets besides the bytes: the accepted time window and the
// reusable per-record scratch fields.
import type { RowFields } from '../rows/rows.ts'

export interface DecodeContext {
  /** Records with an event time before this (ns since epoch) are rejected. */
  minTimeNs: bigint
  /** Records with an event time after this (ns since epoch) are rejected. */
  maxTimeNs: bigint
  /** Receive time of the request, ns since epoch, decimal; used when a record has no time. */
  receivedNs: string
  /** Longest accepted message (body) in UTF-16 code units. */
  maxMessageLength: number
  /** Reused scratch record: decoders fill it and hand it to RowWriter.write. */
  fields: RowFields
  /** Records written without a sender time (they took the receive time): decoders count them. */
  unstamped: number
}

/** Outcome of decoding an OTLP export request. */
export interface OtlpDecodeResult {
  accepted: number
  rejected: number
  /** Why records were rejected (first reason, with a count), '' when none were. */
  errorMessage: string
}
