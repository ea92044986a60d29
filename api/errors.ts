// Coded errors of the API stage. The edge (error-handler.ts) turns any coded
// error into the contract's body; statusCode is each code's HTTP meaning.
import createError from '@fastify/error'

export const NotReadyError = createError<'LOOKOUT_NOT_READY', 503, [string]>(
  'LOOKOUT_NOT_READY', 'The server is not ready yet (waiting for: %s); retry later', 503)

export const RestoringError = createError<'LOOKOUT_RESTORING', 503, [string]>(
  'LOOKOUT_RESTORING', 'The service is restoring backup %s and restarts on it; retry in a few seconds', 503)

/** Load shedding's code (app.ts): the event loop is too late; 429 cloud, 503 desktop, with Retry-After. */
export const OVERLOADED = 'LOOKOUT_OVERLOADED'
/** The code of an unexpected failure; its detail stays in the log. */
export const INTERNAL = 'LOOKOUT_INTERNAL'
/** A request whose headers or body did not arrive in time (edge/client-error.ts). */
export const REQUEST_TIMEOUT = 'LOOKOUT_REQUEST_TIMEOUT'

export const API_ERROR_CODES = {
  [OVERLOADED]: 'the server\'s event loop is running late (LOOKOUT_MAX_EVENT_LOOP_DELAY_MS): the request was refused before any work, retry after the Retry-After delay (429 cloud, 503 desktop)',
  [INTERNAL]: 'an unexpected failure; its detail is in the server log under the request id (500)',
  [REQUEST_TIMEOUT]: 'the request\'s headers or body did not arrive within LOOKOUT_HEADERS_TIMEOUT_MS / LOOKOUT_BODY_TIMEOUT_MS; the connection is closed (408)',
  LOOKOUT_RESTORING: 'the owner asked for a restore on the running service (`lookout backup restore`): from then until it restarts on the restored data, every request answers 503 with Retry-After',
  LOOKOUT_NOT_READY: 'the server has not yet seen all its dependencies (NATS, ClickHouse, PostgreSQL, workers) ready; every route but health, readiness, metrics and the OpenAPI document answers 503 with Retry-After until then',
} as const
export type ApiErrorCode = keyof typeof API_ERROR_CODES
