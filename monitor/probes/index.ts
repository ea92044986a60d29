// One runner per kind, made here for the monitor role and for the collector alike,
// from the kinds' declarations (registry.ts).
import type { Sql } from '../../core/index.ts'
import { ALL_KINDS, type Kind } from '../kinds.ts'
import type { KindDeclaration, RunnerDeps, RunnerFactory } from './kind.ts'
import type { Runner } from './outcome.ts'
import { KIND_DECLARATIONS } from './registry.ts'

export type { Outcome, ProbeTarget, ProbeContext, Runner } from './outcome.ts'
export type { IcmpOptions, KindDeclaration, RunnerDeps } from './kind.ts'
export type { LogSource, LogCount, LogCountRequest, LogSample, LogEvidence } from './log.ts'

/** The runners of the named kinds of a list of declarations; kinds declaring one factory share its runner. */
export function runnersOf(declarations: readonly KindDeclaration[], deps: RunnerDeps, kinds: readonly string[]): Record<string, Runner> {
  const made = new Map<RunnerFactory, Runner>()
  const out: Record<string, Runner> = {}
  for (const k of kinds) {
    const d = declarations.find((x) => x.name === k)
    if (d === undefined) throw new Error(`no declaration of the probe kind ${k}`)
    let r = made.get(d.runner)
    if (r === undefined) made.set(d.runner, (r = d.runner(deps)))
    out[k] = r
  }
  return out
}

/** The runners of the given kinds (every kind by default). */
export function createRunners(db: Sql, opts?: Omit<RunnerDeps, 'db'>): Record<Kind, Runner>
export function createRunners(db: Sql | null, opts: Omit<RunnerDeps, 'db'>, kinds: readonly Kind[]): Partial<Record<Kind, Runner>>
export function createRunners(db: Sql | null, opts: Omit<RunnerDeps, 'db'> = {}, kinds: readonly Kind[] = ALL_KINDS): Partial<Record<Kind, Runner>> {
  return runnersOf(KIND_DECLARATIONS, { db, ...opts }, kinds)
}
