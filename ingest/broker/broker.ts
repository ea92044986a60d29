// NATS JetStream: the durable buffer between the API and the loaders.
import { connect } from '@nats-io/transport-node'
import type { NatsConnection } from '@nats-io/transport-node'
import {
  AckPolicy, DeliverPolicy, DiscardPolicy, JetStreamApiCodes, JetStreamApiError, jetstream, jetstreamManager, RetentionPolicy, StorageType,
  type Consumer, type ConsumerInfo, type JetStreamClient, type JetStreamManager, type PubAck,
} from '@nats-io/jetstream'
import { headers, type MsgHdrs } from '@nats-io/transport-node'
import pRetry from 'p-retry'
import { BrokerUnavailableError, IngestOverloadedError } from '../errors.ts'
import { resetLeftBooks, type ConsumerReset } from './consumer-books.ts'
import { InvalidOptionError } from '../../core/index.ts'
import type { BrokerObserver } from '../observer.ts'

export const SUBJECTS = {
  rows: 'lookout.logs.rows',
  legacy: 'lookout.logs.legacy',
  deadLetter: 'lookout.dlq.logs',
  keys: 'lookout.ingest.keys',
} as const

/**
 * Where a request's rows are published: the route's subject plus workspace and
 * resource, so a live tail subscribes to one resource (or one workspace), not
 * to every row of every workspace. The bare subjects stay in the stream for
 * messages published before.
 */
export function rowSubject(legacy: boolean, workspaceId: string, resourceId: string): string {
  return `${legacy ? SUBJECTS.legacy : SUBJECTS.rows}.${workspaceId}.${resourceId}`
}

/** The subjects a live tail of one resource (or, with null, of a whole workspace) listens on. */
export function tailSubjects(workspaceId: string, resourceId: string | null): string[] {
  const tail = `${workspaceId}.${resourceId ?? '*'}`
  return [`${SUBJECTS.rows}.${tail}`, `${SUBJECTS.legacy}.${tail}`]
}

/** Whether a stored-rows message came through the legacy route (per-resource event ids). */
export function isLegacySubject(subject: string): boolean {
  return subject === SUBJECTS.legacy || subject.startsWith(SUBJECTS.legacy + '.')
}

/** What claiming an Idempotency-Key found: a new key, the same request again, or the key taken by another body. */
export const KEY_CLAIMS = { fresh: 'fresh', same: 'same', conflict: 'conflict' } as const
export type KeyClaim = (typeof KEY_CLAIMS)[keyof typeof KEY_CLAIMS]

export const HEADER_ROWS = 'Lookout-Rows'

export interface BrokerOptions {
  servers: string | string[]
  stream?: string
  /** Replicas of the streams (3 on a cluster). */
  replicas?: number
  /** Largest backlog in bytes; past it publishes fail (never silent loss). */
  maxBytes?: number
  /**
   * Window within which a repeated Nats-Msg-Id is a duplicate, and an
   * Idempotency-Key is remembered. Default 10 minutes: past the OTel
   * Collector's default retry budget (5 minutes).
   */
  duplicateWindowMs?: number
  /** Counts each publish (metrics stage). */
  observer?: BrokerObserver
  /** Time to wait for a publish acknowledgement. */
  publishTimeoutMs?: number
  /**
   * How long start() keeps trying to create the streams and the consumer while
   * the cluster is still forming (no meta leader yet, too few peers for the
   * replicas). Default 60 s.
   */
  setupTimeoutMs?: number
  /**
   * The servers were started for this broker alone, just now (the managed
   * nats-server): no other client can hold deliveries, so consumer books a
   * previous life left are set straight at start (consumer-books.ts).
   */
  soleClient?: boolean
  name?: string
}

const MS = 1_000_000 // nanoseconds per millisecond (JetStream durations are ns)
export const DEFAULT_DUPLICATE_WINDOW_MS = 600_000
/** The broker's defaults; deploy/config.ts reads them for its NATS and stream variables. */
export const BROKER_DEFAULTS = { replicas: 1, maxBytes: 8 * 1024 ** 3, duplicateWindowMs: DEFAULT_DUPLICATE_WINDOW_MS } as const
/**
 * How long a loader may hold a message before JetStream redelivers it. Short,
 * so a crashed loader's batch comes back quickly; a loader busy with a long
 * insert keeps its messages with working() every half of it.
 */
