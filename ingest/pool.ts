// The decoder worker pool: one piscina pool, request bodies moved to a worker
// and encoded rows moved back, never structured-cloned.
import { availableParallelism } from 'node:os'
import type { HeapInfo } from 'node:v8'
import { Piscina } from 'piscina'
import type { DecodeOutcome, DecodeTask } from './decode/task.ts'
import { InvalidOptionError } from '../core/index.ts'

export interface DecoderPoolOptions {
  /** Worker threads; default: available cores. */
  threads?: number
  /** Tasks waiting for a worker before run() rejects; default 256. */
  maxQueue?: number
  /** Workers kept while idle; the rest start on demand and exit after idleTimeoutMs. Default 0. */
  idleThreads?: number
  /** How long a worker beyond idleThreads outlives its last task; default 30,000 ms. */
  idleTimeoutMs?: number
}

/** The pool's queue is at its bound: the caller answers "retry later", never a failure. */
export class QueueFullError extends Error {}

export class DecoderPool {
  readonly #pool: Piscina<DecodeTask, DecodeOutcome>
  readonly #maxQueue: number
  /** The most workers this pool starts (LOOKOUT_WORKERS); idle ones beyond `idleThreads` stop. */
  readonly maxThreads: number
  /** A worker started and ran a task (warm() or a decode), and none has failed to start since. */
  #usable = false

  constructor(options: DecoderPoolOptions = {}) {
    const threads = options.threads ?? Math.max(1, availableParallelism())
    if (!Number.isInteger(threads) || threads < 1) throw new InvalidOptionError('threads', 'must be an integer >= 1')
    const maxQueue = options.maxQueue ?? 256
    if (!Number.isInteger(maxQueue) || maxQueue < 1) throw new InvalidOptionError('maxQueue', 'must be an integer >= 1')
    this.#maxQueue = maxQueue
    this.maxThreads = threads
    // Each worker is a V8 isolate of ~35 MiB: an idle service keeps none (a per-user
    // desktop is idle most of the day); the first request after a quiet spell waits
    // for one to start (~0.3 s), a burst starts the rest.
    const idleThreads = Math.min(threads, options.idleThreads ?? 0)
    if (!Number.isInteger(idleThreads) || idleThreads < 0) throw new InvalidOptionError('idleThreads', 'must be an integer >= 0')
    this.#pool = new Piscina({
      filename: new URL('./decode/worker.ts', import.meta.url).href,
      minThreads: idleThreads,
      maxThreads: threads,
      maxQueue,
      idleTimeout: options.idleTimeoutMs ?? 30_000,
    })
  }

  /** Whether a task handed over now would be refused. */
  get queueFull(): boolean {
    return this.#pool.queueSize >= this.#maxQueue
  }

  /** Decodes one request; the body's memory moves to the worker. Rejects with QueueFullError at the queue's bound. */
  async run(task: DecodeTask): Promise<DecodeOutcome> {
    const body = task.body
    // A body sharing Node's small-buffer pool cannot be transferred: copy it.
    const own = body.byteOffset === 0 && body.byteLength === body.buffer.byteLength
      ? body
      : new Uint8Array(body)
    task.body = own
    try {
      const outcome = await this.#pool.run(task, { transferList: [own.buffer] as never })
      this.#usable = true
      return outcome
    } catch (err) {
      if (/queue is at limit/i.test(String((err as Error)?.message))) throw new QueueFullError('the decoder queue is full')
      // No worker left running after a failure: one could not start (or died): not ready until one runs again.
      if (this.#pool.threads.length === 0) this.#usable = false
      throw err
    }
  }

  /** Starts a worker and runs a no-op task in it: proves the decoder loads (the start-up and readiness check). */
  async warm(): Promise<void> {
    await this.#pool.run(null as never, { name: 'ping' })
    this.#usable = true
  }

  /** Whether decoding works: a worker started and ran a task, and none failed since; idle, no worker need be running. */
  get usable(): boolean {
    return this.#usable
  }

  get queueSize(): number {
    return this.#pool.queueSize
  }

  get utilization(): number {
    return this.#pool.utilization
  }

  get threads(): number {
    return this.#pool.threads.length
  }

  /** V8 heap statistics of each live worker (memory reports and the memory benchmark). */
  async heapStatistics(): Promise<HeapInfo[]> {
    // A worker past its idle timeout may exit while asked: it has no heap to report.
    const all = await Promise.all(this.#pool.threads.map((w) => w.getHeapStatistics().catch(() => null)))
    return all.filter((h) => h !== null)
  }

  async close(): Promise<void> {
    await this.#pool.close()
  }
}
