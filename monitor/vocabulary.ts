// Where checks run and what they report: the vocabularies the probes share. A leaf
// (it imports nothing), so the probe files that declare the kinds can use it
// while kinds.ts builds the kind tables from their declarations.

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

export const DEFAULT_INTERVAL_SECONDS = 120
export const DEFAULT_TIMEOUT_SECONDS = 10
/** Consecutive agreeing fresh observations needed to change health. */
export const CONFIRMATIONS = 2
