// Public surface of the monitor stage: the scheduler, the check store the API
// routes use, configuration parsing, the schema, and the coded errors.
export { Monitor } from './scheduler.ts'
export type { MonitorOptions, MonitorStats, MonitorLogger, PhaseHook } from './scheduler.ts'
export { ManualClock, systemClock } from './clock.ts'
export type { Clock } from './clock.ts'
export { MONITOR_MIGRATIONS } from './migrations.ts'
export type { Sql, Database, SqlResult, MigrationSet } from './sql.ts'
export {
  KINDS, ALL_KINDS, LOCATIONS, ALL_LOCATIONS, SERVED_LOCATIONS, HEALTH, OBSERVATIONS, DEFAULT_CONCURRENCY,
  DEFAULT_INTERVAL_SECONDS, DEFAULT_TIMEOUT_SECONDS, CONFIRMATIONS, isKind, defaultLocation,
} from './kinds.ts'
export type { Kind, Location, Health, Observation } from './kinds.ts'
export { parseConfig, staleAfterMs, CONFIG_SCHEMAS } from './config.ts'
export type { CheckConfig, ConfigIssue } from './config.ts'
export { parseCredentialRef, resolveCredential, CREDENTIAL_ENV_PREFIX } from './credentials.ts'
export type { CredentialRef, CredentialPolicy } from './credentials.ts'
export {
  createCheck, findCheck, getCheck, editCheck, checkAction, recordBeat, listChecks, listTransitions, listIncidents,
  ACTIONS, MAX_CHECKS_LISTED,
} from './store.ts'
export type { NewCheck, CheckPatch, CheckAction, TransitionView, IncidentView } from './store.ts'
export { toCheckView, aggregateHealth, effectiveHealth, checkStateOf } from './rows.ts'
export type { CheckRow, CheckView } from './rows.ts'
export {
  insertSource, revokeSource, listSources, sourceExists, sourceOnResource, getSubscription, changeSubscription, SOURCE_KINDS, DEFAULT_CHANNELS,
} from './sources.ts'
export type { SourceView, SourceKind, SubscriptionView } from './sources.ts'
export { applyObservation, initialState } from './state.ts'
export type { CheckState, Effects, ObservationContext } from './state.ts'
export type { OutboxPayload } from './writer.ts'
export { createRunners } from './probes/index.ts'
export { HttpsRunner } from './probes/https.ts'
export { TcpRunner } from './probes/tcp.ts'
export { IcmpRunner } from './probes/icmp.ts'
export { DatabaseRunner } from './probes/database.ts'
export { HeartbeatRunner } from './probes/heartbeat.ts'
export type { Outcome, ProbeTarget, ProbeContext, Runner } from './probes/index.ts'
export { SshTunnels, KeyInstaller, SYNC_STATUS, fingerprintOf, sshCommand } from './tunnel/index.ts'
export type { RuntimeSecrets, SshEndpoint, SyncStatus, SshCommand } from './tunnel/index.ts'
export { SSH_KINDS } from './config.ts'
export {
  CheckNotFoundError, RevisionConflictError, IdTakenError, CheckPausedError, MONITOR_ERROR_CODES, MONITOR_PROBE_ERROR_CODES, PROBE_REASONS,
} from './errors.ts'
export type { MonitorErrorCode, ProbeReason } from './errors.ts'
export { MinHeap } from './heap.ts'
export type { HeapItem } from './heap.ts'
export { phaseOf } from './scheduler.ts'
export { COLLECTOR_MIGRATIONS } from './collectors/migrations.ts'
export { sourceOfToken, recordContact, checksTag, checksOfSource } from './collectors/store.ts'
export type { CollectorSource, CollectorCheck } from './collectors/store.ts'
export {
  acceptObservations, OBSERVATION_OUTCOMES, MAX_OBSERVATIONS_PER_PUSH, MAX_OBSERVATION_AGE_MS, FUTURE_TOLERANCE_MS,
} from './collectors/observations.ts'
export type { CollectorObservation, ObservationOutcome, PushResult } from './collectors/observations.ts'
export { CollectorWatch, DEFAULT_SILENCE_MIN_MS, DEFAULT_SILENCE_FACTOR } from './collectors/watch.ts'
export type { CollectorWatchOptions } from './collectors/watch.ts'
export { listResults, MAX_RESULTS_LISTED } from './results.ts'
export type { ResultView } from './results.ts'
