// Instrumented versions of the ingest stage's components, built by the
// launcher in their place: they count per request, per broker message and per
// insert, around the real work, without changing what the ingest stage does.
import {
  Broker, IngestService, type BrokerOptions, type DecoderPool, type IngestOutcome, type IngestRequest,
  type IngestServiceOptions, type LogStore,
} from '../ingest/index.ts'
import type { LookoutMetrics } from './registry.ts'

type PubAck = Awaited<ReturnType<Broker['publish']>>

/** The broker, timing each publish to its stream acknowledgement. */
export class MeteredBroker extends Broker {
  readonly #metrics: LookoutMetrics

  constructor(metrics: LookoutMetrics, options: BrokerOptions) {
    super(options)
    this.#metrics = metrics
  }

  override async publish(subject: string, data: Uint8Array, msgId: string, rows: number): Promise<PubAck> {
    const t0 = performance.now()
    const bytes = data.byteLength
    try {
      const ack = await super.publish(subject, data, msgId, rows)
      this.#metrics.published(ack.duplicate ? 'duplicate' : 'stored', (performance.now() - t0) / 1000, bytes)
      return ack
    } catch (err) {
      const full = (err as { code?: string }).code === 'LOOKOUT_INGEST_OVERLOADED'
      this.#metrics.published(full ? 'buffer_full' : 'unavailable', (performance.now() - t0) / 1000, bytes)
      throw err
    }
  }
}

/**
 * The ingest service, counting what it acknowledges. Refusals are counted by
 * the HTTP layer (api/metrics/http.ts) with the error code the sender got,
 * so refusals before decoding (auth, media type, body limit) count too.
 */
export class MeteredIngestService extends IngestService {
  readonly #metrics: LookoutMetrics

  constructor(metrics: LookoutMetrics, pool: DecoderPool, broker: Broker, options: IngestServiceOptions = {}) {
    super(pool, broker, options)
    this.#metrics = metrics
  }

  override async accept(req: IngestRequest, authorize?: (resourceId: string) => Promise<void>): Promise<IngestOutcome> {
    // Read before: the body's memory moves to a worker thread.
    const bytes = req.body.byteLength
    const out = await super.accept(req, authorize)
    if (out.ok) this.#metrics.ingestAccepted(req.route, out.result.accepted, bytes, out.result.rejected, out.result.duplicateMessages)
    return out
  }
}

/** The log store as the loader sees it: each insert attempt timed, each batch's size recorded. */
export function meteredLogStore(store: LogStore, metrics: LookoutMetrics): LogStore {
  return {
    get embedded() {
      return store.embedded
    },
    get database() {
      return store.database
    },
    get cluster() {
      return store.cluster
    },
    command: (sql, params) => store.command(sql, params),
    query: (sql, params) => store.query(sql, params),
    ping: () => store.ping(),
    close: () => store.close(),
    async insertJsonRows(table, body, token, format) {
      const t0 = performance.now()
      const bytes = body.byteLength
      try {
        await store.insertJsonRows(table, body, token, format)
        metrics.loaderInsert(true, (performance.now() - t0) / 1000, bytes)
      } catch (err) {
        metrics.loaderInsert(false, (performance.now() - t0) / 1000, bytes)
        throw err
      }
    },
  }
}
