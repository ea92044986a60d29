// Public surface of the metrics stage: what other stages use.
export { LookoutMetrics } from './registry.ts'
export { PipelineSamples } from './samples.ts'
export { startMetricsListener } from './listener.ts'
