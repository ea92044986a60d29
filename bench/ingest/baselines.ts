// The raw baselines, measured in the same run on the same rows: how fast this
// machine decodes the scenario's requests in a worker pool, publishes the
// resulting row messages to JetStream, and inserts those rows into ClickHouse,
// each alone. Pipeline figures divided by these compare across machines.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { connect } from '@nats-io/transport-node'
import { headers as natsHeaders } from '@nats-io/transport-node'
import { DiscardPolicy, jetstream, jetstreamManager, RetentionPolicy, StorageType } from '@nats-io/jetstream'
import { DecoderPool, HEADER_ROWS, LIMITS, migrateLogStore, openLogStore, ROW_FORMATS, type LogStore } from '../../ingest/internal.ts'
import { nowNs } from '../../core/index.ts'
import { ManagedNats } from '../../deploy/index.ts'
import type { Scenario } from './options.ts'
import type { TrafficSource } from './traffic-source.ts'

export interface RateFigure {
  events: number
  bytes: number
  seconds: number
  eventsPerSec: number
  mbPerSec: number
}

export interface Baselines {
  decode: RateFigure & { threads: number }
  publish: RateFigure & { messages: number; where: string }
  insert: RateFigure & { inserts: number; rowsPerInsert: number; where: string }
  storage: { events: number; bytesOnDisk: number; uncompressedBytes: number; bytesPerEvent: number; compression: number }
  /** JSONEachRow bytes per event: what JetStream carries and ClickHouse parses. */
  rowBytesPerEvent: number
  /** Request bytes per event as sent (after gzip when on). */
  wireBytesPerEvent: number
}

export interface BaselineContext {
  scenario: Scenario
  source: TrafficSource
  events: number
  threads: number
  workspaceId: string
  resourceId: string
  natsUrl: string | null
  /** The pipeline's store when this process holds it; else a local one is opened. */
  store: LogStore | null
  rowsPerInsert: number
  log(line: string): void
}

type DecodeTask = Parameters<DecoderPool['run']>[0]
interface Decoded {
  data: Uint8Array
  chunks: { id: string; rows: number; offset: number; length: number }[]
  accepted: number
}

const MAX_BASELINE_BYTES = 256 * 1024 * 1024

function figure(events: number, bytes: number, seconds: number): RateFigure {
  return { events, bytes, seconds, eventsPerSec: events / seconds, mbPerSec: bytes / 1e6 / seconds }
}

export async function runBaselines(ctx: BaselineContext, local: LocalResources): Promise<Baselines> {
  const epr = ctx.source.eventsPerRequest
  // Render the requests first (not timed), within a memory budget.
  const bodies: Buffer[] = []
  let wire = 0
  for (let i = 0; bodies.length * epr < ctx.events && wire < MAX_BASELINE_BYTES; i++) {
    const b = ctx.source.request(i).body
    bodies.push(b)
    wire += b.byteLength
  }
  const wireBytesPerEvent = wire / (bodies.length * epr)

  ctx.log(`baseline: decoding ${bodies.length} requests in a pool of ${ctx.threads} worker threads`)
  const pool = new DecoderPool({ threads: ctx.threads, maxQueue: 1024 })
  let decoded: Decoded[]
  let decodeSeconds: number
  try {
    // Warm the workers (module load, JIT) on one request per thread.
    await Promise.all(Array.from({ length: ctx.threads }, (_, i) => decodeOne(pool, ctx, Buffer.from(bodies[i % bodies.length] as Buffer))))
    const t0 = performance.now()
    decoded = await mapConcurrent(bodies, ctx.threads * 2, (b) => decodeOne(pool, ctx, b))
    decodeSeconds = (performance.now() - t0) / 1000
  } finally {
    await pool.close()
  }
  const events = decoded.reduce((s, d) => s + d.accepted, 0)
  const rowBytes = decoded.reduce((s, d) => s + d.data.byteLength, 0)

  ctx.log('baseline: publishing the row messages to JetStream')
  const publish = await publishBaseline(decoded, ctx, local)
  ctx.log('baseline: inserting the rows into ClickHouse')
  const store = ctx.store ?? await local.store()
  const insert = await insertBaseline(decoded, store, ctx.rowsPerInsert)
  // Storage from distinct content only: each template once (sends differ only by their nonces).
  const distinct = decoded.slice(0, Math.max(1, Math.min(ctx.source.templates.length, Math.ceil(100_000 / epr))))
  const storage = await storageBaseline(distinct, store)
  return {
    decode: { ...figure(events, wire, decodeSeconds), threads: ctx.threads },
    publish: { ...publish, where: ctx.natsUrl === null ? 'a temporary nats-server' : 'the pipeline\'s NATS (a scratch stream)' },
    insert: { ...insert, where: ctx.store !== null ? 'the pipeline\'s ClickHouse (a scratch table)' : store.embedded ? 'a local chdb (a scratch directory)' : 'CLICKHOUSE_URL (a scratch table)' },
    storage,
    rowBytesPerEvent: rowBytes / events,
    wireBytesPerEvent,
  }
}

