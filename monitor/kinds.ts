// The check kinds' tables, derived from their declarations (probes/registry.ts:
// each probe file declares its kind once), and the vocabularies they use.
// The monitor's scheduler, the collector, the configuration check (SSH tunnels)
// and the location rule of the check routes all read these tables.
import type { KindDeclaration, KindSpec } from './probes/kind.ts'
import { KIND_DECLARATIONS, type Kind } from './probes/registry.ts'
import type { Location } from './vocabulary.ts'

export * from './vocabulary.ts'
export type { Kind, KindSpec }

/** What the rest of the stage reads about a list of kinds (the registry's, or a test's own). */
export function kindTables<K extends string>(declarations: readonly KindDeclaration<K>[]) {
  const names = new Set<string>()
  for (const d of declarations) {
    if (names.has(d.name)) throw new Error(`the probe kind ${d.name} is declared twice`)
    names.add(d.name)
  }
  const all: readonly K[] = declarations.map((d) => d.name)
  const table = <V>(f: (d: KindDeclaration<K>) => V) => Object.fromEntries(declarations.map((d) => [d.name, f(d)])) as Record<K, V>
  return {
    all,
    specs: table((d) => d.spec),
    concurrency: table((d) => d.spec.concurrency),
    collector: declarations.filter((d) => d.spec.locations.includes('collector')).map((d) => d.name),
  }
}

const TABLES = kindTables<Kind>(KIND_DECLARATIONS)

export const ALL_KINDS: readonly Kind[] = TABLES.all
export const KINDS = Object.fromEntries(ALL_KINDS.map((k) => [k, k])) as { readonly [K in Kind]: K }
export const KIND_SPECS: Readonly<Record<Kind, KindSpec>> = TABLES.specs
/** Default concurrent probes per kind in one process. */
export const DEFAULT_CONCURRENCY: Readonly<Record<Kind, number>> = TABLES.concurrency
/** The kinds a collector runs. */
export const COLLECTOR_KINDS: readonly Kind[] = TABLES.collector

/** Why a kind may not run at a location, or null when it may. */
export function locationRefusal(kind: Kind, location: Location): string | null {
  if (KIND_SPECS[kind].locations.includes(location)) return null
  return location === 'heartbeat' ? 'location heartbeat is only for heartbeat checks' : KIND_SPECS[kind].refusal
}

export function isKind(s: string): s is Kind {
  return (ALL_KINDS as readonly string[]).includes(s)
}

export function defaultLocation(kind: Kind): Location {
  return KIND_SPECS[kind].locations[0] ?? 'public'
}
