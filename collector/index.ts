// Public surface of the collector stage: the remote probe agent (`lookout collector`).
export { Collector, COLLECTOR_VERSION, EXIT_REFUSED } from './agent.ts'
export type { CollectorOptions, CollectorStats } from './agent.ts'
export { ObservationBuffer } from './buffer.ts'
export type { BufferLimits } from './buffer.ts'
export { collectorCommand, COLLECTOR_USAGE } from './command.ts'
export { COLLECTOR_ERROR_CODES, CredentialRefusedError, DataDirError } from './errors.ts'
