// Probes of checks with `configuration.ssh: true` dial the target through the
// managed runtime's SSH tunnel (monitor/tunnel/) instead of directly.
import { PROBE_REASONS } from '../errors.ts'
import type { Opened } from '../tunnel/tunnels.ts'
import { outcome, type ProbeContext, type ProbeTarget } from './outcome.ts'

const MIN_PROBE_MS = 500

/** null: the check does not use a tunnel. Otherwise the bridge to dial, or the outcome that ends the probe. */
export async function throughTunnel(
  target: ProbeTarget, ctx: ProbeContext | undefined, socketName: string, dest?: { host: string; port: number },
): Promise<Opened | null> {
  const c = target.config as { ssh?: boolean; host: string; port: number }
  if (c.ssh !== true) return null
  const { host, port } = dest ?? c
  if (ctx?.tunnels === undefined || target.owner === undefined) {
    return { ok: false, outcome: outcome('unknown', PROBE_REASONS.sshTunnel, 'SSH tunnels are run by the managed runtime only (the monitor role of the Lookout server)') }
  }
  return ctx.tunnels.open({ ...target.owner, host, port, timeoutMs: target.timeoutMs, socketName })
}

/** What is left of the probe's timeout once the tunnel is open. */
export function remainingMs(target: ProbeTarget, tunnelMs: number): number {
  return Math.max(MIN_PROBE_MS, target.timeoutMs - tunnelMs)
}
