// Error codes of the stdio tool server (deploy/mcp/README.md). Tool failures
// carry the API's own code when the service answered; these are the server's own.
export const MCP_ERROR_CODES = {
  LOOKOUT_MCP_READ_ONLY: 'the tool changes data and the server was started with --read-only (status 403)',
  LOOKOUT_SERVICE_UNAVAILABLE: 'the desktop service stopped answering on its socket; start it again with `lookout desktop` (status 503)',
  LOOKOUT_MCP_TOOL_FAILED: 'the service answered with an error body the tool server could not read (status as answered)',
} as const
export type McpErrorCode = keyof typeof MCP_ERROR_CODES

/** Process exit codes of `lookout mcp` (sysexits.h values where one fits). */
export const MCP_EXIT = {
  ok: 0,
  usage: 2,
  /** EX_UNAVAILABLE: the desktop service is not running. */
  serviceNotRunning: 69,
  /** EX_NOPERM: the grant is unknown, revoked or cannot use tools. */
  grantRefused: 77,
} as const
