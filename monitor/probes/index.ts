// One runner per kind.
import type { Sql } from '../../core/index.ts'
import type { Kind } from '../kinds.ts'
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

export function createRunners(db: Sql, opts: { icmp?: IcmpOptions; logs?: LogSource } = {}): Record<Kind, Runner> {
  const database = new DatabaseRunner()
  return {
    https: new HttpsRunner(),
    tcp: new TcpRunner(),
    icmp: new IcmpRunner(opts.icmp),
    postgresql: database,
    mysql: database,
    mariadb: database,
    redis: database,
    mongodb: database,
    heartbeat: new HeartbeatRunner(db),
    log: new LogRunner(opts.logs ?? null),
  }
}
