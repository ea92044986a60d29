// The monitor stage's internal surface, for tests and benchmarks only (test/layout.test.ts
// refuses it to production stages): the public surface (index.ts: what other stages use)
// plus what only tests and benchmarks reach for.
export * from './index.ts'
export type { MonitorOptions, PhaseHook } from './scheduler.ts'
export { ManualClock } from './clock.ts'
export { ALL_KINDS, KIND_SPECS, kindTables } from './kinds.ts'
export { KIND_DECLARATIONS } from './probes/registry.ts'
export { declareKind, probeAnywhere } from './probes/kind.ts'
export type { KindDeclaration } from './probes/kind.ts'
export { CONFIG_SCHEMAS, configParser } from './config.ts'
export { runnersOf } from './probes/index.ts'
export { HttpsRunner } from './probes/https.ts'
export { TcpRunner } from './probes/tcp.ts'
export { IcmpRunner } from './probes/icmp.ts'
export { DatabaseRunner } from './probes/database.ts'
export type { ProbeContext } from './probes/index.ts'
export { LOG_QUERY_FILTERS } from './log-config.ts'
