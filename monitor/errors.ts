// Coded errors of the monitor stage (rendered by the api edge), and the reason
// codes a probe observation carries.
import createError from '@fastify/error'

export const CheckNotFoundError = createError<'LOOKOUT_MONITOR_NOT_FOUND', 404, [string]>(
  'LOOKOUT_MONITOR_NOT_FOUND', '%s not found', 404)
export const RevisionConflictError = createError<'LOOKOUT_MONITOR_REVISION_CONFLICT', 409, [number, number]>(
  'LOOKOUT_MONITOR_REVISION_CONFLICT', 'Revision conflict: the check is at revision %s, the request observed %s', 409)
export const IdTakenError = createError<'LOOKOUT_MONITOR_ID_TAKEN', 409, [string]>(
  'LOOKOUT_MONITOR_ID_TAKEN', 'The id %s is already used by another record', 409)
export const CheckPausedError = createError<'LOOKOUT_MONITOR_PAUSED', 409, []>(
  'LOOKOUT_MONITOR_PAUSED', 'The check is paused: resume it before running it', 409)
export const NotACollectorError = createError<'LOOKOUT_MONITOR_NOT_A_COLLECTOR', 404, []>(
  'LOOKOUT_MONITOR_NOT_A_COLLECTOR', 'No collector here: the collector routes serve a remote collector\'s own credential, and the caller (the desktop owner) has none', 404)

/** HTTP error codes of the monitoring routes (documented in monitor/README.md). */
export const MONITOR_ERROR_CODES = {
  LOOKOUT_MONITOR_NOT_FOUND: 'the check or monitor source does not exist on this resource (or is not a heartbeat check)',
  LOOKOUT_MONITOR_REVISION_CONFLICT: 'the revision sent is not the check\'s current one; nothing was changed',
  LOOKOUT_MONITOR_PAUSED: 'action run on a paused check (results of paused checks are rejected): resume it first',
  LOOKOUT_MONITOR_ID_TAKEN: 'a client-chosen check or source id already belongs to another resource or source',
  LOOKOUT_MONITOR_NOT_A_COLLECTOR: 'a collector route called without a collector credential: the desktop owner on its socket (a desktop has no remote collectors) (404)',
} as const
export type MonitorErrorCode = keyof typeof MONITOR_ERROR_CODES

/** Reason codes of probe observations (stored with every result). */
export const PROBE_REASONS = {
  ok: 'LOOKOUT_PROBE_OK',
  checkDeleted: 'LOOKOUT_PROBE_CHECK_DELETED',
  timeout: 'LOOKOUT_PROBE_TIMEOUT',
  refused: 'LOOKOUT_PROBE_REFUSED',
  dns: 'LOOKOUT_PROBE_DNS',
  network: 'LOOKOUT_PROBE_NETWORK',
  tls: 'LOOKOUT_PROBE_TLS',
  certExpired: 'LOOKOUT_PROBE_CERT_EXPIRED',
  certExpiring: 'LOOKOUT_PROBE_CERT_EXPIRING',
  status: 'LOOKOUT_PROBE_STATUS',
  body: 'LOOKOUT_PROBE_BODY',
  banner: 'LOOKOUT_PROBE_BANNER',
  auth: 'LOOKOUT_PROBE_AUTH',
  query: 'LOOKOUT_PROBE_QUERY',
  loss: 'LOOKOUT_PROBE_LOSS',
  rtt: 'LOOKOUT_PROBE_RTT',
  beatMissing: 'LOOKOUT_PROBE_HEARTBEAT_MISSING',
  beatWaiting: 'LOOKOUT_PROBE_HEARTBEAT_WAITING',
  icmpUnavailable: 'LOOKOUT_PROBE_ICMP_UNAVAILABLE',
  credential: 'LOOKOUT_PROBE_CREDENTIAL_UNAVAILABLE',
  adapter: 'LOOKOUT_PROBE_ADAPTER_UNAVAILABLE',
  error: 'LOOKOUT_PROBE_ERROR',
  sshKey: 'LOOKOUT_PROBE_SSH_KEY_UNAVAILABLE',
  sshHostKey: 'LOOKOUT_PROBE_SSH_HOST_KEY',
  sshAuth: 'LOOKOUT_PROBE_SSH_AUTH',
  sshTunnel: 'LOOKOUT_PROBE_SSH_TUNNEL',
  collectorSilent: 'LOOKOUT_PROBE_COLLECTOR_SILENT',
  logThreshold: 'LOOKOUT_PROBE_LOG_THRESHOLD',
  logUnavailable: 'LOOKOUT_PROBE_LOG_UNAVAILABLE',
  logLagging: 'LOOKOUT_PROBE_LOG_LAGGING',
} as const
export type ProbeReason = (typeof PROBE_REASONS)[keyof typeof PROBE_REASONS]

