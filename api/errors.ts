// Coded errors of the API stage. The edge (error-handler.ts) turns any coded
// error into the contract's body; statusCode is each code's HTTP meaning.
import createError from '@fastify/error'

export const AuthMissingError = createError<'LOOKOUT_AUTH_MISSING', 401, []>(
  'LOOKOUT_AUTH_MISSING', 'A bearer credential is required', 401)
export const AuthInvalidError = createError<'LOOKOUT_AUTH_INVALID', 401, []>(
  'LOOKOUT_AUTH_INVALID', 'The bearer credential is not valid', 401)
export const ForbiddenError = createError<'LOOKOUT_FORBIDDEN', 403, [string]>(
  'LOOKOUT_FORBIDDEN', 'Not allowed: %s', 403)
export const NotFoundError = createError<'LOOKOUT_NOT_FOUND', 404, [string]>(
  'LOOKOUT_NOT_FOUND', '%s not found', 404)
export const ConflictError = createError<'LOOKOUT_CONFLICT', 409, [string]>(
  'LOOKOUT_CONFLICT', 'Conflict: %s', 409)
export const ValidationError = createError<'LOOKOUT_VALIDATION', 422, [string]>(
  'LOOKOUT_VALIDATION', 'Invalid request: %s', 422)
export const BadRequestError = createError<'LOOKOUT_BAD_REQUEST', 400, [string]>(
  'LOOKOUT_BAD_REQUEST', 'Bad request: %s', 400)
export const NotImplementedError = createError<'LOOKOUT_NOT_IMPLEMENTED', 501, [string]>(
  'LOOKOUT_NOT_IMPLEMENTED', 'Not implemented: %s', 501)

export const API_ERROR_CODES = {
  LOOKOUT_AUTH_MISSING: 'no Authorization: Bearer header',
  LOOKOUT_AUTH_INVALID: 'the token is unknown, malformed or revoked',
  LOOKOUT_FORBIDDEN: 'the token lacks the scope, the workspace or the resource grant the route needs',
  LOOKOUT_NOT_FOUND: 'the record does not exist in this workspace',
  LOOKOUT_CONFLICT: 'an idempotency key reused with other content, a stale revision, or a conflicting external id',
  LOOKOUT_VALIDATION: 'the request does not match the schema (cloud routes: 422 with the detail list)',
  LOOKOUT_BAD_REQUEST: 'a malformed request on a desktop route (400)',
  LOOKOUT_NOT_IMPLEMENTED: 'a documented route whose capability is not offered yet',
} as const
export type ApiErrorCode = keyof typeof API_ERROR_CODES
