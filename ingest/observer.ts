// The ports through which ingest is counted: the metrics stage implements them
// and the launcher hands them in, so ingest never reaches for the registry.
import type { IngestRoute } from './decode/task.ts'

export const PUBLISH_RESULTS = ['stored', 'duplicate', 'buffer_full', 'unavailable'] as const
export type PublishResult = (typeof PUBLISH_RESULTS)[number]

/** Each broker publish, timed to the stream's acknowledgement (the dead letters' too). */
export interface BrokerObserver {
  published(result: PublishResult, seconds: number, bytes: number): void
}

/** What the ingest service acknowledged; refusals are counted at the HTTP edge with their code. */
export interface IngestObserver {
  ingestAccepted(route: IngestRoute, events: number, bytes: number, rejectedEvents: number, duplicateMessages: number): void
}

/** Each insert attempt of the loader, timed, with its body's size. */
export interface LoaderObserver {
  loaderInsert(ok: boolean, seconds: number, bytes: number): void
}
