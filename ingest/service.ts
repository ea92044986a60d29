// Ingest as the API sees it: admit a request under the in-flight byte budget,
// decode it in a worker, publish its rows durably, and report what was kept.
import { createHash } from 'node:crypto'
import type { Broker } from './broker/broker.ts'
import { KEY_CLAIMS, rowSubject } from './broker/broker.ts'
import { QueueFullError, type DecoderPool } from './pool.ts'
import type { DecodeFailure, DecodeSuccess, DecodeTask, IngestRoute } from './decode/task.ts'
import { DiskFullError, IdempotencyConflictError, IngestOverloadedError } from './errors.ts'
import { InvalidOptionError } from '../core/index.ts'
import { LIMITS } from './decode/schemas.ts'
import { nowNs } from '../core/index.ts'
import type { IngestObserver } from './observer.ts'
import { positiveInt } from '../core/index.ts'

/** The ingest service's defaults; deploy/config.ts reads them for its LOOKOUT_* variables. */
export const INGEST_DEFAULTS = {
  maxInFlightBytes: 256 * 1024 * 1024, maxDecompressedBytes: 64 * 1024 * 1024, chunkBytes: 1024 * 1024, maxMessageBytes: 8 * 1024 * 1024, retentionDays: 7,
} as const

export interface IngestServiceOptions {
  /** Counts what is acknowledged (metrics stage). */
  observer?: IngestObserver
  /** Request bytes being decoded or published at once; past it requests are refused. Default 256 MiB. */
  maxInFlightBytes?: number
  /** Largest decompressed body. Default 64 MiB. */
  maxDecompressedBytes?: number
  /** Target size of one broker message. Default 1 MiB. */
  chunkBytes?: number
  /** Largest broker message (the server's max_payload). Default 8 MiB. */
  maxMessageBytes?: number
  /** Days of retention: older events are refused. Default 7. */
  retentionDays?: number
  /**
   * Called once a request's rows are durably published, before it is acknowledged
   * (the desktop service enqueues them for forwarding). It must not throw.
   */
  onAccepted?: (batch: AcceptedBatch) => Promise<void> | void
  /** Free space of the data directory (disk-guard.ts): requests wait while it is short. */
  diskGuard?: { readonly problem: string | null }
}

/** What one request added: its rows as stored-row bytes (ingest/rows/rows.ts: JSONCompactEachRow, one per line). */
export interface AcceptedBatch {
  workspaceId: string
  resourceId: string
  rows: Uint8Array
  events: number
  /** Every broker message was a duplicate: a sender's retry of rows already accepted. */
  duplicate: boolean
}

export interface IngestRequest {
  route: IngestRoute
  format: 'json' | 'protobuf'
  gzip: boolean
  body: Uint8Array
  workspaceId: string
  resourceId: string
  /** The Idempotency-Key header (JSON batch and OTLP routes), validated by the caller; absent or '' without one. */
  idempotencyKey?: string
}

/** Assumed inflation of a gzip body until the worker tells the real size. */
const GZIP_RATIO_ESTIMATE = 10
/** Rows take about twice the bytes of what they are decoded from (rowsSizeHint in the worker). */
const ROWS_PER_BODY_BYTE = 2

export interface IngestResult {
  accepted: number
  rejected: number
  errorMessage: string
  resourceId: string
  duplicateMessages: number
}

export type IngestOutcome = { ok: true; result: IngestResult } | DecodeFailure

export class IngestService {
  readonly #pool: DecoderPool
  readonly #broker: Broker
  readonly #maxInFlight: number
  readonly #maxDecompressed: number
  readonly #chunkBytes: number
  readonly #maxMessageBytes: number
  readonly #retentionNs: bigint
  readonly #onAccepted: IngestServiceOptions['onAccepted']
  readonly #diskGuard: IngestServiceOptions['diskGuard']
  readonly #observer: IngestObserver | undefined
  #inFlight = 0
  #draining = false
  #pending = new Set<Promise<unknown>>()

  constructor(pool: DecoderPool, broker: Broker, options: IngestServiceOptions = {}) {
    this.#pool = pool
    this.#broker = broker
    this.#maxInFlight = positiveInt('maxInFlightBytes', options.maxInFlightBytes ?? INGEST_DEFAULTS.maxInFlightBytes)
    this.#maxDecompressed = positiveInt('maxDecompressedBytes', options.maxDecompressedBytes ?? INGEST_DEFAULTS.maxDecompressedBytes)
    this.#chunkBytes = positiveInt('chunkBytes', options.chunkBytes ?? INGEST_DEFAULTS.chunkBytes)
    this.#maxMessageBytes = positiveInt('maxMessageBytes', options.maxMessageBytes ?? INGEST_DEFAULTS.maxMessageBytes)
    this.#retentionNs = BigInt(positiveInt('retentionDays', options.retentionDays ?? INGEST_DEFAULTS.retentionDays)) * 86_400n * 1_000_000_000n
    this.#onAccepted = options.onAccepted
    this.#diskGuard = options.diskGuard
    this.#observer = options.observer
  }

  get inFlightBytes(): number {
    return this.#inFlight
  }

  /** The decoder pool this service hands bodies to (memory reports). */
  get decoders(): DecoderPool {
    return this.#pool
  }

