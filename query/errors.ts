// Coded errors of the query stage; the api edge renders them in each contract's shape.
import createError from '@fastify/error'

export const TailUnavailableError = createError<'LOOKOUT_TAIL_UNAVAILABLE', 503, [string]>(
  'LOOKOUT_TAIL_UNAVAILABLE', 'The live tail is unavailable: %s', 503)
export const TailBusyError = createError<'LOOKOUT_TAIL_BUSY', 503, [number]>(
  'LOOKOUT_TAIL_BUSY', 'Too many live tails are open (at most %s); retry later', 503)

/** Every code this stage can raise, with what it means (documented in query/README.md). */
export const QUERY_ERROR_CODES = {
  LOOKOUT_TAIL_UNAVAILABLE: 'this process has no broker connection to tail from (503)',
  LOOKOUT_TAIL_BUSY: 'the process already serves its maximum of live tails (503, Retry-After)',
} as const
export type QueryErrorCode = keyof typeof QUERY_ERROR_CODES
