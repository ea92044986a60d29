// What a probe kind declares, once, next to its runner: its name, where and how
// often it runs, its configuration, and how its runner is made. registry.ts lists
// the declarations; the kind tables (kinds.ts), the configuration check
// (config.ts) and the runners (index.ts) are all derived from that list.
import type { Sql } from '../../core/index.ts'
import type { ConfigIssue } from '../config-parts.ts'
import type { Location } from '../vocabulary.ts'
import type { LogSource } from './log.ts'
import type { Runner } from './outcome.ts'

export interface KindSpec {
  /** Concurrent probes per process. */
  concurrency: number
  /** Where it may run; the first is the default. */
  locations: readonly Location[]
  /** Why another location is refused (location heartbeat has its own message). */
  refusal: string
  /**
   * What a check's phase is a hash of: its own id (checks spread over the interval), or its
   * resource's id (the kind's checks of one resource are due together, as a Prometheus or Loki
   * rule group is evaluated together, so work that batches per resource gets whole batches).
   */
  phaseBy?: 'check' | 'resource'
}

const ANYWHERE: readonly Location[] = ['public', 'neura', 'collector']
/** An active probe that may run at any probing location, a collector's included. */
export const probeAnywhere = (concurrency: number): KindSpec => ({ concurrency, locations: ANYWHERE, refusal: '' })

export interface IcmpOptions {
  /** The ping binary; default `ping` on PATH. */
  pingPath?: string
}

/** What the process hands the runner factories (the monitor role has all of it; a collector has no store). */
export interface RunnerDeps {
  /** The monitor's store (heartbeats are judged from the beats it holds); a collector has none. */
  db: Sql | null
  icmp?: IcmpOptions
  logs?: LogSource
}

export type RunnerFactory = (deps: RunnerDeps) => Runner

export interface KindDeclaration<N extends string = string> {
  name: N
  spec: KindSpec
  /**
   * The kind's configuration keys, as JSON schemas, in the order they are listed. config.ts puts
   * the timing keys (interval_seconds, and timeout_seconds unless the kind is passive) first and
   * refuses any other key.
   */
  properties: Readonly<Record<string, object>>
  required?: readonly string[]
  /** What the schema cannot say (after it passed, defaults filled in): the problems, in order. */
  check?: (config: Record<string, unknown>) => ConfigIssue[]
  /** A kind that is judged, not probed (heartbeat): no timeout, and a grace past the interval. */
  passive?: { graceMs: (config: Record<string, unknown>) => number }
  /** Kinds that declare the same factory share the one runner it makes in a process (the database kinds: one pool of drivers). */
  runner: RunnerFactory
}

/** Keeps the kind's name a literal type, so the registry's list gives the `Kind` union. */
export function declareKind<const N extends string>(d: KindDeclaration<N>): KindDeclaration<N> {
  return d
}
