// Probes of checks with `configuration.ssh: true` dial the target through the
// managed runtime's SSH tunnel (the tunnel stage) instead of directly.
import { NO_KEY, TUNNEL_FAILURES, type Opened } from '../../tunnel/index.ts'
import { PROBE_REASONS } from '../errors.ts'
import { outcome, type Outcome, type ProbeContext, type ProbeTarget } from './outcome.ts'

export type Dialled = { ok: true; bridge: Extract<Opened, { ok: true }>['bridge']; tunnelMs: number } | { ok: false; outcome: Outcome }

/** A failure to reach or trust the SSH server says nothing about the target: unknown. A refusal behind it is the target's: down. */
function tunnelOutcome(failed: Extract<Opened, { ok: false }>): Outcome {
  const { message, latencyMs } = failed
  switch (failed.failure) {
    case NO_KEY: return outcome('unknown', PROBE_REASONS.sshKey, message, latencyMs)
    case TUNNEL_FAILURES.hostKey: return outcome('unknown', PROBE_REASONS.sshHostKey, message, latencyMs)
    case TUNNEL_FAILURES.auth: return outcome('unknown', PROBE_REASONS.sshAuth, message, latencyMs)
    case TUNNEL_FAILURES.refused: return outcome('down', PROBE_REASONS.refused, message, latencyMs)
    case TUNNEL_FAILURES.dns: return outcome('down', PROBE_REASONS.dns, message, latencyMs)
    case TUNNEL_FAILURES.target: return outcome('down', PROBE_REASONS.network, message, latencyMs)
    default: return outcome('unknown', PROBE_REASONS.sshTunnel, message, latencyMs)
  }
}

const MIN_PROBE_MS = 500

/** null: the check does not use a tunnel. Otherwise the bridge to dial, or the outcome that ends the probe. */
export async function throughTunnel(
  target: ProbeTarget, ctx: ProbeContext | undefined, socketName: string, dest?: { host: string; port: number },
): Promise<Dialled | null> {
  const c = target.config as { ssh?: boolean; host: string; port: number }
  if (c.ssh !== true) return null
  const { host, port } = dest ?? c
  if (ctx?.tunnels === undefined || target.owner === undefined) {
    return { ok: false, outcome: outcome('unknown', PROBE_REASONS.sshTunnel, 'SSH tunnels are run by the managed runtime only (the monitor role of the Lookout server)') }
  }
  const opened = await ctx.tunnels.open({ ...target.owner, host, port, timeoutMs: target.timeoutMs, socketName })
  return opened.ok ? opened : { ok: false, outcome: tunnelOutcome(opened) }
}

/** What is left of the probe's timeout once the tunnel is open. */
export function remainingMs(target: ProbeTarget, tunnelMs: number): number {
  return Math.max(MIN_PROBE_MS, target.timeoutMs - tunnelMs)
}