  get maxInFlightBytes(): number {
    return this.#maxInFlight
  }

  /**
   * Decodes and durably publishes one request. `authorize` sees the resource
   * id the rows belong to (the legacy body names it) before anything is published.
   * Every way of being too busy is an IngestOverloadedError (429/503 with
   * Retry-After), never a failure a sender would not retry.
   */
  async accept(req: IngestRequest, authorize?: (resourceId: string) => Promise<void>): Promise<IngestOutcome> {
    // Read before: the body's memory moves to a worker thread.
    const bodyBytes = req.body.byteLength
    const charge = { bytes: this.admit(bodyBytes, req.gzip) }
    this.#inFlight += charge.bytes
    const work = this.#decodeAndPublish(req, charge, authorize)
    this.#pending.add(work)
    try {
      const out = await work
      if (out.ok) this.#observer?.ingestAccepted(req.route, out.result.accepted, bodyBytes, out.result.rejected, out.result.duplicateMessages)
      return out
    } catch (err) {
      // The pool may fill between the check above and the hand-over.
      if (err instanceof QueueFullError) throw new IngestOverloadedError('the decoder queue is full')
      throw err
    } finally {
      this.#pending.delete(work)
      this.#inFlight -= charge.bytes
    }
  }

  /**
   * Whether a request of this size would be taken now: throws the refusal
   * (overload, disk) if not, else returns what it will be charged until its
   * publish is acknowledged: the body as received, what it inflates to, and
   * its rows (estimated here, corrected once decoded). The routes ask before
   * reading a body, so a refusal under a flood costs no read.
   */
  admit(received: number, gzip: boolean): number {
    if (this.#draining) throw new IngestOverloadedError('the server is shutting down')
    const diskProblem = this.#diskGuard?.problem
    if (diskProblem != null) throw new DiskFullError(diskProblem)
    if (this.#pool.queueFull) throw new IngestOverloadedError('the decoder queue is full')
    const inflated = gzip ? Math.min(received * GZIP_RATIO_ESTIMATE, this.#maxDecompressed) : 0
    const bytes = received + inflated + (inflated || received) * ROWS_PER_BODY_BYTE
    if (this.#inFlight + bytes > this.#maxInFlight && this.#inFlight > 0) {
      throw new IngestOverloadedError(`${this.#inFlight} bytes in flight`)
    }
    return bytes
  }

  async #decodeAndPublish(req: IngestRequest, charge: { bytes: number }, authorize?: (resourceId: string) => Promise<void>): Promise<IngestOutcome> {
    const now = nowNs()
    const task: DecodeTask = {
      route: req.route,
      format: req.format,
      gzip: req.gzip,
      body: req.body,
      workspaceId: req.workspaceId,
      resourceId: req.resourceId,
      receivedNs: now.toString(),
      minTimeNs: now - this.#retentionNs,
      maxTimeNs: now + BigInt(LIMITS.futureToleranceMs) * 1_000_000n,
      maxDecompressedBytes: this.#maxDecompressed,
      maxChunkBytes: this.#chunkBytes,
      maxMessageBytes: this.#maxMessageBytes,
      idempotencyKey: req.idempotencyKey ?? '',
    }
    const received = req.body.byteLength
    const out = await this.#pool.run(task)
    if (!out.ok) return out
    const actual = received + out.inflatedBytes + out.data.byteLength
    this.#inFlight += actual - charge.bytes
    charge.bytes = actual
    if (authorize !== undefined) await authorize(out.resourceId)
    if (task.idempotencyKey !== '') await this.#claim(req, out.contentHash)
    const duplicateMessages = await this.#publish(out, rowSubject(req.route === 'legacy', req.workspaceId, out.resourceId))
    if (this.#onAccepted !== undefined && out.accepted > 0) {
      await this.#onAccepted({ workspaceId: req.workspaceId, resourceId: out.resourceId, rows: out.data, events: out.accepted, duplicate: duplicateMessages === out.chunks.length })
    }
    return {
      ok: true,
      result: {
        accepted: out.accepted,
        rejected: out.rejected,
        errorMessage: out.errorMessage,
        resourceId: out.resourceId,
        duplicateMessages,
      },
    }
  }

  /** An Idempotency-Key is bound to the body it first came with, for the duplicate window. */
  async #claim(req: IngestRequest, content: string): Promise<void> {
    const keyId = createHash('sha256').update(req.route).update('\0').update(req.workspaceId).update('\0')
      .update(req.resourceId).update('\0').update(req.idempotencyKey ?? '').digest('hex').slice(0, 32)
    const claim = await this.#broker.claimKey(keyId, content)
    if (claim === KEY_CLAIMS.conflict) throw new IdempotencyConflictError('this Idempotency-Key was used with another body')
  }

  async #publish(out: DecodeSuccess, subject: string): Promise<number> {
    const acks = out.chunks.map((c) => this.#broker.publish(subject, out.data.subarray(c.offset, c.offset + c.length), c.id, c.rows))
    const done = await Promise.all(acks)
    let dups = 0
    for (const a of done) if (a.duplicate) dups++
    return dups
  }

  /** Refuses new requests and waits for those in flight to be acknowledged. */
  async drain(): Promise<void> {
    this.#draining = true
    await Promise.allSettled([...this.#pending])
  }
}

