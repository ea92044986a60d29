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
export const StaffRequiredError = createError<'LOOKOUT_STAFF_REQUIRED', 403, [string]>(
  'LOOKOUT_STAFF_REQUIRED', 'Staff permission required: %s', 403)
export const SecretKeyMissingError = createError<'LOOKOUT_SECRET_KEY_MISSING', 503, []>(
  'LOOKOUT_SECRET_KEY_MISSING', 'Secrets cannot be stored: the operator has not configured LOOKOUT_SECRET_KEY', 503)
export const TimeEntryVoidedError = createError<'LOOKOUT_TIME_ENTRY_VOIDED', 409, []>(
  'LOOKOUT_TIME_ENTRY_VOIDED', 'The time entry is voided: it can no longer be corrected or voided', 409)
export const RepositoryNotConfiguredError = createError<'LOOKOUT_REPOSITORY_NOT_CONFIGURED', 409, [string]>(
  'LOOKOUT_REPOSITORY_NOT_CONFIGURED', 'No readable repository: %s', 409)
export const RepositoryUnavailableError = createError<'LOOKOUT_REPOSITORY_UNAVAILABLE', 503, [string]>(
  'LOOKOUT_REPOSITORY_UNAVAILABLE', 'Repository not available yet: %s', 503)
export const NotReadyError = createError<'LOOKOUT_NOT_READY', 503, [string]>(
  'LOOKOUT_NOT_READY', 'The server is not ready yet (waiting for: %s); retry later', 503)

// Project area (api/projects/README.md): every refusal of a change is a 409 with its own code.
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

// Alert routing, notifications, assignment webhooks (api/alerts, api/notifications, api/webhooks READMEs).
export const AlertStaleRevisionError = createError<'LOOKOUT_ALERT_STALE_REVISION', 409, [string]>(
  'LOOKOUT_ALERT_STALE_REVISION', 'Stale revision: %s', 409)
export const AlertOperationConflictError = createError<'LOOKOUT_ALERT_OPERATION_CONFLICT', 409, []>(
  'LOOKOUT_ALERT_OPERATION_CONFLICT', 'The operation_id was already used for a different change', 409)
export const AlertNotVerifiedError = createError<'LOOKOUT_ALERT_NOT_VERIFIED', 409, []>(
  'LOOKOUT_ALERT_NOT_VERIFIED', 'The destination is not verified yet', 409)
export const AlertAlreadyVerifiedError = createError<'LOOKOUT_ALERT_ALREADY_VERIFIED', 409, []>(
  'LOOKOUT_ALERT_ALREADY_VERIFIED', 'The destination is already verified', 409)
export const AlertCodeExpiredError = createError<'LOOKOUT_ALERT_CODE_EXPIRED', 409, []>(
  'LOOKOUT_ALERT_CODE_EXPIRED', 'No verification code is pending (none was requested, or it expired): request a new one', 409)
export const AlertCodeLockedError = createError<'LOOKOUT_ALERT_CODE_LOCKED', 409, []>(
  'LOOKOUT_ALERT_CODE_LOCKED', 'Too many wrong codes: request a new verification code', 409)
export const AlertVerificationLimitedError = createError<'LOOKOUT_ALERT_VERIFICATION_LIMITED', 429, [string]>(
  'LOOKOUT_ALERT_VERIFICATION_LIMITED', 'Too many verification codes requested: %s', 429)
export const AlertChannelUnavailableError = createError<'LOOKOUT_ALERT_CHANNEL_UNAVAILABLE', 503, [string]>(
  'LOOKOUT_ALERT_CHANNEL_UNAVAILABLE', 'The %s channel is not configured on this server', 503)
export const AlertLocalOnlyError = createError<'LOOKOUT_ALERT_LOCAL_ONLY', 400, [string]>(
  'LOOKOUT_ALERT_LOCAL_ONLY', 'Local alerts never leave this machine: %s', 400)
export const AlertIncidentClosedError = createError<'LOOKOUT_ALERT_INCIDENT_CLOSED', 409, []>(
  'LOOKOUT_ALERT_INCIDENT_CLOSED', 'The incident is already closed', 409)
export const PortalOfflineError = createError<'LOOKOUT_PORTAL_OFFLINE', 503, [string]>(
  'LOOKOUT_PORTAL_OFFLINE', 'The portal is not reachable (offline): %s', 503)
export const PortalRefusedError = createError<'LOOKOUT_PORTAL_REFUSED', 502, [string]>(
  'LOOKOUT_PORTAL_REFUSED', 'The portal refused the request: %s', 502)
