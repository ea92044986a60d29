// The stdio tool server's own codes are in the desktop catalogue (desktop/errors.ts);
// tool failures carry the API's code when the service answered.

/** Process exit codes of `lookout mcp` (sysexits.h values where one fits). */
export const MCP_EXIT = {
  ok: 0,
  usage: 2,
  /** EX_UNAVAILABLE: the desktop service is not running. */
  serviceNotRunning: 69,
  /** EX_NOPERM: the grant is unknown, revoked or cannot use tools. */
  grantRefused: 77,
} as const
