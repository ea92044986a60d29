// Coded errors of the deploy stage: the CLI, start-up and the process roles.
// They end a command with a message; none is an HTTP answer (their status is
// the factory's default and never sent).
import createError from '@fastify/error'

export const UsageError = createError<'LOOKOUT_USAGE', 500, [string]>('LOOKOUT_USAGE', '%s', 500)

export const ConfigError = createError<'LOOKOUT_CONFIG', 500, [string]>('LOOKOUT_CONFIG', '%s', 500)

export const DataDirBusy = createError<'LOOKOUT_DATA_DIR_BUSY', 500, [string]>('LOOKOUT_DATA_DIR_BUSY', '%s', 500)

export const NatsServerMissing = createError<'LOOKOUT_NATS_SERVER_MISSING', 500, [string]>('LOOKOUT_NATS_SERVER_MISSING', '%s', 500)

export const SecretKeyFileMissingError = createError<'LOOKOUT_SECRET_KEY_FILE_MISSING', 500, [string]>('LOOKOUT_SECRET_KEY_FILE_MISSING', '%s', 500)

export const SecretKeyFileUnsafeError = createError<'LOOKOUT_SECRET_KEY_FILE_UNSAFE', 500, [string]>('LOOKOUT_SECRET_KEY_FILE_UNSAFE', '%s', 500)

export const ServerUnreachableError = createError<'LOOKOUT_SERVER_UNREACHABLE', 500, [string]>('LOOKOUT_SERVER_UNREACHABLE', '%s', 500)

/** Answered on the owner socket's /admin/backups: the one code of this stage with an HTTP status. */
export const BackupUnavailableError = createError<'LOOKOUT_BACKUP_UNAVAILABLE', 409, [string]>('LOOKOUT_BACKUP_UNAVAILABLE', '%s', 409)

export const RestoreRefusedError = createError<'LOOKOUT_RESTORE_REFUSED', 500, [string]>('LOOKOUT_RESTORE_REFUSED', '%s', 500)

export const DEPLOY_ERROR_CODES = {
  LOOKOUT_USAGE: 'the command line is not understood: an unknown command or option, or a missing argument (exit status 2)',
  LOOKOUT_CONFIG: 'start-up: an environment variable has an invalid value; the message names the variable and its allowed range',
  LOOKOUT_DATA_DIR_BUSY: 'start-up: another live Lookout process holds the data directory (its lock file names the pid)',
  LOOKOUT_NATS_SERVER_MISSING: 'start-up: no nats-server binary at LOOKOUT_NATS_SERVER, in tools/nats-server, on PATH, in /usr/sbin or /usr/local/sbin',
  LOOKOUT_SERVER_UNREACHABLE: '`lookout status` (or another CLI command) could not reach the server on its owner socket or URL',
  LOOKOUT_SECRET_KEY_FILE_MISSING: 'start-up: LOOKOUT_SECRET_KEY is not set, the data directory has sealed secrets, and its key file (keys/secret.key) is gone; restore the file or set the key that sealed them, a new key could not open them',
  LOOKOUT_BACKUP_UNAVAILABLE: '`lookout backup create` (owner socket, 409): the stores are not embedded (back up PostgreSQL with pg_dump, a ClickHouse server with BACKUP) or the loaders did not store the accepted events in time',
  LOOKOUT_RESTORE_REFUSED: '`lookout backup restore`: the data directory is in use (stop the service) or already holds data (--force replaces it)',
  LOOKOUT_SECRET_KEY_FILE_UNSAFE: 'start-up: the key file (keys/secret.key) or its directory can be read by other users, is not a regular file of this user, or does not hold a 32-byte key',
} as const
export type DeployErrorCode = keyof typeof DEPLOY_ERROR_CODES
