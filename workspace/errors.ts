// Coded errors of the workspace domain: identity, projects, services, repository views.
// statusCode is each code's HTTP meaning; the api edge maps them once.
import createError from '@fastify/error'

export const AuthMissingError = createError<'LOOKOUT_AUTH_MISSING', 401, []>(
  'LOOKOUT_AUTH_MISSING', 'A bearer credential is required', 401)
export const AuthInvalidError = createError<'LOOKOUT_AUTH_INVALID', 401, []>(
  'LOOKOUT_AUTH_INVALID', 'The bearer credential is not valid', 401)
export const StaffRequiredError = createError<'LOOKOUT_STAFF_REQUIRED', 403, [string]>(
  'LOOKOUT_STAFF_REQUIRED', 'Staff permission required: %s', 403)
export const TimeEntryVoidedError = createError<'LOOKOUT_TIME_ENTRY_VOIDED', 409, []>(
  'LOOKOUT_TIME_ENTRY_VOIDED', 'The time entry is voided: it can no longer be corrected or voided', 409)
export const RepositoryNotConfiguredError = createError<'LOOKOUT_REPOSITORY_NOT_CONFIGURED', 409, [string]>(
  'LOOKOUT_REPOSITORY_NOT_CONFIGURED', 'No readable repository: %s', 409)
export const RepositoryUnavailableError = createError<'LOOKOUT_REPOSITORY_UNAVAILABLE', 503, [string]>(
  'LOOKOUT_REPOSITORY_UNAVAILABLE', 'Repository not available yet: %s', 503)
export const StaleRevisionError = createError<'LOOKOUT_PROJECT_STALE_REVISION', 409, [string]>(
  'LOOKOUT_PROJECT_STALE_REVISION', 'Stale revision: %s', 409)
export const IdempotencyConflictError = createError<'LOOKOUT_PROJECT_IDEMPOTENCY_CONFLICT', 409, []>(
  'LOOKOUT_PROJECT_IDEMPOTENCY_CONFLICT', 'The idempotency key was already used with different content', 409)
export const TransitionError = createError<'LOOKOUT_PROJECT_TRANSITION', 409, [string]>(
  'LOOKOUT_PROJECT_TRANSITION', 'Transition not allowed: %s', 409)
export const NotApplicableError = createError<'LOOKOUT_PROJECT_NOT_APPLICABLE', 409, [string]>(
  'LOOKOUT_PROJECT_NOT_APPLICABLE', 'Not applicable: %s', 409)
export const ItemDeletedError = createError<'LOOKOUT_PROJECT_ITEM_DELETED', 409, [string]>(
  'LOOKOUT_PROJECT_ITEM_DELETED', 'The record is deleted: %s', 409)
export const ItemArchivedError = createError<'LOOKOUT_PROJECT_ITEM_ARCHIVED', 409, [string]>(
  'LOOKOUT_PROJECT_ITEM_ARCHIVED', 'The record is archived: %s', 409)
export const BoardArchivedError = createError<'LOOKOUT_PROJECT_BOARD_ARCHIVED', 409, [string]>(
  'LOOKOUT_PROJECT_BOARD_ARCHIVED', 'The board is archived: %s', 409)
export const AlreadyClaimedError = createError<'LOOKOUT_PROJECT_ALREADY_CLAIMED', 409, [string]>(
  'LOOKOUT_PROJECT_ALREADY_CLAIMED', 'Already claimed: %s', 409)
export const CatalogueRuleError = createError<'LOOKOUT_PROJECT_CATALOGUE_RULE', 409, [string]>(
  'LOOKOUT_PROJECT_CATALOGUE_RULE', 'Catalogue rule: %s', 409)
export const DuplicateError = createError<'LOOKOUT_PROJECT_DUPLICATE', 409, [string]>(
  'LOOKOUT_PROJECT_DUPLICATE', 'Already exists: %s', 409)

export const WORKSPACE_ERROR_CODES = {
  LOOKOUT_AUTH_MISSING: 'no Authorization: Bearer header',
  LOOKOUT_AUTH_INVALID: 'the token is unknown, malformed or revoked',
  LOOKOUT_STAFF_REQUIRED: 'the route needs a staff-audience token whose staff member is active and holds the permission (service management, time entries, request history)',
  LOOKOUT_TIME_ENTRY_VOIDED: 'the time entry is voided and can no longer be corrected or voided (409)',
  LOOKOUT_REPOSITORY_NOT_CONFIGURED: 'the resource is not a repository, names no repository_url (or wiki_url), or names one the server may not read (409)',
  LOOKOUT_REPOSITORY_UNAVAILABLE: 'the server has no local clone of the repository yet (a refresh is running or failed) or git is missing; retry later (503)',
  LOOKOUT_PROJECT_STALE_REVISION: 'project: the observed revision (or 64-character catalogue token) is not the current one; nothing was changed (409)',
  LOOKOUT_PROJECT_IDEMPOTENCY_CONFLICT: 'project: the idempotency key was already used for a different request (409)',
  LOOKOUT_PROJECT_TRANSITION: 'project: the action is not allowed from the record\'s current work state (409)',
  LOOKOUT_PROJECT_NOT_APPLICABLE: 'project: the action or field does not apply to this kind of record, e.g. approve on a note (409)',
  LOOKOUT_PROJECT_ITEM_DELETED: 'project: the record is in the trash; only restore is allowed (409)',
  LOOKOUT_PROJECT_ITEM_ARCHIVED: 'project: the record is archived; only restore is allowed (409)',
  LOOKOUT_PROJECT_BOARD_ARCHIVED: 'project: the board is archived and takes no new or moved records (409)',
  LOOKOUT_PROJECT_ALREADY_CLAIMED: 'project: the task is assigned to someone else; unassign it before claiming (409)',
  LOOKOUT_PROJECT_CATALOGUE_RULE: 'project: a board, status or taxonomy rule refuses the change, e.g. retiring the last status (409)',
  LOOKOUT_PROJECT_DUPLICATE: 'project: an equal record already exists (a live edge, an active name, a client-chosen id) (409)',
} as const
export type WorkspaceErrorCode = keyof typeof WORKSPACE_ERROR_CODES
