// The sealing key of secrets at rest (SSH keys, webhook signing secrets) on the
// embedded default. An operator's LOOKOUT_SECRET_KEY always wins. Without one,
// a server on the embedded database (and `lookout desktop`) keeps a random
// 32-byte key in <data dir>/keys/secret.key: created on first start (0600, in
// a 0700 directory, said once in the log), refused when anyone else could read
// it, and never silently replaced: a missing file while sealed secrets exist
// is a start-up error, since a new key could not open them. Servers on
// PostgreSQL (scale-out) share one store across processes and hosts, so they
// keep needing the configured key.
import { randomBytes } from 'node:crypto'
import { chmodSync, closeSync, fsyncSync, lstatSync, mkdirSync, openSync, readFileSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Logger } from 'pino'
import type { Sql } from '../core/index.ts'
import { sshKeysSealed } from '../workspace/index.ts'
import { webhookSecretsSealed } from '../alerting/index.ts'
import { portalTokenSealed } from '../desktop/index.ts'
import type { LookoutConfig } from './config.ts'
import { SecretKeyFileMissingError, SecretKeyFileUnsafeError } from './errors.ts'

export function secretKeyPath(dataDir: string): string {
  return join(dataDir, 'keys', 'secret.key')
}

function uid(): number {
  return process.getuid?.() ?? 0
}

function checkPrivate(path: string, what: 'file' | 'directory'): void {
  const st = lstatSync(path)
  const ok = what === 'file' ? st.isFile() : st.isDirectory()
  if (st.isSymbolicLink() || !ok) throw new SecretKeyFileUnsafeError(`${path} is not a ${what}`)
  if (st.uid !== uid()) throw new SecretKeyFileUnsafeError(`${path} belongs to uid ${st.uid}, not to this user (uid ${uid()})`)
  if ((st.mode & 0o077) !== 0) {
    throw new SecretKeyFileUnsafeError(`${path} is open to other users (mode ${(st.mode & 0o777).toString(8)}); it must be ${what === 'file' ? '0600' : '0700'}`)
  }
}

function readKey(path: string): Buffer {
  checkPrivate(join(path, '..'), 'directory')
  checkPrivate(path, 'file')
  const key = Buffer.from(readFileSync(path, 'utf8').trim(), 'base64')
  if (key.length !== 32) throw new SecretKeyFileUnsafeError(`${path} does not hold a 32-byte key (base64)`)
  return key
}

function createKey(path: string): Buffer {
  const dir = join(path, '..')
  mkdirSync(dir, { recursive: true, mode: 0o700 })
  chmodSync(dir, 0o700)
  checkPrivate(dir, 'directory')
  const key = randomBytes(32)
  // 'wx': never over a file that appeared meanwhile.
  const fd = openSync(path, 'wx', 0o600)
  try {
    writeSync(fd, `${key.toString('base64')}\n`)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  return key
}

function exists(path: string): boolean {
  try {
    lstatSync(path)
    return true
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false
    throw err
  }
}

/** Whether the store holds secrets sealed with a key: each stage answers for its own tables. */
async function sealedSecretsPresent(db: Sql): Promise<boolean> {
  return (await sshKeysSealed(db)) || (await webhookSecretsSealed(db)) || (await portalTokenSealed(db))
}

/** The configuration with the key secrets are sealed with: the configured one, else (embedded database) the data directory's. */
export async function withSecretKey(config: LookoutConfig, db: Sql, log: Logger | null): Promise<LookoutConfig> {
  if (config.secretKey !== undefined || config.databaseUrl !== undefined) return config
  const path = secretKeyPath(config.dataDir)
  if (exists(path)) return { ...config, secretKey: readKey(path) }
  if (await sealedSecretsPresent(db)) {
    throw new SecretKeyFileMissingError(`${path} is missing but the store holds sealed secrets: restore the file or set LOOKOUT_SECRET_KEY to the key that sealed them (a new key could not open them)`)
  }
  const key = createKey(path)
  log?.warn({ path }, 'LOOKOUT_SECRET_KEY is not set: created a random secret key in the data directory to seal secrets at rest; back it up with the data')
  return { ...config, secretKey: key }
}
