// Check kinds, where they run, and the health/observation vocabularies.

export const KINDS = {
  https: 'https',
  tcp: 'tcp',
  icmp: 'icmp',
  postgresql: 'postgresql',
  mysql: 'mysql',
  mariadb: 'mariadb',
  redis: 'redis',
  mongodb: 'mongodb',
  heartbeat: 'heartbeat',
  /** Lookout extension: a count of matching log lines over a window, against a threshold (probes/log.ts). */
  log: 'log',
} as const
export type Kind = (typeof KINDS)[keyof typeof KINDS]
export const ALL_KINDS: readonly Kind[] = Object.values(KINDS)

export const LOCATIONS = { public: 'public', neura: 'neura', collector: 'collector', heartbeat: 'heartbeat' } as const
export type Location = (typeof LOCATIONS)[keyof typeof LOCATIONS]
export const ALL_LOCATIONS: readonly Location[] = Object.values(LOCATIONS)
/** Locations whose checks this service's monitor processes run (collector checks wait for a collector). */
export const SERVED_LOCATIONS: readonly Location[] = ['public', 'neura', 'heartbeat']

export const HEALTH = { healthy: 'healthy', unhealthy: 'unhealthy', unknown: 'unknown' } as const
export type Health = (typeof HEALTH)[keyof typeof HEALTH]

/** What one probe saw. `missing` is a heartbeat not received in time. */
export const OBSERVATIONS = { up: 'up', down: 'down', unknown: 'unknown', missing: 'missing' } as const
export type Observation = (typeof OBSERVATIONS)[keyof typeof OBSERVATIONS]

/**
 * What each kind is, declared once: the monitor's scheduler, the collector, the
 * configuration check (SSH tunnels) and the location rule of the check routes
 * all read this table. A new kind adds its row here, its runner (probes/index.ts),
 * its configuration schema (config.ts) and its probe file.
 */
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
const PROBE = (concurrency: number): KindSpec => ({ concurrency, locations: ANYWHERE, refusal: '' })

export const KIND_SPECS: Readonly<Record<Kind, KindSpec>> = {
  https: PROBE(256),
  tcp: PROBE(256),
  icmp: PROBE(16),
  postgresql: PROBE(32),
  mysql: PROBE(32),
  mariadb: PROBE(32),
  redis: PROBE(64),
  mongodb: PROBE(32),
  heartbeat: { concurrency: 64, locations: ['heartbeat'], refusal: 'a heartbeat check has location heartbeat' },
  // Count queries on the log store: a resource's checks are due together and StoreLogSource
  // (deploy/roles/log-source.ts) counts them in one statement over that resource's rows, one
  // statement at a time, so the store sees one statement however many evaluations wait.
  log: {
    concurrency: 200, phaseBy: 'resource', locations: ['public', 'neura'],
    refusal: 'a log check reads this service\'s log store: a collector cannot run it (use public)',
  },
}

/** Default concurrent probes per kind in one process. */
export const DEFAULT_CONCURRENCY: Readonly<Record<Kind, number>> =
  Object.fromEntries(ALL_KINDS.map((k) => [k, KIND_SPECS[k].concurrency])) as Record<Kind, number>
/** The kinds a collector runs. */
export const COLLECTOR_KINDS: readonly Kind[] = ALL_KINDS.filter((k) => KIND_SPECS[k].locations.includes('collector'))

/** Why a kind may not run at a location, or null when it may. */
export function locationRefusal(kind: Kind, location: Location): string | null {
  if (KIND_SPECS[kind].locations.includes(location)) return null
  return location === 'heartbeat' ? 'location heartbeat is only for heartbeat checks' : KIND_SPECS[kind].refusal
}

export const DEFAULT_INTERVAL_SECONDS = 120
export const DEFAULT_TIMEOUT_SECONDS = 10
/** Consecutive agreeing fresh observations needed to change health. */
export const CONFIRMATIONS = 2

export function isKind(s: string): s is Kind {
  return (ALL_KINDS as readonly string[]).includes(s)
}

export function defaultLocation(kind: Kind): Location {
  return KIND_SPECS[kind].locations[0] ?? 'public'
}
