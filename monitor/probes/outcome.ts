// What a probe is given and reports, and the classification of network errors into reason codes.
import type { CredentialPolicy, CredentialRef } from '../credentials.ts'
import { PROBE_REASONS, type ProbeReason } from '../errors.ts'
import type { CheckState } from '../state.ts'
import type { Observation } from '../vocabulary.ts'
import type { SshTunnels } from '../../tunnel/index.ts'
import { outcome, type Outcome } from './result.ts'

export { outcome, type Outcome }

export interface ProbeTarget {
  checkId: string
  /** A kind of the registry (a string here: the probe files that declare the kinds use this type). */
  kind: string
  /** The stored configuration (defaults filled in). */
  config: Record<string, unknown>
  credential: CredentialRef | null
  timeoutMs: number
  intervalMs: number
  graceMs: number
  /** When the check was created or last resumed (heartbeat: the first beat is due from here). */
  activeSince: number
  /** Whose check it is: the SSH tunnel of a neura check uses this resource's registered key. */
  owner?: { workspaceId: string; resourceId: string }
  /** The check's resource, for kinds that read this service's own stores (log). */
  resource?: { workspaceId: string; resourceId: string }
}

export interface ProbeContext {
  credentials: CredentialPolicy
  /** SSH tunnels with the workspace's runtime secrets: only the managed runtime (the monitor role) has them. */
  tunnels?: SshTunnels
  /** The scheduler clock's time at probe start. */
  now: number
  /** The check's confirmation state before this observation (the monitor's; absent elsewhere): a log check reads its sample lines only when this observation can change something. */
  state?: Readonly<CheckState>
}

export interface Runner {
  run(target: ProbeTarget, ctx: ProbeContext): Promise<Outcome>
  /** Releases pooled resources (agents, child processes) at shutdown. */
  close?(): Promise<void>
}


const TIMEOUT_CODES = new Set(['ETIMEDOUT', 'UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT', 'ABORT_ERR', 'ESOCKETTIMEDOUT'])
const REFUSED_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'EPIPE'])
const DNS_CODES = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_NONAME', 'EAI_FAIL'])
const CERT_TIME_CODES = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID'])

function codesOf(err: unknown): string[] {
  const out: string[] = []
  let e: unknown = err
  for (let i = 0; i < 5 && e !== null && typeof e === 'object'; i++) {
    const o = e as { code?: unknown; name?: unknown; cause?: unknown }
    if (typeof o.code === 'string') out.push(o.code)
    if (o.name === 'AbortError' || o.name === 'TimeoutError') out.push('ABORT_ERR')
    e = o.cause
  }
  return out
}

function messageOf(err: unknown): string {
  let e: unknown = err
  let msg = ''
  for (let i = 0; i < 5 && e !== null && typeof e === 'object'; i++) {
    const m = (e as { message?: unknown }).message
    if (typeof m === 'string' && m !== '') msg = m
    e = (e as { cause?: unknown }).cause
  }
  return (msg || String(err)).split('\n')[0]?.slice(0, 300) ?? ''
}

/** A network or TLS failure as a down observation with its reason code. */
export function networkFailure(err: unknown, timeoutMs: number, latencyMs: number | null): Outcome {
  const codes = codesOf(err)
  const code = codes[0] ?? ''
  const msg = messageOf(err)
  const has = (set: Set<string>) => codes.some((c) => set.has(c))
  if (has(TIMEOUT_CODES)) return outcome('down', PROBE_REASONS.timeout, `no answer within ${timeoutMs} ms`, latencyMs)
  if (has(CERT_TIME_CODES)) return outcome('down', PROBE_REASONS.certExpired, `TLS: ${msg} (${code})`, latencyMs)
  if (codes.some((c) => c.includes('CERT') || c.startsWith('ERR_SSL') || c.startsWith('ERR_TLS') || c.includes('SELF_SIGNED') || c.includes('UNABLE_TO'))) {
    return outcome('down', PROBE_REASONS.tls, `TLS: ${msg} (${code})`, latencyMs)
  }
  if (has(DNS_CODES)) return outcome('down', PROBE_REASONS.dns, `host not found (${code})`, latencyMs)
  if (has(REFUSED_CODES)) return outcome('down', PROBE_REASONS.refused, `${msg} (${code})`, latencyMs)
  return outcome('down', PROBE_REASONS.network, code === '' ? msg : `${msg} (${code})`, latencyMs)
}

export function elapsed(start: number): number {
  return Math.round((performance.now() - start) * 100) / 100
}
