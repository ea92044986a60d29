// Coded errors every stage may raise: the generic refusals (not found, conflict,
// invalid input) and a bad option. The api edge maps them to HTTP by statusCode.
import createError from '@fastify/error'
import type { DetailItem } from './detail.ts'

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
export const SecretKeyMissingError = createError<'LOOKOUT_SECRET_KEY_MISSING', 503, []>(
  'LOOKOUT_SECRET_KEY_MISSING', 'Secrets cannot be stored: the operator has not configured LOOKOUT_SECRET_KEY', 503)
export const InvalidOptionError = createError<'LOOKOUT_INVALID_OPTION', 500, [string, string]>(
  'LOOKOUT_INVALID_OPTION', 'Invalid option %s: %s', 500)

/** A 422 carrying contract detail items (cloud) and a summary (desktop). */
export class RequestInvalid extends Error {
  readonly code = 'LOOKOUT_VALIDATION'
  readonly statusCode: number
  readonly details: DetailItem[]

  constructor(details: DetailItem[], statusCode = 422) {
    super(details.map((d) => `${d.loc.join('.')}: ${d.msg}`).join('; '))
    this.details = details
    this.statusCode = statusCode
  }
}

export const BAD_REQUEST_CODE = 'LOOKOUT_BAD_REQUEST'

export const CORE_ERROR_CODES = {
  LOOKOUT_FORBIDDEN: 'the token lacks the scope, the workspace or the resource grant the route needs',
  LOOKOUT_NOT_FOUND: 'the record does not exist in this workspace',
  LOOKOUT_CONFLICT: 'an idempotency key reused with other content, a stale revision, or a conflicting external id',
  LOOKOUT_VALIDATION: 'the request does not match the schema (cloud routes: 422 with the detail list)',
  LOOKOUT_BAD_REQUEST: 'a malformed request on a desktop route (400)',
  LOOKOUT_NOT_IMPLEMENTED: 'a documented route whose capability is not offered yet',
  LOOKOUT_SECRET_KEY_MISSING: 'a secret (SSH private key) cannot be stored because LOOKOUT_SECRET_KEY is not configured (503)',
  LOOKOUT_INVALID_OPTION: 'a configuration option is invalid (raised at start-up, naming the option)',
} as const
export type CoreErrorCode = keyof typeof CORE_ERROR_CODES
