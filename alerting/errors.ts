// Coded errors of alert routing, notifications and webhook delivery.
// statusCode is each code's HTTP meaning; the api edge maps them once.
import createError from '@fastify/error'

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
/** Answered, not thrown: the counted attempt must commit with the 422 (alerts/operations.ts). */
export const AlertCodeInvalidError = createError<'LOOKOUT_ALERT_CODE_INVALID', 422, [number, string]>(
  'LOOKOUT_ALERT_CODE_INVALID', 'The verification code is wrong (%s attempt%s left)', 422)
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
export const WebhookStaleGenerationError = createError<'LOOKOUT_WEBHOOK_STALE_GENERATION', 409, [number]>(
  'LOOKOUT_WEBHOOK_STALE_GENERATION', 'The subscription changed since generation %s was observed', 409)
export const WebhookNotRetryableError = createError<'LOOKOUT_WEBHOOK_NOT_RETRYABLE', 409, [string]>(
  'LOOKOUT_WEBHOOK_NOT_RETRYABLE', 'The delivery cannot be retried: %s', 409)
export const WebhookDestinationRefusedError = createError<'LOOKOUT_WEBHOOK_DESTINATION_REFUSED', 400, [string]>(
  'LOOKOUT_WEBHOOK_DESTINATION_REFUSED', 'Destination refused: %s', 400)

export const ALERTING_ERROR_CODES = {
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
  LOOKOUT_WEBHOOK_STALE_GENERATION: 'webhooks: the observed generation is not the subscription\'s current one; nothing changed (409)',
  LOOKOUT_WEBHOOK_NOT_RETRYABLE: 'webhooks: only a failed or cancelled delivery of an enabled subscription can be retried (409)',
  LOOKOUT_WEBHOOK_DESTINATION_REFUSED: 'webhooks: the URL is not http(s) or names an address outside loopback and private networks (400)',
} as const
export type AlertingErrorCode = keyof typeof ALERTING_ERROR_CODES
