// What a probe reports: its own module, so the SSH tunnels (which report
// outcomes too) do not import the probe context that refers to them.
import type { ProbeReason } from '../errors.ts'
import type { Observation } from '../vocabulary.ts'

export interface Outcome {
  status: Observation
  code: ProbeReason
  /** One line for people; never contains a secret. */
  reason: string
  latencyMs: number | null
  details: Record<string, unknown> | null
  /** Scheduler clock time at which the check should be looked at again, if sooner than its interval. */
  recheckAt?: number
}

export function outcome(status: Observation, code: ProbeReason, reason: string, latencyMs: number | null = null, details: Record<string, unknown> | null = null): Outcome {
  return { status, code, reason, latencyMs, details }
}