export const MONITOR_PROBE_ERROR_CODES: Record<ProbeReason, string> = {
  LOOKOUT_PROBE_OK: 'the probe succeeded (up)',
  LOOKOUT_PROBE_CHECK_DELETED: 'the check was deleted: the code of the incident.closed outbox row that closes its open incident (no observation carries it)',
  LOOKOUT_PROBE_TIMEOUT: 'the target did not answer within timeout_seconds (down)',
  LOOKOUT_PROBE_REFUSED: 'the connection was refused or reset (down)',
  LOOKOUT_PROBE_DNS: 'the host name did not resolve (down)',
  LOOKOUT_PROBE_NETWORK: 'another network error: unreachable host, closed socket (down)',
  LOOKOUT_PROBE_TLS: 'the TLS handshake or certificate verification failed (down)',
  LOOKOUT_PROBE_CERT_EXPIRED: 'the server certificate has expired or is not yet valid (down)',
  LOOKOUT_PROBE_CERT_EXPIRING: 'https: the certificate expires in fewer than cert_expiry_alert_days days (down: an alert while there is time to renew)',
  LOOKOUT_PROBE_STATUS: 'the HTTP status is outside the expected range (down)',
  LOOKOUT_PROBE_BODY: 'the HTTP body does not contain the expected text or match the expected pattern (down)',
  LOOKOUT_PROBE_BANNER: 'the TCP banner does not contain the expected text (down)',
  LOOKOUT_PROBE_AUTH: 'the database refused the credentials (down)',
  LOOKOUT_PROBE_QUERY: 'the trivial query or command failed (down)',
  LOOKOUT_PROBE_LOSS: 'ICMP packet loss is above max_loss_percent (down)',
  LOOKOUT_PROBE_RTT: 'ICMP average round trip is above max_rtt_ms (down)',
  LOOKOUT_PROBE_HEARTBEAT_MISSING: 'no heartbeat within interval + grace (unknown, then unhealthy as configured)',
  LOOKOUT_PROBE_HEARTBEAT_WAITING: 'a new heartbeat check has not received its first beat yet (unknown)',
  LOOKOUT_PROBE_ICMP_UNAVAILABLE: 'the system ping cannot run here (missing or not permitted): unknown, never a false down',
  LOOKOUT_PROBE_CREDENTIAL_UNAVAILABLE: 'the credential reference cannot be read or is not allowed (unknown)',
  LOOKOUT_PROBE_ADAPTER_UNAVAILABLE: 'the probe adapter for this kind cannot run in this process (unknown)',
  LOOKOUT_PROBE_ERROR: 'the probe itself failed unexpectedly (unknown: not evidence about the target)',
  LOOKOUT_PROBE_SSH_KEY_UNAVAILABLE: 'a check with configuration.ssh has no SSH key the managed runtime can use: none registered for the resource, or no LOOKOUT_SECRET_KEY (unknown)',
  LOOKOUT_PROBE_SSH_HOST_KEY: 'the SSH server\'s host key does not match the pinned (or given) one: the tunnel is refused, never trusted silently (unknown)',
  LOOKOUT_PROBE_SSH_AUTH: 'the SSH server refused the resource\'s registered key (unknown: not evidence about the target)',
  LOOKOUT_PROBE_SSH_TUNNEL: 'the SSH server could not be reached or the tunnel did not open in time, or this process runs no SSH tunnels (unknown)',
  LOOKOUT_PROBE_COLLECTOR_SILENT: 'the collector that runs the check stopped reporting: its checks are unknown (silence is no evidence about the targets) and a collector_offline incident opens',
  LOOKOUT_PROBE_LOG_THRESHOLD: 'log check: the count of matching lines in the window crossed the threshold (above: more than it; below: fewer) (down)',
  LOOKOUT_PROBE_LOG_UNAVAILABLE: 'log check: the log store cannot answer the count (down, unreachable, timed out) or this process has no log store (unknown: never a false recovery or silence alarm)',
  LOOKOUT_PROBE_LOG_LAGGING: 'log check: the loader\'s backlog holds lines received before the window\'s end, so the window may not be stored yet (unknown)',
}
