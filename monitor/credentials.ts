// Probe credentials are references, never values: an environment variable
// (named LOOKOUT_SECRET_*) or a file inside a secrets directory the operator
// chose, standing in for the OS credential store. The value is read at probe
// time, used once, and never stored, returned or logged.
import { readFile, realpath } from 'node:fs/promises'
import { isAbsolute, normalize, sep } from 'node:path'
import type { ConfigIssue } from './config-parts.ts'

export type CredentialRef = { env: string } | { file: string }

export interface CredentialPolicy {
  /** Directories a file reference may point into (after symlinks are resolved). */
  fileDirs: readonly string[]
  /** Environment to read env references from (default process.env). */
  env?: Readonly<Record<string, string | undefined>>
}

/** Only variables with this prefix can be referenced, so a check cannot read DATABASE_URL and the like. */
export const CREDENTIAL_ENV_PREFIX = 'LOOKOUT_SECRET_'
const ENV_RE = /^LOOKOUT_SECRET_[A-Za-z0-9_]{1,100}$/
const MAX_SECRET_BYTES = 64 * 1024

function problem(path: string, message: string): ConfigIssue {
  return { instancePath: path, keyword: 'value_error', params: {}, message }
}

/** Checks the shape of a reference: exactly one of env or file. */
export function parseCredentialRef(input: unknown): { ok: true; ref: CredentialRef } | { ok: false; issues: ConfigIssue[] } {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, issues: [problem('', 'credential must be an object {env: "LOOKOUT_SECRET_…"} or {file: "/absolute/path"}')] }
  }
  const o = input as Record<string, unknown>
  const keys = Object.keys(o)
  if (keys.length !== 1 || (keys[0] !== 'env' && keys[0] !== 'file')) {
    return { ok: false, issues: [problem('', 'credential must have exactly one key: env or file (a reference, never the secret itself)')] }
  }
  if (typeof o.env === 'string') {
    if (!ENV_RE.test(o.env)) return { ok: false, issues: [problem('/env', `env must name a variable ${CREDENTIAL_ENV_PREFIX}<letters, digits, _>`)] }
    return { ok: true, ref: { env: o.env } }
  }
  if (typeof o.file === 'string') {
    const f = o.file
    if (f.length > 1024 || !isAbsolute(f) || f.includes('\0') || normalize(f) !== f) {
      return { ok: false, issues: [problem('/file', 'file must be an absolute, normalized path')] }
    }
    return { ok: true, ref: { file: f } }
  }
  return { ok: false, issues: [problem(`/${keys[0]}`, `${keys[0]} must be a string`)] }
}

export type Resolved = { ok: true; secret: string } | { ok: false; reason: string }

export async function resolveCredential(ref: CredentialRef, policy: CredentialPolicy): Promise<Resolved> {
  if ('env' in ref) {
    if (!ENV_RE.test(ref.env)) return { ok: false, reason: `environment variable ${ref.env} is not allowed` }
    const v = (policy.env ?? process.env)[ref.env]
    if (v === undefined || v === '') return { ok: false, reason: `environment variable ${ref.env} is not set` }
    return { ok: true, secret: v }
  }
  let real: string
  try {
    real = await realpath(ref.file)
  } catch {
    return { ok: false, reason: `credential file ${ref.file} cannot be read` }
  }
  let allowed = false
  for (const d of policy.fileDirs) {
    const dir = await realpath(d).catch(() => null)
    if (dir !== null && real.startsWith(dir.endsWith(sep) ? dir : dir + sep)) allowed = true
  }
  if (!allowed) return { ok: false, reason: `credential file ${ref.file} is outside the allowed secrets directories` }
  try {
    const buf = await readFile(real)
    if (buf.byteLength > MAX_SECRET_BYTES) return { ok: false, reason: `credential file ${ref.file} is too large` }
    return { ok: true, secret: buf.toString('utf8').replace(/\r?\n$/, '') }
  } catch {
    return { ok: false, reason: `credential file ${ref.file} cannot be read` }
  }
}

/** Removes a secret from text that is about to be stored or shown (driver messages can echo input). */
export function redact(text: string, secret: string | null): string {
  if (secret === null || secret.length < 3) return text
  return text.split(secret).join('***')
}
