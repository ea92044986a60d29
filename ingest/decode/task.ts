// The message between the API thread and a decoder worker.
import type { ChunkSpan } from '../rows/rows.ts'
import type { Issue } from '../../core/index.ts'

export const INGEST_ROUTES = { json: 'json', otlp: 'otlp', legacy: 'legacy' } as const
export type IngestRoute = (typeof INGEST_ROUTES)[keyof typeof INGEST_ROUTES]

export interface DecodeTask {
  route: IngestRoute
  /** 'protobuf' only on the OTLP route. */
  format: 'json' | 'protobuf'
  gzip: boolean
  /** The request body as received; its buffer is transferred to the worker. */
  body: Uint8Array
  workspaceId: string
  /** From the path; '' on the legacy route, whose body names it. */
  resourceId: string
  receivedNs: string
  minTimeNs: bigint
  maxTimeNs: bigint
  maxDecompressedBytes: number
  maxChunkBytes: number
  /** Largest broker message; a chunk over it fails the request with 413. */
  maxMessageBytes: number
  /** The request's Idempotency-Key header, '' without one (identity.ts). */
  idempotencyKey: string
}

export interface DecodeSuccess {
  ok: true
  accepted: number
  rejected: number
  errorMessage: string
  resourceId: string
  /** Every chunk's bytes in one transferred buffer. */
  data: Uint8Array
  chunks: ChunkSpan[]
  /** Caller event ids (legacy route only), for per-resource deduplication. */
  eventIds: string[]
  /** SHA-256 of route, target and body (identity.ts): what an Idempotency-Key is bound to. */
  contentHash: string
  /** Bytes the body inflated to (0 when it was not compressed): memory the request cost. */
  inflatedBytes: number
  /** Records that took the receive time. */
  unstamped: number
}

export const FAILURE_KINDS = {
  malformed: 'malformed',
  invalid: 'invalid',
  tooLarge: 'tooLarge',
} as const
export type FailureKind = (typeof FAILURE_KINDS)[keyof typeof FAILURE_KINDS]

export interface DecodeFailure {
  ok: false
  kind: FailureKind
  message: string
  issues: Issue[]
}

export type DecodeOutcome = DecodeSuccess | DecodeFailure