export const PortalNotConnectedError = createError<'LOOKOUT_PORTAL_NOT_CONNECTED', 409, [string]>(
  'LOOKOUT_PORTAL_NOT_CONNECTED', 'No portal connection: %s', 409)
export const PortalReconnectError = createError<'LOOKOUT_PORTAL_RECONNECT_REQUIRED', 403, [string]>(
  'LOOKOUT_PORTAL_RECONNECT_REQUIRED', 'Reconnect the portal: %s', 403)
export const WebhookStaleGenerationError = createError<'LOOKOUT_WEBHOOK_STALE_GENERATION', 409, [number]>(
  'LOOKOUT_WEBHOOK_STALE_GENERATION', 'The subscription changed since generation %s was observed', 409)
export const WebhookNotRetryableError = createError<'LOOKOUT_WEBHOOK_NOT_RETRYABLE', 409, [string]>(
  'LOOKOUT_WEBHOOK_NOT_RETRYABLE', 'The delivery cannot be retried: %s', 409)
export const WebhookDestinationRefusedError = createError<'LOOKOUT_WEBHOOK_DESTINATION_REFUSED', 400, [string]>(
  'LOOKOUT_WEBHOOK_DESTINATION_REFUSED', 'Destination refused: %s', 400)

// Desktop service faces (api/desktop/README.md).
export const SettingsStaleRevisionError = createError<'LOOKOUT_SETTINGS_STALE_REVISION', 409, [number]>(
  'LOOKOUT_SETTINGS_STALE_REVISION', 'The settings changed since revision %s was observed', 409)
export const LoopbackUnavailableError = createError<'LOOKOUT_LOOPBACK_UNAVAILABLE', 409, [string]>(
  'LOOKOUT_LOOPBACK_UNAVAILABLE', 'The loopback listener cannot start: %s', 409)
export const BrowserOriginError = createError<'LOOKOUT_BROWSER_ORIGIN', 403, []>(
  'LOOKOUT_BROWSER_ORIGIN', 'Requests from a browser (an Origin or Sec-Fetch-Site header) are refused on the loopback listener', 403)
export const LengthRequiredError = createError<'LOOKOUT_LENGTH_REQUIRED', 411, []>(
  'LOOKOUT_LENGTH_REQUIRED', 'Chunked requests are refused on the loopback listener: send Content-Length', 411)

/** Load shedding's code (app.ts): the event loop is too late; 429 cloud, 503 desktop, with Retry-After. */
export const OVERLOADED = 'LOOKOUT_OVERLOADED'
/** The code of an unexpected failure; its detail stays in the log. */
export const INTERNAL = 'LOOKOUT_INTERNAL'
export const BAD_REQUEST_CODE = 'LOOKOUT_BAD_REQUEST'
/** A request whose headers or body did not arrive in time (edge/client-error.ts). */
export const REQUEST_TIMEOUT = 'LOOKOUT_REQUEST_TIMEOUT'