export const ACK_WAIT_MS = 10_000

export class Broker {
  readonly stream: string
  readonly consumerName = 'loader'
  readonly #opts: Required<Omit<BrokerOptions, 'name' | 'observer'>> & Pick<BrokerOptions, 'observer'>
  #nc: NatsConnection | null = null
  #js: JetStreamClient | null = null
  #jsm: JetStreamManager | null = null
  #consumerNc: NatsConnection | null = null
  /** What start() found and set straight in the loader consumer's books (soleClient), or null. */
  consumerReset: ConsumerReset | null = null

  constructor(options: BrokerOptions) {
    const replicas = options.replicas ?? BROKER_DEFAULTS.replicas
    if (!Number.isInteger(replicas) || replicas < 1 || replicas > 5) throw new InvalidOptionError('replicas', 'must be an integer 1..5')
    const maxBytes = options.maxBytes ?? BROKER_DEFAULTS.maxBytes
    if (!(maxBytes > 0)) throw new InvalidOptionError('maxBytes', 'must be > 0')
    this.stream = options.stream ?? 'LOGS'
    const window = options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS
    if (!Number.isInteger(window) || window < 1000) throw new InvalidOptionError('duplicateWindowMs', 'must be an integer >= 1000 (ms)')
    this.#opts = {
      servers: options.servers,
      stream: this.stream,
      replicas,
      maxBytes,
      duplicateWindowMs: options.duplicateWindowMs ?? DEFAULT_DUPLICATE_WINDOW_MS,
      publishTimeoutMs: options.publishTimeoutMs ?? 10_000,
      setupTimeoutMs: options.setupTimeoutMs ?? 60_000,
      soleClient: options.soleClient ?? false,
      observer: options.observer,
    }
    this.#name = options.name ?? 'lookout'
  }

  readonly #name: string

  async start(): Promise<void> {
    this.#nc = await connect({
      servers: this.#opts.servers,
      name: this.#name,
      maxReconnectAttempts: -1,
      reconnectTimeWait: 250,
    })
    this.#js = jetstream(this.#nc, { timeout: this.#opts.publishTimeoutMs })
    const nc = this.#nc
    // A cluster started together with Lookout may not place replicas yet: wait for it.
    await pRetry(async () => {
      // Its first request checks the JetStream API, which a forming cluster may not answer yet.
      this.#jsm ??= await jetstreamManager(nc)
      await this.#ensureStreams()
    }, {
      retries: Number.POSITIVE_INFINITY,
      minTimeout: 250,
      maxTimeout: 2_000,
      maxRetryTime: this.#opts.setupTimeoutMs,
      shouldRetry: ({ error }) => isClusterForming(error),
    })
  }

  get connection(): NatsConnection {
    if (this.#nc === null) throw new BrokerUnavailableError('not connected')
    return this.#nc
  }

  get js(): JetStreamClient {
    if (this.#js === null) throw new BrokerUnavailableError('not connected')
    return this.#js
  }

  get jsm(): JetStreamManager {
    if (this.#jsm === null) throw new BrokerUnavailableError('not connected')
    return this.#jsm
  }

  async #ensureStreams(): Promise<void> {
    const jsm = this.jsm
    const logs = {
      name: this.stream,
      subjects: [SUBJECTS.rows, SUBJECTS.legacy, SUBJECTS.rows + '.>', SUBJECTS.legacy + '.>'],
      storage: StorageType.File,
      retention: RetentionPolicy.Workqueue,
      discard: DiscardPolicy.New,
      max_bytes: this.#opts.maxBytes,
      num_replicas: this.#opts.replicas,
      duplicate_window: this.#opts.duplicateWindowMs * MS,
    }
    const dlq = {
      name: this.stream + '_DLQ',
      subjects: [SUBJECTS.deadLetter],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_age: 7 * 24 * 3600 * 1000 * MS,
      num_replicas: this.#opts.replicas,
    }
    // Idempotency-Keys, one message per key (its request's content hash), forgotten with the duplicate window.
    const keys = {
      name: this.stream + '_KEYS',
      subjects: [SUBJECTS.keys + '.>'],
      storage: StorageType.File,
      retention: RetentionPolicy.Limits,
      discard: DiscardPolicy.Old,
      max_msgs_per_subject: 1,
      max_age: this.#opts.duplicateWindowMs * MS,
      num_replicas: this.#opts.replicas,
    }
    for (const cfg of [logs, dlq, keys]) {
      try {
        await jsm.streams.info(cfg.name)
        await jsm.streams.update(cfg.name, cfg)
      } catch (err) {
        if (!isNotFound(err)) throw err
        await jsm.streams.add(cfg)
      }
    }
    const consumer = {
      durable_name: this.consumerName,
      ack_policy: AckPolicy.Explicit,
      deliver_policy: DeliverPolicy.All,
      ack_wait: ACK_WAIT_MS * MS,
      max_ack_pending: 20_000,
      max_deliver: -1,
    }
    let ci: ConsumerInfo
    try {
      ci = await jsm.consumers.info(this.stream, this.consumerName)
      if (ci.config.ack_wait !== ACK_WAIT_MS * MS) await jsm.consumers.update(this.stream, this.consumerName, { ack_wait: ACK_WAIT_MS * MS })
    } catch (err) {
      if (!isNotFound(err)) throw err
      await jsm.consumers.add(this.stream, consumer)
      return
    }
    if (this.#opts.soleClient) this.consumerReset = await resetLeftBooks(jsm, this.stream, consumer, ci)
  }

  /**
   * The loaders' consumer, on a connection of its own: large pulls must never
   * queue behind (or in front of) the publish acknowledgements senders wait for.
   */
  async openConsumer(): Promise<{ consumer: Consumer; connection: NatsConnection }> {
    if (this.#consumerNc === null || this.#consumerNc.isClosed()) {
      this.#consumerNc = await connect({ servers: this.#opts.servers, name: this.#name + '-loader', maxReconnectAttempts: -1, reconnectTimeWait: 250 })
    }
    const consumer = await jetstream(this.#consumerNc).consumers.get(this.stream, this.consumerName)
    return { consumer, connection: this.#consumerNc }
  }

  /** A connection of its own to the same servers (the live tail's), closed by the caller. */
  async connectExtra(purpose: string): Promise<NatsConnection> {
    return await connect({ servers: this.#opts.servers, name: `${this.#name}-${purpose}`, maxReconnectAttempts: -1, reconnectTimeWait: 250 })
  }

  /** Publishes one message and waits for the stream's acknowledgement. */
  async publish(subject: string, data: Uint8Array, msgId: string, rows: number): Promise<PubAck> {
    const h = headers()
    h.set(HEADER_ROWS, String(rows))
    return this.#publish(subject, data, msgId, h)
  }

  /**
   * Moves a message the engine refuses for its data to the dead-letter stream,
   * with where it came from and why (a retry of the same message is a duplicate there).
   */
  async deadLetter(original: { subject: string; data: Uint8Array; msgId: string }, error: string): Promise<PubAck> {
    const h = headers()
    h.set('Lookout-Original-Subject', original.subject)
    h.set('Lookout-Error', error.slice(0, 500).replace(/[\r\n]+/g, ' '))
    return this.#publish(SUBJECTS.deadLetter, original.data, 'dlq-' + original.msgId, h)
  }

  async #publish(subject: string, data: Uint8Array, msgId: string, h: MsgHdrs): Promise<PubAck> {
    const observer = this.#opts.observer
    const t0 = observer === undefined ? 0 : performance.now()
    try {
      const ack = await this.js.publish(subject, data, { msgID: msgId, headers: h, timeout: this.#opts.publishTimeoutMs })
      observer?.published(ack.duplicate ? 'duplicate' : 'stored', (performance.now() - t0) / 1000, data.byteLength)
      return ack
    } catch (err) {
      const mapped = brokerError(err)
      observer?.published(mapped instanceof IngestOverloadedError ? 'buffer_full' : 'unavailable', (performance.now() - t0) / 1000, data.byteLength)
      throw mapped
    }
  }

  /**
   * Binds an Idempotency-Key (hashed into `keyId`, a subject token) to a request's
   * content for the duplicate window: the first claim stores it, a later one
   * with the same content is a retry, with other content a conflict. Atomic
   * across processes: the store writes only where the key has no message yet.
   */
  async claimKey(keyId: string, content: string): Promise<KeyClaim> {
    const subject = `${SUBJECTS.keys}.${keyId}`
    try {
      await this.js.publish(subject, content, { expect: { lastSubjectSequence: 0 }, timeout: this.#opts.publishTimeoutMs })
      return KEY_CLAIMS.fresh
    } catch (err) {
      if (!(err instanceof JetStreamApiError) || err.code !== WRONG_LAST_SEQUENCE) throw brokerError(err)
    }
    try {
      const held = await this.jsm.streams.getMessage(this.stream + '_KEYS', { last_by_subj: subject })
      if (held === null) return await this.claimKey(keyId, content) // forgotten meanwhile (window ended)
      return held.string() === content ? KEY_CLAIMS.same : KEY_CLAIMS.conflict
    } catch (err) {
      throw brokerError(err)
    }
  }

  /**
   * The stream's last sequence and the loaders' ack floor: every message up to
   * the floor is in the log store. A backup waits for the floor to pass the
   * last sequence it saw (deploy/backup.ts).
   */
  async cut(): Promise<{ lastSeq: number; ackFloor: number }> {
    const [ci, si] = await Promise.all([
      this.jsm.consumers.info(this.stream, this.consumerName),
      this.jsm.streams.info(this.stream),
    ])
    return { lastSeq: si.state.last_seq, ackFloor: ci.ack_floor.stream_seq }
  }

  /** Messages waiting for the loaders (stream backlog) and those delivered but unacked. */
  async backlog(): Promise<{ pending: number; ackPending: number; bytes: number }> {
    const [ci, si] = await Promise.all([
      this.jsm.consumers.info(this.stream, this.consumerName),
      this.jsm.streams.info(this.stream),
    ])
    return { pending: ci.num_pending, ackPending: ci.num_ack_pending, bytes: si.state.bytes }
  }

  /**
   * Receive time (ms) of the oldest message the loaders have not stored yet, null when none
   * waits. The stream keeps messages until a loader acks them after their insert (work-queue
   * retention), so its first message is the oldest unstored one (log checks: monitor/probes/log.ts).
   */
  async oldestPendingAt(): Promise<number | null> {
    const si = await this.jsm.streams.info(this.stream)
    if (si.state.messages === 0) return null
    const t = Date.parse(si.state.first_ts)
    return Number.isFinite(t) ? t : null
  }

  async close(): Promise<void> {
    const cnc = this.#consumerNc
    this.#consumerNc = null
    if (cnc !== null && !cnc.isClosed()) await cnc.drain().catch(() => cnc.close())
    const nc = this.#nc
    this.#nc = null
    if (nc !== null && !nc.isClosed()) await nc.drain().catch(() => nc.close())
  }
}

// JetStream API error: a publish expecting a subject's last sequence found another.
const WRONG_LAST_SEQUENCE = JetStreamApiCodes.StreamWrongLastSequence

/** A publish failure as ingest reports it: a full buffer is overload (retry later), anything else unavailability. */
// JetStream API codes meaning the stream is full (discard: new): 10047 storage
// resources exceeded, 10023 insufficient resources, and 10077 "store failed" when
// the store refused for its byte or message limit (its description says which).
const FULL_CODES = new Set([10047, 10023])
const STORE_FAILED = 10077

function brokerError(err: unknown): Error {
  const text = String((err as Error)?.message ?? err)
  if (err instanceof JetStreamApiError) {
    if (FULL_CODES.has(err.code) || (err.code === STORE_FAILED && /maximum (bytes|messages)/i.test(text))) {
      return new IngestOverloadedError('the durable buffer is full')
    }
  }
  return new BrokerUnavailableError(text)
}

// JetStream API errors of a cluster still forming: 10004 incomplete results,
// 10005 no suitable peers for placement, 10008 cluster temporarily unavailable,
// 10009 cluster cannot handle the request (no meta leader elected yet), 10023
// insufficient resources.
const FORMING_CODES = new Set([10004, 10005, 10008, 10009, 10023])

/** Whether a setup error may pass once the cluster has formed (else it is final: a bad configuration). */
function isClusterForming(err: unknown): boolean {
  const e = err as { name?: unknown; message?: unknown }
  if (err instanceof JetStreamApiError) return FORMING_CODES.has(err.code)
  return /not enabled|no responders|timeout|temporarily unavailable/i.test(`${String(e?.name ?? '')} ${String(e?.message ?? '')}`)
}

function isNotFound(err: unknown): boolean {
  return err instanceof JetStreamApiError && (err.code === JetStreamApiCodes.StreamNotFound || err.code === JetStreamApiCodes.ConsumerNotFound)
}
