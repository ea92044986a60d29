// Coded errors of the ingest stage. The api edge maps them to the contract's
// error bodies; the status codes here are the HTTP meaning of each code.
import createError from '@fastify/error'

export const MalformedPayloadError = createError<'LOOKOUT_INGEST_MALFORMED', 400, [string]>(
  'LOOKOUT_INGEST_MALFORMED', 'Malformed payload: %s', 400)
export const PayloadTooLargeError = createError<'LOOKOUT_INGEST_TOO_LARGE', 413, [string]>(
  'LOOKOUT_INGEST_TOO_LARGE', 'Payload too large: %s', 413)
export const UnsupportedMediaTypeError = createError<'LOOKOUT_INGEST_MEDIA_TYPE', 415, [string]>(
  'LOOKOUT_INGEST_MEDIA_TYPE', 'Unsupported content: %s', 415)
export const IngestOverloadedError = createError<'LOOKOUT_INGEST_OVERLOADED', 429, [string]>(
  'LOOKOUT_INGEST_OVERLOADED', 'Ingest is over capacity: %s', 429)
export const BrokerUnavailableError = createError<'LOOKOUT_INGEST_BROKER_UNAVAILABLE', 503, [string]>(
  'LOOKOUT_INGEST_BROKER_UNAVAILABLE', 'The durable buffer is unavailable: %s', 503)
export const DiskFullError = createError<'LOOKOUT_INGEST_DISK_FULL', 503, [string]>(
  'LOOKOUT_INGEST_DISK_FULL', 'The data directory is nearly full, nothing was accepted: %s', 503)
export const StorageUnavailableError = createError<'LOOKOUT_STORAGE_UNAVAILABLE', 503, [string]>(
  'LOOKOUT_STORAGE_UNAVAILABLE', 'Log storage is unavailable: %s', 503)
export const IdempotencyConflictError = createError<'LOOKOUT_INGEST_KEY_CONFLICT', 409, [string]>(
  'LOOKOUT_INGEST_KEY_CONFLICT', 'Idempotency-Key conflict: %s', 409)

/** Every code this stage can raise, with what it means (documented in README). */
export const INGEST_ERROR_CODES = {
  LOOKOUT_INGEST_MALFORMED: 'the body could not be decoded (bad protobuf, JSON, gzip or UTF-8)',
  LOOKOUT_INGEST_TOO_LARGE: 'the body, or its decompressed size, is over the configured limit',
  LOOKOUT_INGEST_MEDIA_TYPE: 'the Content-Type or Content-Encoding is not accepted on this route',
  LOOKOUT_INGEST_OVERLOADED: 'too many bytes are in flight; retry after the Retry-After delay',
  LOOKOUT_INGEST_BROKER_UNAVAILABLE: 'JetStream did not acknowledge; nothing was accepted, retry',
  LOOKOUT_INGEST_DISK_FULL: 'the data directory has less free space than its reserve; nothing was accepted, retry once space is freed',
  LOOKOUT_STORAGE_UNAVAILABLE: 'ClickHouse could not be reached',
  LOOKOUT_INGEST_KEY_CONFLICT: 'the Idempotency-Key was used with another body within the duplicate window',
} as const
export type IngestErrorCode = keyof typeof INGEST_ERROR_CODES