async function decodeOne(pool: DecoderPool, ctx: BaselineContext, body: Buffer): Promise<Decoded> {
  const now = nowNs()
  const task: DecodeTask = {
    route: ctx.scenario.route,
    format: ctx.scenario.format,
    gzip: ctx.scenario.gzip,
    body,
    workspaceId: ctx.workspaceId,
    resourceId: ctx.scenario.route === 'legacy' ? '' : ctx.resourceId,
    receivedNs: now.toString(),
    minTimeNs: now - 7n * 86_400n * 1_000_000_000n,
    maxTimeNs: now + BigInt(LIMITS.futureToleranceMs) * 1_000_000n,
    maxDecompressedBytes: 64 * 1024 * 1024,
    maxChunkBytes: 1024 * 1024,
    maxMessageBytes: 8 * 1024 * 1024,
    idempotencyKey: '',
  }
  const out = await pool.run(task)
  if (!out.ok) throw new Error(`the baseline's request did not decode: ${out.message}`)
  return { data: out.data, chunks: out.chunks, accepted: out.accepted }
}

async function mapConcurrent<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out = new Array<R>(items.length)
  let next = 0
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, async () => {
    for (let i = next++; i < items.length; i = next++) out[i] = await fn(items[i] as T)
  }))
  return out
}

/** A temporary nats-server and a local chdb, opened only if a baseline needs them. */
export class LocalResources {
  #dir: string | null = null
  #nats: ManagedNats | null = null
  #natsUrl: string | null = null
  #store: LogStore | null = null

