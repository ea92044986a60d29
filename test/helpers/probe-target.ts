// Builds a probe target from a kind and configuration the way the scheduler does.
import { parseConfig, type CredentialRef, type Kind, type ProbeTarget } from '../../monitor/index.ts'

export function probeTarget(kind: Kind, configuration: Record<string, unknown>, credential: CredentialRef | null = null): ProbeTarget {
  const r = parseConfig(kind, configuration)
  if (!r.ok) throw new Error(`bad test configuration: ${JSON.stringify(r.issues)}`)
  return {
    checkId: crypto.randomUUID(), kind, config: r.config.stored, credential, timeoutMs: r.config.timeoutMs,
    intervalMs: r.config.intervalMs, graceMs: r.config.graceMs, activeSince: Date.now(),
  }
}
