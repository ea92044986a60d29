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

/** Default concurrent probes per kind in one process. */
export const DEFAULT_CONCURRENCY: Readonly<Record<Kind, number>> = {
  https: 256,
  tcp: 256,
  icmp: 16,
  postgresql: 32,
  mysql: 32,
  mariadb: 32,
  redis: 64,
  mongodb: 32,
  heartbeat: 64,
  // Count queries on the log store: a few at a time keep it free for searches and ingest.
  log: 8,
}

export const DEFAULT_INTERVAL_SECONDS = 120
export const DEFAULT_TIMEOUT_SECONDS = 10
/** Consecutive agreeing fresh observations needed to change health. */
export const CONFIRMATIONS = 2

export function isKind(s: string): s is Kind {
  return (ALL_KINDS as readonly string[]).includes(s)
}

export function defaultLocation(kind: Kind): Location {
  return kind === 'heartbeat' ? 'heartbeat' : 'public'
}