  #tmp(): string {
    this.#dir ??= mkdtempSync(join(tmpdir(), 'lookout-bench-raw-'))
    return this.#dir
  }

  async natsUrl(): Promise<string> {
    if (this.#natsUrl === null) {
      this.#nats = new ManagedNats({ dir: join(this.#tmp(), 'nats') })
      this.#natsUrl = await this.#nats.start()
    }
    return this.#natsUrl
  }

  async store(): Promise<LogStore> {
    if (this.#store === null) {
      const url = process.env.CLICKHOUSE_URL
      const store = url !== undefined && url !== '' ? openLogStore({ url }) : openLogStore({ path: join(this.#tmp(), 'clickhouse') })
      await migrateLogStore(store, { retentionDays: 7 })
      this.#store = store
    }
    return this.#store
  }

  async close(): Promise<void> {
    await this.#store?.close()
    await this.#nats?.stop()
    if (this.#dir !== null) rmSync(this.#dir, { recursive: true, force: true })
  }
}

async function publishBaseline(decoded: readonly Decoded[], ctx: BaselineContext, local: LocalResources): Promise<RateFigure & { messages: number }> {
  const url = ctx.natsUrl ?? await local.natsUrl()
  const nc = await connect({ servers: url.split(','), name: 'lookout-bench-raw' })
  const jsm = await jetstreamManager(nc)
  const js = jetstream(nc, { timeout: 30_000 })
  const id = Math.random().toString(36).slice(2, 10)
  const stream = `BENCH_RAW_${id}`
  const subject = `bench.raw.${id}`
  const messages: { data: Uint8Array; rows: number; id: string }[] = []
  let bytes = 0
  let events = 0
  for (const d of decoded) {
    for (const c of d.chunks) {
      messages.push({ data: d.data.subarray(c.offset, c.offset + c.length), rows: c.rows, id: `${id}-${c.id}` })
      bytes += c.length
      events += c.rows
    }
  }
  // The pipeline's stream settings: file storage, work queue, duplicate window.
  await jsm.streams.add({
    name: stream, subjects: [subject], storage: StorageType.File, retention: RetentionPolicy.Workqueue,
    discard: DiscardPolicy.New, max_bytes: Math.max(64 * 1024 * 1024, bytes * 2), duplicate_window: 120_000_000_000,
  })
  try {
    const t0 = performance.now()
    // As many publishes in flight as the pipeline has requests being acknowledged.
    await mapConcurrent(messages, 64, async (m) => {
      const h = natsHeaders()
      h.set(HEADER_ROWS, String(m.rows))
      await js.publish(subject, m.data, { msgID: m.id, headers: h })
    })
    const seconds = (performance.now() - t0) / 1000
    return { ...figure(events, bytes, seconds), messages: messages.length }
  } finally {
    await jsm.streams.delete(stream).catch(() => undefined)
    await nc.close()
  }
}

async function insertBaseline(decoded: readonly Decoded[], store: LogStore, rowsPerInsert: number): Promise<RateFigure & { inserts: number; rowsPerInsert: number }> {
  // Insert bodies built up front: the baseline is the engine's insert alone.
  const inserts: { body: Buffer; rows: number }[] = []
  let parts: Uint8Array[] = []
  let rows = 0
  for (const d of decoded) {
    for (const c of d.chunks) {
      parts.push(d.data.subarray(c.offset, c.offset + c.length))
      rows += c.rows
      if (rows >= rowsPerInsert) {
        inserts.push({ body: Buffer.concat(parts), rows })
        parts = []
        rows = 0
      }
    }
  }
  if (rows > 0) inserts.push({ body: Buffer.concat(parts), rows })
  const table = await scratchTable(store, 'bench_raw_logs')
  try {
    const tag = Math.random().toString(36).slice(2)
    const t0 = performance.now()
    for (let i = 0; i < inserts.length; i++) {
      const ins = inserts[i] as { body: Buffer; rows: number }
      await store.insertJsonRows(table, ins.body, `${tag}-${i}`, ROW_FORMATS.native)
    }
    const seconds = (performance.now() - t0) / 1000
    const events = inserts.reduce((s, x) => s + x.rows, 0)
    const bytes = inserts.reduce((s, x) => s + x.body.byteLength, 0)
    return { ...figure(events, bytes, seconds), inserts: inserts.length, rowsPerInsert }
  } finally {
    await store.command(`DROP TABLE IF EXISTS ${store.database}.${table}`)
  }
}

async function storageBaseline(decoded: readonly Decoded[], store: LogStore): Promise<Baselines['storage']> {
  const table = await scratchTable(store, 'bench_storage_logs')
  try {
    const parts: Uint8Array[] = []
    for (const d of decoded) parts.push(d.data)
    await store.insertJsonRows(table, Buffer.concat(parts), `storage-${Math.random().toString(36).slice(2)}`, ROW_FORMATS.native)
    // Merged, as the parts of a day end up.
    await store.command(`OPTIMIZE TABLE ${store.database}.${table} FINAL`)
    const r = await store.query<{ rows: string; disk: string; raw: string }>(
      `SELECT sum(rows) AS rows, sum(bytes_on_disk) AS disk, sum(data_uncompressed_bytes) AS raw
       FROM system.parts WHERE database = {db:String} AND table = {t:String} AND active`, { db: store.database, t: table })
    const row = r.rows[0]
    const events = Number(row?.rows ?? 0)
    const disk = Number(row?.disk ?? 0)
    const raw = Number(row?.raw ?? 0)
    return { events, bytesOnDisk: disk, uncompressedBytes: raw, bytesPerEvent: disk / events, compression: raw / disk }
  } finally {
    await store.command(`DROP TABLE IF EXISTS ${store.database}.${table}`)
  }
}

/** An empty table shaped like `logs` (same columns, engine, indexes, settings), next to it. */
async function scratchTable(store: LogStore, name: string): Promise<string> {
  const db = store.database
  await store.command(`DROP TABLE IF EXISTS ${db}.${name}`)
  await store.command(`CREATE TABLE ${db}.${name} AS ${db}.logs`)
  return name
}
