// Coded errors of the collector stage (the agent prints them and exits).
import createError from '@fastify/error'

export const CredentialRefusedError = createError<'LOOKOUT_COLLECTOR_CREDENTIAL_REFUSED', 401, [string]>(
  'LOOKOUT_COLLECTOR_CREDENTIAL_REFUSED', 'The Lookout API refused the collector credential (%s): the source was revoked or the token is wrong', 401)
export const DataDirError = createError<'LOOKOUT_COLLECTOR_DATA_DIR', 500, [string]>(
  'LOOKOUT_COLLECTOR_DATA_DIR', 'The collector data directory cannot be used: %s', 500)
/** The command line is not understood: the deploy stage's code, so `lookout` exits 2 for either. */
export const CollectorUsageError = createError<'LOOKOUT_USAGE', 500, [string]>('LOOKOUT_USAGE', '%s', 500)

/** Error codes of `lookout collector` (documented in README.md). */
export const COLLECTOR_ERROR_CODES = {
  LOOKOUT_COLLECTOR_CREDENTIAL_REFUSED: 'the API answered 401 to the collector credential (source revoked, token wrong): the collector stops probing and exits 3; its buffer is kept',
  LOOKOUT_USAGE: '`lookout collector` did not understand its command line (exit status 2)',
  LOOKOUT_COLLECTOR_DATA_DIR: 'the collector data directory cannot be created, locked (another collector runs on it) or written',
} as const
