// Coded errors of the desktop product: its settings, loopback listener, portal and tool server.
// statusCode is each code's HTTP meaning; the api edge maps them once.
import createError from '@fastify/error'

export const PortalOfflineError = createError<'LOOKOUT_PORTAL_OFFLINE', 503, [string]>(
  'LOOKOUT_PORTAL_OFFLINE', 'The portal is not reachable (offline): %s', 503)
export const PortalRefusedError = createError<'LOOKOUT_PORTAL_REFUSED', 502, [string]>(
  'LOOKOUT_PORTAL_REFUSED', 'The portal refused the request: %s', 502)
export const PortalNotConnectedError = createError<'LOOKOUT_PORTAL_NOT_CONNECTED', 409, [string]>(
  'LOOKOUT_PORTAL_NOT_CONNECTED', 'No portal connection: %s', 409)
export const PortalReconnectError = createError<'LOOKOUT_PORTAL_RECONNECT_REQUIRED', 403, [string]>(
  'LOOKOUT_PORTAL_RECONNECT_REQUIRED', 'Reconnect the portal: %s', 403)
export const SettingsStaleRevisionError = createError<'LOOKOUT_SETTINGS_STALE_REVISION', 409, [number]>(
  'LOOKOUT_SETTINGS_STALE_REVISION', 'The settings changed since revision %s was observed', 409)
export const LoopbackUnavailableError = createError<'LOOKOUT_LOOPBACK_UNAVAILABLE', 409, [string]>(
  'LOOKOUT_LOOPBACK_UNAVAILABLE', 'The loopback listener cannot start: %s', 409)
export const BrowserOriginError = createError<'LOOKOUT_BROWSER_ORIGIN', 403, []>(
  'LOOKOUT_BROWSER_ORIGIN', 'Requests from a browser (an Origin or Sec-Fetch-Site header) are refused on the loopback listener', 403)
export const LengthRequiredError = createError<'LOOKOUT_LENGTH_REQUIRED', 411, []>(
  'LOOKOUT_LENGTH_REQUIRED', 'Chunked requests are refused on the loopback listener: send Content-Length', 411)

/** The desktop's private directory is not private (mode, owner or a symlink): a start-up error, never an HTTP answer. */
export const PrivateDirError = createError<'LOOKOUT_PRIVATE_DIR', 500, [string]>('LOOKOUT_PRIVATE_DIR', '%s', 500)
/** The tool server could not reach the desktop service on its socket. */
export const ServiceUnreachable = createError<'LOOKOUT_SERVICE_UNAVAILABLE', 503, [string]>('LOOKOUT_SERVICE_UNAVAILABLE', '%s', 503)
/** A tool that changes data, called on a server started with --read-only. */
export const McpReadOnlyError = createError<'LOOKOUT_MCP_READ_ONLY', 403, [string]>(
  'LOOKOUT_MCP_READ_ONLY', '%s changes data and this server is read-only (--read-only)', 403)
/** The service answered with an error body the tool server could not read. */
export const McpToolFailedError = createError<'LOOKOUT_MCP_TOOL_FAILED', 502, [string]>('LOOKOUT_MCP_TOOL_FAILED', '%s', 502)

export const DESKTOP_ERROR_CODES = {
  LOOKOUT_PORTAL_OFFLINE: 'notifications: a portal-backed read or refresh cannot reach the portal; local results are never substituted (503)',
  LOOKOUT_PORTAL_REFUSED: 'portal: the portal answered a portal-backed read or the connection check with a refusal (its token, scopes or live permissions); local results are never substituted (502)',
  LOOKOUT_PORTAL_NOT_CONNECTED: 'portal: the desktop workspace has no portal connection (`lookout portal connect`) (409)',
  LOOKOUT_PORTAL_RECONNECT_REQUIRED: 'portal: the connection\'s credential lacks a scope the operation needs (e.g. notifications:read for portal notifications); reconnect with a token that has it (403)',
  LOOKOUT_SETTINGS_STALE_REVISION: 'desktop: the settings revision given is not the current one; nothing changed (409)',
  LOOKOUT_LOOPBACK_UNAVAILABLE: 'desktop: the loopback listener could not bind its port (in use or not permitted); the settings were not changed (409)',
  LOOKOUT_BROWSER_ORIGIN: 'desktop: the loopback listener refuses requests carrying an Origin or Sec-Fetch-Site header, i.e. from a browser (403)',
  LOOKOUT_LENGTH_REQUIRED: 'desktop: the loopback listener refuses chunked requests; send Content-Length (411)',
  LOOKOUT_PRIVATE_DIR: 'start-up: the desktop\'s private directory (socket, data) is readable by others, not owned by this user, or a symlink',
  LOOKOUT_MCP_READ_ONLY: 'the tool changes data and the server was started with --read-only (status 403)',
  LOOKOUT_SERVICE_UNAVAILABLE: 'the desktop service stopped answering on its socket; start it again with `lookout desktop` (status 503)',
  LOOKOUT_MCP_TOOL_FAILED: 'the service answered with an error body the tool server could not read (status as answered)',
} as const
export type DesktopErrorCode = keyof typeof DESKTOP_ERROR_CODES
