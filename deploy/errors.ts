// Coded errors of the deploy stage: the CLI, start-up and the process roles.
// They end a command with a message; none is an HTTP answer.

export class UsageError extends Error {
  readonly code = 'LOOKOUT_USAGE'
}

export class ConfigError extends Error {
  readonly code = 'LOOKOUT_CONFIG'
}

export class DataDirBusy extends Error {
  readonly code = 'LOOKOUT_DATA_DIR_BUSY'
}

export class NatsServerMissing extends Error {
  readonly code = 'LOOKOUT_NATS_SERVER_MISSING'
}

export class SecretKeyFileMissingError extends Error {
  readonly code = 'LOOKOUT_SECRET_KEY_FILE_MISSING'
}

export class SecretKeyFileUnsafeError extends Error {
  readonly code = 'LOOKOUT_SECRET_KEY_FILE_UNSAFE'
}

export class ServerUnreachableError extends Error {
  readonly code = 'LOOKOUT_SERVER_UNREACHABLE'
}

export class BackupUnavailableError extends Error {
  readonly code = 'LOOKOUT_BACKUP_UNAVAILABLE'
  readonly statusCode = 409
}

export class RestoreRefusedError extends Error {
  readonly code = 'LOOKOUT_RESTORE_REFUSED'
}

export const DEPLOY_ERROR_CODES = {
  LOOKOUT_USAGE: 'the command line is not understood: an unknown command or option, or a missing argument (exit status 2)',
  LOOKOUT_CONFIG: 'start-up: an environment variable has an invalid value; the message names the variable and its allowed range',
  LOOKOUT_DATA_DIR_BUSY: 'start-up: another live Lookout process holds the data directory (its lock file names the pid)',
  LOOKOUT_NATS_SERVER_MISSING: 'start-up: no nats-server binary on PATH, in /usr/sbin or /usr/local/sbin, nor at LOOKOUT_NATS_SERVER',
  LOOKOUT_SERVER_UNREACHABLE: '`lookout status` (or another CLI command) could not reach the server on its owner socket or URL',
  LOOKOUT_SECRET_KEY_FILE_MISSING: 'start-up: LOOKOUT_SECRET_KEY is not set, the data directory has sealed secrets, and its key file (keys/secret.key) is gone; restore the file or set the key that sealed them, a new key could not open them',
  LOOKOUT_BACKUP_UNAVAILABLE: '`lookout backup create` (owner socket, 409): the stores are not embedded (back up PostgreSQL with pg_dump, a ClickHouse server with BACKUP) or the loaders did not store the accepted events in time',
  LOOKOUT_RESTORE_REFUSED: '`lookout backup restore`: the data directory is in use (stop the service) or already holds data (--force replaces it)',
  LOOKOUT_SECRET_KEY_FILE_UNSAFE: 'start-up: the key file (keys/secret.key) or its directory can be read by other users, is not a regular file of this user, or does not hold a 32-byte key',
} as const
export type DeployErrorCode = keyof typeof DEPLOY_ERROR_CODES