export const API_ERROR_CODES = {
  [OVERLOADED]: 'the server\'s event loop is running late (LOOKOUT_MAX_EVENT_LOOP_DELAY_MS): the request was refused before any work, retry after the Retry-After delay (429 cloud, 503 desktop)',
  [INTERNAL]: 'an unexpected failure; its detail is in the server log under the request id (500)',
  [REQUEST_TIMEOUT]: 'the request\'s headers or body did not arrive within LOOKOUT_HEADERS_TIMEOUT_MS / LOOKOUT_BODY_TIMEOUT_MS; the connection is closed (408)',
  LOOKOUT_AUTH_MISSING: 'no Authorization: Bearer header',
  LOOKOUT_AUTH_INVALID: 'the token is unknown, malformed or revoked',
  LOOKOUT_FORBIDDEN: 'the token lacks the scope, the workspace or the resource grant the route needs',
  LOOKOUT_NOT_FOUND: 'the record does not exist in this workspace',
  LOOKOUT_CONFLICT: 'an idempotency key reused with other content, a stale revision, or a conflicting external id',
  LOOKOUT_VALIDATION: 'the request does not match the schema (cloud routes: 422 with the detail list)',
  LOOKOUT_BAD_REQUEST: 'a malformed request on a desktop route (400)',
  LOOKOUT_NOT_IMPLEMENTED: 'a documented route whose capability is not offered yet',
  LOOKOUT_STAFF_REQUIRED: 'the route needs a staff-audience token whose staff member is active and holds the permission (service management, time entries, request history)',
  LOOKOUT_SECRET_KEY_MISSING: 'a secret (SSH private key) cannot be stored because LOOKOUT_SECRET_KEY is not configured (503)',
  LOOKOUT_TIME_ENTRY_VOIDED: 'the time entry is voided and can no longer be corrected or voided (409)',
  LOOKOUT_REPOSITORY_NOT_CONFIGURED: 'the resource is not a repository, names no repository_url (or wiki_url), or names one the server may not read (409)',
  LOOKOUT_REPOSITORY_UNAVAILABLE: 'the server has no local clone of the repository yet (a refresh is running or failed) or git is missing; retry later (503)',
  LOOKOUT_NOT_READY: 'the server has not yet seen all its dependencies (NATS, ClickHouse, PostgreSQL, workers) ready; every route but health, readiness, metrics and the OpenAPI document answers 503 with Retry-After until then',
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
  LOOKOUT_ALERT_STALE_REVISION: 'alerts: the revision given for a destination, route or policy is not the current one; nothing changed (409)',
  LOOKOUT_ALERT_OPERATION_CONFLICT: 'alerts: the operation_id was already used for a different change (409)',
  LOOKOUT_ALERT_NOT_VERIFIED: 'alerts: a test alert needs a verified destination (409)',
  LOOKOUT_ALERT_ALREADY_VERIFIED: 'alerts: the destination is verified; change its address to verify again (409)',
  LOOKOUT_ALERT_CODE_EXPIRED: 'alerts: no verification code is pending, or it expired (15 minutes); request a new one (409)',
  LOOKOUT_ALERT_CODE_LOCKED: 'alerts: five wrong codes were entered; the code is void, request a new one (409)',
  LOOKOUT_ALERT_CODE_INVALID: 'alerts: the verification code is wrong (422 item type on values.code; the attempt is counted)',
  LOOKOUT_ALERT_VERIFICATION_LIMITED: 'alerts: more than five codes requested for one destination within an hour (429 with Retry-After)',
  LOOKOUT_ALERT_CHANNEL_UNAVAILABLE: 'alerts: email or SMS is not configured (LOOKOUT_SMTP_URL, LOOKOUT_SMS_URL) so no code or alert can be sent (503)',
  LOOKOUT_ALERT_LOCAL_ONLY: 'alerts on the desktop service: email, SMS, Slack and Discord destinations are refused, and webhook destinations must be loopback addresses; local alerts never leave the machine (400)',
  LOOKOUT_ALERT_INCIDENT_CLOSED: 'alerts: the incident to acknowledge is already closed (409)',
  LOOKOUT_PORTAL_OFFLINE: 'notifications: a portal-backed read or refresh cannot reach the portal; local results are never substituted (503)',
  LOOKOUT_PORTAL_REFUSED: 'portal: the portal answered a portal-backed read or the connection check with a refusal (its token, scopes or live permissions); local results are never substituted (502)',
  LOOKOUT_PORTAL_NOT_CONNECTED: 'portal: the desktop workspace has no portal connection (`lookout portal connect`) (409)',
  LOOKOUT_PORTAL_RECONNECT_REQUIRED: 'portal: the connection\'s credential lacks a scope the operation needs (e.g. notifications:read for portal notifications); reconnect with a token that has it (403)',
  LOOKOUT_WEBHOOK_STALE_GENERATION: 'webhooks: the observed generation is not the subscription\'s current one; nothing changed (409)',
  LOOKOUT_WEBHOOK_NOT_RETRYABLE: 'webhooks: only a failed or cancelled delivery of an enabled subscription can be retried (409)',
  LOOKOUT_WEBHOOK_DESTINATION_REFUSED: 'webhooks: the URL is not http(s) or names an address outside loopback and private networks (400)',
  LOOKOUT_SETTINGS_STALE_REVISION: 'desktop: the settings revision given is not the current one; nothing changed (409)',
  LOOKOUT_LOOPBACK_UNAVAILABLE: 'desktop: the loopback listener could not bind its port (in use or not permitted); the settings were not changed (409)',
  LOOKOUT_BROWSER_ORIGIN: 'desktop: the loopback listener refuses requests carrying an Origin or Sec-Fetch-Site header, i.e. from a browser (403)',
  LOOKOUT_LENGTH_REQUIRED: 'desktop: the loopback listener refuses chunked requests; send Content-Length (411)',
} as const
export type ApiErrorCode = keyof typeof API_ERROR_CODES
