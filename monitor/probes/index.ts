// One runner per kind, made here for the monitor role and for the collector alike.
import type { Sql } from '../../core/index.ts'
import { ALL_KINDS, type Kind } from '../kinds.ts'
import { DatabaseRunner } from './database.ts'
import { HeartbeatRunner } from './heartbeat.ts'
import { HttpsRunner } from './https.ts'
import { IcmpRunner, type IcmpOptions } from './icmp.ts'
import type { Runner } from './outcome.ts'
import { TcpRunner } from './tcp.ts'
import { LogRunner, type LogSource } from './log.ts'

export type { Outcome, ProbeTarget, ProbeContext, Runner } from './outcome.ts'
export type { IcmpOptions } from './icmp.ts'
export type { LogSource, LogCount, LogCountRequest, LogSample, LogEvidence } from './log.ts'

export interface RunnerDeps {
  /** The monitor's store (heartbeats are judged from the beats it holds); a collector has none. */
  db: Sql | null
  icmp?: IcmpOptions
  logs?: LogSource
}

/** How each kind's runner is made; the database kinds share one runner (one pool of drivers). */
const RUNNERS: Readonly<Record<Kind, (deps: RunnerDeps, shared: { database?: DatabaseRunner }) => Runner>> = {
  https: () => new HttpsRunner(),
  tcp: () => new TcpRunner(),
  icmp: (d) => new IcmpRunner(d.icmp),
  postgresql: (_, s) => (s.database ??= new DatabaseRunner()),
  mysql: (_, s) => (s.database ??= new DatabaseRunner()),
  mariadb: (_, s) => (s.database ??= new DatabaseRunner()),
  redis: (_, s) => (s.database ??= new DatabaseRunner()),
  mongodb: (_, s) => (s.database ??= new DatabaseRunner()),
  heartbeat: (d) => {
    if (d.db === null) throw new Error('heartbeat checks are judged from the store: no runner without one')
    return new HeartbeatRunner(d.db)
  },
  log: (d) => new LogRunner(d.logs ?? null),
}

/** The runners of the given kinds (every kind by default). */
export function createRunners(db: Sql, opts?: Omit<RunnerDeps, 'db'>): Record<Kind, Runner>
export function createRunners(db: Sql | null, opts: Omit<RunnerDeps, 'db'>, kinds: readonly Kind[]): Partial<Record<Kind, Runner>>
export function createRunners(db: Sql | null, opts: Omit<RunnerDeps, 'db'> = {}, kinds: readonly Kind[] = ALL_KINDS): Partial<Record<Kind, Runner>> {
  const deps: RunnerDeps = { db, ...opts }
  const shared: { database?: DatabaseRunner } = {}
  return Object.fromEntries(kinds.map((k) => [k, RUNNERS[k](deps, shared)]))
}
