// Public surface of the monitor stage: the scheduler, the check store the API
// routes use, configuration parsing, the schema, and the coded errors.
export { Monitor } from './scheduler.ts'
export type { MonitorOptions, PhaseHook } from './scheduler.ts'
export { ManualClock, systemClock } from './clock.ts'
export type { Clock } from './clock.ts'
export { MONITOR_MIGRATIONS } from './migrations.ts'
export { ALL_KINDS, ALL_LOCATIONS, DEFAULT_CONCURRENCY, defaultLocation } from './kinds.ts'
export type { Kind, Location, Health } from './kinds.ts'
export { parseConfig } from './config.ts'
export type { CheckConfig, ConfigIssue } from './config.ts'
export { parseCredentialRef } from './credentials.ts'
export type { CredentialRef, CredentialPolicy } from './credentials.ts'
export {
  createCheck, findCheck, editCheck, checkAction, recordBeat, listChecks, listTransitions, listIncidents, ACTIONS,
} from './store.ts'
export type { NewCheck, CheckPatch, CheckAction, TransitionView, IncidentView } from './store.ts'
export { toCheckView, aggregateHealth } from './rows.ts'
export type { CheckRow, CheckView } from './rows.ts'
export {
  insertSource, revokeSource, listSources, sourceExists, sourceOnResource, getSubscription, changeSubscription, SOURCE_KINDS, DEFAULT_CHANNELS,
} from './sources.ts'
export type { SourceKind } from './sources.ts'
export type { OutboxPayload } from './writer.ts'
export { HttpsRunner } from './probes/https.ts'
export { TcpRunner } from './probes/tcp.ts'
export { IcmpRunner } from './probes/icmp.ts'
export { DatabaseRunner } from './probes/database.ts'
export type { Outcome, ProbeTarget, ProbeContext, Runner } from './probes/index.ts'
export { createRunners } from './probes/index.ts'
export { SshTunnels, fingerprintOf, sshCommand } from './tunnel/index.ts'
export type { RuntimeSecrets, SshEndpoint, SyncStatus, SshCommand } from './tunnel/index.ts'
export { CheckNotFoundError, IdTakenError, MONITOR_ERROR_CODES, MONITOR_PROBE_ERROR_CODES, PROBE_REASONS } from './errors.ts'
export type { MonitorErrorCode } from './errors.ts'
export { MinHeap } from './heap.ts'
export type { HeapItem } from './heap.ts'
export { phaseOf } from './scheduler.ts'
export { COLLECTOR_MIGRATIONS } from './collectors/migrations.ts'
export { sourceOfToken, recordContact, checksTag, checksOfSource } from './collectors/store.ts'
export type { CollectorSource, CollectorCheck } from './collectors/store.ts'
export { acceptObservations, MAX_OBSERVATIONS_PER_PUSH } from './collectors/observations.ts'
export type { CollectorObservation, PushResult } from './collectors/observations.ts'
export { CollectorWatch } from './collectors/watch.ts'
export { listResults, MAX_RESULTS_LISTED } from './results.ts'
export {
  attentionChecks, attentionOf, openIncidentsOf, findIncident, confirmingObservations, recentObservations, OVERVIEW_MAX_ITEMS, INCIDENT_OBSERVATIONS,
} from './overview.ts'
export type { Attention, AttentionCheck, IncidentRecord, ObservationView } from './overview.ts'
export { DESKTOP_MONITORING_QUERY } from './http-schemas.ts'
export {
  MONITOR_CHANGE, MONITOR_SOURCE, MONITOR_SUBSCRIPTION, MONITORING_QUERY, DESKTOP_ACTION, DESKTOP_CHECK, HEARTBEAT,
} from './http-schemas.ts'
