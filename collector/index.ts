// Public surface of the collector stage: the remote probe agent (`lookout collector`).
export { collectorCommand } from './command.ts'
export { COLLECTOR_ERROR_CODES } from './errors.ts'
