// An undici dispatcher that checks where it connects. The check runs inside
// the connection's own DNS lookup (connect.lookup), so the addresses judged are
// the ones connected to: every address the name resolves to must be allowed,
// and only those validated addresses are handed to the socket (no second
// lookup). An IP-literal URL makes no lookup at all, so checkUrl judges it
// before the request. Redirects are never followed (no redirect interceptor).
import { lookup as dnsLookup } from 'node:dns/promises'
import type { LookupAddress, LookupOptions } from 'node:dns'
import { isIP } from 'node:net'
import { createRequire } from 'node:module'
import type { Agent } from 'undici'
import { classifyAddress, firstRefused, type OutboundPolicy } from './address.ts'

/** Resolves a host name to every address it has (injectable: tests map names to chosen addresses). */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>

export const systemResolver: Resolver = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

export const DESTINATION_REFUSED = 'LOOKOUT_DESTINATION_REFUSED'

/** A destination the outbound policy refuses: never retried, since only a configuration change can help. */
export class DestinationRefusedError extends Error {
  readonly code = DESTINATION_REFUSED

  constructor(message: string) {
    super(message)
    this.name = 'DestinationRefusedError'
  }
}

/** True for a refusal, however undici wrapped it. */
export function isRefusal(err: unknown): err is DestinationRefusedError {
  for (let e: unknown = err, depth = 0; e !== null && e !== undefined && depth < 5; depth++) {
    if ((e as { code?: unknown }).code === DESTINATION_REFUSED) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

function describe(host: string, address: string, cls: string, policy: OutboundPolicy): string {
  const what = host === address ? `${address} is` : `${host} resolves to ${address},`
  return `${what} a ${cls} address: ${policy.name} may not connect there`
}

/** Throws DestinationRefusedError when the addresses (all of one name) are not all allowed. */
export function checkAddresses(host: string, addresses: readonly string[], policy: OutboundPolicy): void {
  if (addresses.length === 0) throw new DestinationRefusedError(`${host} resolves to no address`)
  const bad = firstRefused(addresses, policy)
  if (bad !== null) throw new DestinationRefusedError(describe(host, bad.address, bad.cls, policy))
}

const SCHEMES = new Set(['http:', 'https:'])

/** Parses a destination URL: http or https; an IP-literal host is judged here, since no lookup will happen. */
export function checkUrl(raw: string, policy: OutboundPolicy): URL {
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    throw new DestinationRefusedError('the destination is not a valid URL')
  }
  if (!SCHEMES.has(u.protocol)) throw new DestinationRefusedError(`the destination must use http or https, not ${u.protocol.replace(':', '')}`)
  const host = u.hostname.startsWith('[') ? u.hostname.slice(1, -1) : u.hostname
  if (isIP(host) !== 0) checkAddresses(host, [host], policy)
  return u
}

/** True when the URL's host is an IP literal of a class the policy refuses (an early, static check for saved settings). */
export function literalRefused(raw: string, policy: OutboundPolicy): string | null {
  try {
    checkUrl(raw, policy)
    return null
  } catch (err) {
    return (err as Error).message
  }
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/** A connect.lookup that resolves with `resolver`, validates every address and returns only validated ones. */
export function pinnedLookup(policy: OutboundPolicy, resolver: Resolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    let addresses: readonly LookupAddress[] = []
    resolver(hostname).then((found) => {
      // The family the socket asked for narrows the choice; it never widens the check.
      checkAddresses(hostname, found.map((a) => a.address), policy)
      const wanted = options.family === 4 || options.family === 6 ? found.filter((a) => a.family === options.family) : found
      if (wanted.length === 0) throw Object.assign(new Error(`${hostname} has no IPv${String(options.family)} address`), { code: 'ENOTFOUND' })
      addresses = wanted
    }).then(() => {
      const first = addresses[0] as LookupAddress
      if (options.all === true) callback(null, addresses.map((a) => ({ address: a.address, family: a.family })))
      else callback(null, first.address, first.family)
    }, (err: NodeJS.ErrnoException) => callback(err, ''))
  }
}

export interface SafeAgentOptions {
  /** Injected name resolution (tests); the check itself is always the real one. */
  resolver?: Resolver
  /** Connect, header and body timeouts. Default 10 s. */
  timeoutMs?: number
}

/**
 * undici, loaded by the first agent: most processes that import core never make
 * an outbound request (a decoder worker), and undici is about 30 MiB resident.
 */
export function undici(): typeof import('undici') {
  return createRequire(import.meta.url)('undici') as typeof import('undici')
}

/** An Agent whose every connection passes the policy's address check. */
export function safeAgent(policy: OutboundPolicy, opts: SafeAgentOptions = {}): Agent {
  const timeoutMs = opts.timeoutMs ?? 10_000
  const { Agent: UndiciAgent } = undici()
  return new UndiciAgent({
    connect: { lookup: pinnedLookup(policy, opts.resolver ?? systemResolver) as never, timeout: timeoutMs },
    headersTimeout: timeoutMs,
    bodyTimeout: timeoutMs,
    connections: 8,
  })
}

export { classifyAddress }
