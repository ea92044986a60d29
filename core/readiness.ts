// What a readiness check reports: the api edge gates on it, the metrics stage exports it.
export const DEPENDENCY_STATES = { ready: 'ready', unavailable: 'unavailable' } as const
export type DependencyState = (typeof DEPENDENCY_STATES)[keyof typeof DEPENDENCY_STATES]

export interface ReadinessReport {
  status: DependencyState
  dependencies: Record<string, DependencyState>
}
