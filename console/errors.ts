// Coded errors of the console stage; the api edge renders them in each contract's shape.
import createError from '@fastify/error'

export const ConsoleCsrfError = createError<'LOOKOUT_CONSOLE_CSRF', 403, [string]>(
  'LOOKOUT_CONSOLE_CSRF', 'Refused a cookie-authenticated change: %s', 403)
export const ConsoleSignInError = createError<'LOOKOUT_CONSOLE_SIGNIN_INVALID', 401, [string]>(
  'LOOKOUT_CONSOLE_SIGNIN_INVALID', 'Sign-in refused: %s', 401)
export const ConsoleSessionError = createError<'LOOKOUT_CONSOLE_SESSION_INVALID', 401, [string]>(
  'LOOKOUT_CONSOLE_SESSION_INVALID', 'The console session has ended: %s', 401)
export const ConsoleNotBuiltError = createError<'LOOKOUT_CONSOLE_NOT_BUILT', 503, [string]>(
  'LOOKOUT_CONSOLE_NOT_BUILT', 'The console assets are not available: %s', 503)

/** Every code this stage can raise, with what it means (documented in README.md). */
export const CONSOLE_ERROR_CODES = {
  LOOKOUT_CONSOLE_CSRF: 'a change made with the console session cookie lacked the same-origin header or came from another origin (403)',
  LOOKOUT_CONSOLE_SIGNIN_INVALID: 'the sign-in link is unknown, used or expired, or the pasted token is not a valid access token (401)',
  LOOKOUT_CONSOLE_SESSION_INVALID: 'the console session cookie is unknown or expired, or its token was revoked (401)',
  LOOKOUT_CONSOLE_NOT_BUILT: 'the console bundle is missing and could not be built (503)',
} as const
export type ConsoleErrorCode = keyof typeof CONSOLE_ERROR_CODES
