// End-to-end ingest: OTLP protobuf batches of 1000 through HTTP, the worker
// pool, JetStream and the loader into chdb, against the raw chdb insert rate of
// the same rows measured in the same run. See README.md.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { countBuffersInHeapLimit, loadConfig, restartLean, startLookout } from '../../deploy/index.ts'
import { ALL_SCOPES, createToken, createWorkspace, registerResource } from '../../workspace/index.ts'
import { ROW_FORMATS } from '../../ingest/index.ts'
import { DEFAULT_SHAPE, encodeProtobuf, makeRecords } from '../lib/traffic.ts'
import { QueryRouteLookup } from '../ingest/freshness.ts'
import { bodyPool, flood, ISSUE35_SHAPE, markerBody, sendUntilAccepted, stampSeed, type FloodResult } from './issue35.ts'
import { mib, percentile, rssSampler } from '../lib/stats.ts'
import { memoryParts } from './memory-parts.ts'
import { cpuBetween, cpuSnapshot, processCpuSeconds, type ThreadClassifier } from '../lib/procstat.ts'
import { CPU_CATEGORIES, lookoutThreads } from '../ingest/pipeline.ts'
import { decodeOtlpProtobuf } from '../../ingest/internal.ts'
import { newRowFields, RowWriter } from '../../ingest/internal.ts'

// Lookout runs in this process: start it as `lookout serve` starts (deploy/lean-runtime.ts:
// malloc arenas and threshold, V8's heap growing factor, buffers counted in the heap limit).
// LOOKOUT_LEAN_RUNTIME=0 measures Node's defaults instead.
restartLean()

const EVENTS = Number(process.env.BENCH_EVENTS ?? 300_000)
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8)
// BENCH_SHAPE=issue35: issue 35's load (190-character records, 5 attributes, unique bodies) for
// BENCH_SECONDS, then a marker whose search is timed (issue35.ts); otherwise BENCH_EVENTS of the default shape.
const ISSUE35 = process.env.BENCH_SHAPE === 'issue35'
const SECONDS = Number(process.env.BENCH_SECONDS ?? 20)
const SHAPE = ISSUE35 ? ISSUE35_SHAPE : DEFAULT_SHAPE
const REQUESTS = ISSUE35 ? 0 : Math.ceil(EVENTS / SHAPE.records)
/** The raw baselines' rows in the issue35 shape: this many of the pool's bodies, each with seeds of its own. */
const RAW_REQUESTS = Math.ceil(Number(process.env.BENCH_RAW_EVENTS ?? 300_000) / SHAPE.records)

process.stdout.write(`runtime: ${process.env.LOOKOUT_LEAN_RUNTIME === 'applied' ? 'as lookout serve runs (lean)' : 'Node\'s defaults'}; ${process.execArgv.join(' ')}\n`)
process.stdout.write(ISSUE35
  ? `shape issue35: ${CONCURRENCY} senders for ${SECONDS} s, ${SHAPE.records} records of ${SHAPE.messageLength} characters and ${SHAPE.attributes} attributes a request, unique bodies\n`
  : `encoding ${REQUESTS} requests of ${SHAPE.records} records with the OpenTelemetry serializer...\n`)
const bodies: Uint8Array[] = []
for (let i = 0; i < REQUESTS; i++) bodies.push(encodeProtobuf(makeRecords(i + 1)))
// Four bodies per sender: one in flight, the next ones stamped while it is answered.
const pooled = ISSUE35 ? bodyPool(CONCURRENCY * 4, SHAPE) : []

const dataDir = mkdtempSync(join(tmpdir(), 'lookout-bench-'))
const config = loadConfig({ ...process.env, LOOKOUT_DATA_DIR: dataDir, LOOKOUT_PORT: '0' })
const lookout = await startLookout(config, { logger: false })
countBuffersInHeapLimit()
const ws = (await createWorkspace(lookout.db, 'bench')).id
const { token } = await createToken(lookout.db, { workspaceId: ws, scopes: ALL_SCOPES, resources: 'all' })
const rid = (await registerResource(lookout.db, ws, { external_id: 'bench', name: 'bench' })).resource.id

const totalBytes = ISSUE35 ? 0 : bodies.reduce((s, b) => s + b.byteLength, 0)
const pooledBytesPerRequest = pooled.length === 0 ? 0 : pooled.reduce((s, b) => s + b.bytes.byteLength, 0) / pooled.length
const warmBody = (ISSUE35 ? pooled[0]?.bytes : bodies[0]) as Uint8Array

const pool = new Pool(lookout.url, { connections: CONCURRENCY, pipelining: 1 })
const path = `/v1/workspaces/${ws}/resources/${rid}/otlp/v1/logs`
const headers = { authorization: `Bearer ${token}`, 'content-type': 'application/x-protobuf' }
const latencies: number[] = []
let next = 0
let accepted = 0
let refused = 0
const natsPid = lookout.nats?.pid
const natsCpu0 = natsPid === undefined ? 0 : processCpuSeconds(natsPid)
const MERGES = 'ClickHouse merges'
// The harness's categories, with the engine's background merges apart from its inserts and queries.
const stages: ThreadClassifier = (t, pid) => t.name.startsWith('MergeMutate') ? MERGES : lookoutThreads(t, pid)
/** Each category and how the report names it. */
const STAGE_LINES = [
  [CPU_CATEGORIES.main, `${CPU_CATEGORIES.main} (with this bench's HTTP client)`],
  [CPU_CATEGORIES.workers, CPU_CATEGORIES.workers],
  [CPU_CATEGORIES.v8, CPU_CATEGORIES.v8],
  [CPU_CATEGORIES.clickhouse, `${CPU_CATEGORIES.clickhouse}: inserts, queries, libuv`],
  [MERGES, MERGES],
  ['exited', 'exited'],
] as const
/** Polls ClickHouse until the resource holds at least `rows` rows. */
async function waitStored(resourceId: string, rows: number): Promise<void> {
  for (;;) {
    const r = await lookout.store.query<{ c: string }>(`SELECT count() AS c FROM ${lookout.store.database}.logs WHERE resource_id = {rid:UUID}`, { rid: resourceId })
    if (Number(r.rows[0]?.c ?? 0) >= rows) return
    await new Promise((r) => setTimeout(r, 50))
  }
}
/** A copy of the loader's counters that this bench reads. */
const loaderStats = () => {
  const s = lookout.loader?.stats
  return { batches: s?.batches ?? 0, rows: s?.rows ?? 0, insertMs: s?.insertMs ?? 0, insertErrors: s?.insertErrors ?? 0 }
}
// Warm-up, not measured: one request to another resource, stored. The embedded engine starts at
// the first log operation (ingest/store/embedded-store.ts: about 1 s here, with its migration) and the
// decoder pool keeps no worker while idle; neither is the pipeline's rate, and the raw baseline
// below runs on a started engine.
const warmRid = (await registerResource(lookout.db, ws, { external_id: 'bench-warmup', name: 'bench-warmup' })).resource.id
const warmStarted = performance.now()
// Retried on 429/503 as a sender would: on a loaded machine the first workers can take longer to start than the queue waits.
let warm = await pool.request({ method: 'POST', path: `/v1/workspaces/${ws}/resources/${warmRid}/otlp/v1/logs`, headers, body: warmBody })
for (let i = 0; i < 60 && (warm.statusCode === 429 || warm.statusCode === 503); i++) {
  await warm.body.arrayBuffer()
  await new Promise((r) => setTimeout(r, 500))
  warm = await pool.request({ method: 'POST', path: `/v1/workspaces/${ws}/resources/${warmRid}/otlp/v1/logs`, headers, body: warmBody })
}
await warm.body.arrayBuffer()
if (warm.statusCode !== 200) throw new Error(`the warm-up request was refused: ${warm.statusCode}`)
await waitStored(warmRid, SHAPE.records)
const warmMs = performance.now() - warmStarted
const loaded0 = loaderStats()

const rss = rssSampler()
// BENCH_MEMORY=1: what the memory is made of (memory-parts.ts), =trace: also one line a second on stderr.
const parts = process.env.BENCH_MEMORY === '1' || process.env.BENCH_MEMORY === 'trace'
  ? memoryParts(lookout, dataDir, 100, process.env.BENCH_MEMORY === 'trace') : null
const cpu0 = process.cpuUsage()
const threads0 = cpuSnapshot(process.pid, stages)
const t0 = performance.now()
// Each sender takes the next body and sends it until accepted (a refused body is retried by the
// sender that holds it: handing it back through `next` would let another sender skip one).
const sends = { refused: 0, latencies }
async function sender(): Promise<void> {
  for (let i = next++; i < bodies.length; i = next++) {
    await sendUntilAccepted(pool, path, headers, bodies[i] as Uint8Array, sends)
    accepted += DEFAULT_SHAPE.records
  }
}
let flooded: FloodResult | null = null
let markerMs = NaN
if (ISSUE35) {
  flooded = await flood(pool, path, headers, pooled, CONCURRENCY, SECONDS, SHAPE.records)
  accepted = flooded.accepted
  refused = flooded.refused
  latencies.push(...flooded.latencies)
  // The marker, sent once the flood has ended; searchable (the log query route) how long after.
  const nonce = crypto.randomUUID().replaceAll('-', '').slice(0, 16)
  const mark = await pool.request({ method: 'POST', path, headers, body: markerBody(nonce, SHAPE) })
  await mark.body.arrayBuffer()
  if (mark.statusCode !== 200) throw new Error(`the marker was refused: ${mark.statusCode}`)
  const lookup = new QueryRouteLookup(lookout.url, ws, token)
  while ((await lookup.find([{ nonce, resourceId: rid, timeMs: Date.now() - 60_000 }])).size === 0) await new Promise((r) => setTimeout(r, 25))
  markerMs = performance.now() - flooded.endedMs
  await lookup.close()
} else {
  await Promise.all(Array.from({ length: CONCURRENCY }, sender))
  refused = sends.refused
}
const tAcked = flooded?.endedMs ?? performance.now()
await waitStored(rid, accepted + (ISSUE35 ? 1 : 0))
const tStored = performance.now()
const loadedNow = loaderStats()
const loaded = {
  batches: loadedNow.batches - loaded0.batches, rows: loadedNow.rows - loaded0.rows, insertMs: loadedNow.insertMs - loaded0.insertMs,
  insertErrors: loadedNow.insertErrors - loaded0.insertErrors,
}
const peak = rss.stop()
const partLines = parts?.stop() ?? []
const cpu = process.cpuUsage(cpu0)
const byStage = cpuBetween(threads0, cpuSnapshot(process.pid, stages))
const natsCpu = natsPid === undefined ? 0 : processCpuSeconds(natsPid) - natsCpu0
await pool.close()
// Every acknowledged event stored once: the rows of the resource, and their distinct messages (each unique).
const once = await lookout.store.query<{ c: string; u: string }>(
  `SELECT count() AS c, uniqExact(message) AS u FROM ${lookout.store.database}.logs WHERE resource_id = {rid:UUID}`, { rid })
const storedRows = Number(once.rows[0]?.c ?? 0) - (ISSUE35 ? 1 : 0)
const distinctRows = Number(once.rows[0]?.u ?? 0) - (ISSUE35 ? 1 : 0)

// Raw baseline: the same rows (in the issue35 shape, RAW_REQUESTS of the pool's bodies with seeds of
// their own), encoded once up front, inserted straight into chdb in 100k-row batches.
const raw: Buffer[] = []
const fields = newRowFields()
const rawBodies = ISSUE35 ? RAW_REQUESTS : bodies.length
for (let i = 0; i < rawBodies; i++) {
  const w = new RowWriter(ws, rid, `raw${String(i).padStart(21, '0')}`, String(BigInt(Date.now()) * 1_000_000n), 64 * 1024 * 1024)
  let body = bodies[i] as Uint8Array
  if (ISSUE35) {
    const p = pooled[i % pooled.length] as (typeof pooled)[number]
    stampSeed(p, 90_000_000 + i)
    body = p.bytes
  }
  decodeOtlpProtobuf(body, w, { minTimeNs: 0n, maxTimeNs: 1n << 62n, receivedNs: '0', maxMessageLength: 65536, fields, unstamped: 0 })
  raw.push(Buffer.from(w.finish().data))
}
// A fresh table of the product schema (indexes included), so the baseline pays what the loader pays.
const db0 = lookout.store.database
await lookout.store.command(`CREATE TABLE ${db0}.bench_raw_logs AS ${db0}.logs`)
const perInsert = Math.max(1, Math.round(100_000 / SHAPE.records))
const r0 = performance.now()
for (let i = 0; i < raw.length; i += perInsert) {
  await lookout.store.insertJsonRows('bench_raw_logs', Buffer.concat(raw.slice(i, i + perInsert)), `raw-${i}`, ROW_FORMATS.native)
}
const rawSeconds = (performance.now() - r0) / 1000
await lookout.store.command(`DROP TABLE ${db0}.bench_raw_logs`)
// Raw minimal-table insert (issue 35's reference, independent of the pipeline's own schema):
// the same rows into a table of the same columns with no skip index but one tokenbf_v1 on the message.
await lookout.store.command(`CREATE TABLE ${db0}.bench_minimal_logs AS ${db0}.logs`)
const indexes = await lookout.store.query<{ name: string }>(
  `SELECT name FROM system.data_skipping_indices WHERE database = {db:String} AND table = 'bench_minimal_logs'`, { db: db0 })
for (const { name } of indexes.rows) await lookout.store.command(`ALTER TABLE ${db0}.bench_minimal_logs DROP INDEX ${name}`)
await lookout.store.command(`ALTER TABLE ${db0}.bench_minimal_logs ADD INDEX idx_tok lower(message) TYPE tokenbf_v1(32768, 3, 0) GRANULARITY 1`)
const m0 = performance.now()
for (let i = 0; i < raw.length; i += perInsert) {
  await lookout.store.insertJsonRows('bench_minimal_logs', Buffer.concat(raw.slice(i, i + perInsert)), `minimal-${i}`, ROW_FORMATS.native)
}
const minimalSeconds = (performance.now() - m0) / 1000
await lookout.store.command(`DROP TABLE ${db0}.bench_minimal_logs`)
// Bytes on disk per event once the pipeline's parts are merged (as a day's parts end up).
await lookout.store.command(`OPTIMIZE TABLE ${db0}.logs FINAL`)
const disk = await lookout.store.query<{ rows: string; bytes: string }>(
  `SELECT sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = {db:String} AND table = 'logs' AND active`, { db: db0 })
const diskPerEvent = Number(disk.rows[0]?.bytes ?? 0) / Math.max(1, Number(disk.rows[0]?.rows ?? 0))

await lookout.stop()
rmSync(dataDir, { recursive: true, force: true })

const ackSeconds = (tAcked - t0) / 1000
const e2eSeconds = (tStored - t0) / 1000
const rawRate = (raw.length * SHAPE.records) / rawSeconds
const minimalRate = (raw.length * SHAPE.records) / minimalSeconds
const e2eRate = accepted / e2eSeconds
const lines = [
  ['warm-up: one request stored, not measured (ms)', warmMs.toFixed(0)],
  ['events', String(accepted)],
  ['requests refused (429/503, retried)', String(refused)],
  ['concurrency', String(CONCURRENCY)],
  ['accepted events/s (acknowledged)', (accepted / ackSeconds).toFixed(0)],
  ['accepted MB/s (protobuf on the wire)', ((ISSUE35 ? pooledBytesPerRequest * accepted / SHAPE.records : totalBytes) / 1e6 / ackSeconds).toFixed(1)],
  ['protobuf bytes per record', ((ISSUE35 ? pooledBytesPerRequest : totalBytes / Math.max(1, bodies.length)) / SHAPE.records).toFixed(1)],
  ['stored rows / distinct messages (each acknowledged event once)', `${storedRows} / ${distinctRows}${storedRows === accepted && distinctRows === accepted ? ' (exactly once)' : ' (NOT exactly once)'}`],
  ...(ISSUE35 ? [['marker searchable after ms (from the flood\'s end; aim 2000)', markerMs.toFixed(0)]] : []),
  ['ack latency p50 / p99 / max ms', `${percentile(latencies, 50).toFixed(1)} / ${percentile(latencies, 99).toFixed(1)} / ${Math.max(...latencies).toFixed(1)}`],
  ['last event queryable after ms (from the last ack)', (tStored - tAcked).toFixed(0)],
  ['end-to-end events/s (until all queryable)', e2eRate.toFixed(0)],
  ['loader inserts / rows per insert / ms inserting / failed attempts (retried)',
    `${loaded.batches} / ${(loaded.rows / Math.max(1, loaded.batches)).toFixed(0)} / ${loaded.insertMs.toFixed(0)} / ${loaded.insertErrors}`],
  ['raw chdb insert rows/s (same rows, 100k per insert)', rawRate.toFixed(0)],
  ['ratio end-to-end / raw insert', (e2eRate / rawRate).toFixed(2)],
  ['raw minimal-table insert rows/s (same rows, one tokenbf_v1)', minimalRate.toFixed(0)],
  ['ratio end-to-end / raw minimal-table insert (aim: 0.6)', (e2eRate / minimalRate).toFixed(2)],
  ['bytes on disk per event after merges (OPTIMIZE FINAL)', diskPerEvent.toFixed(1)],
  ['peak RSS MiB (whole pipeline in this process)', mib(peak)],
  ...partLines,
  ['CPU s per million events: this process (HTTP, workers, loader, chdb)', (((cpu.user + cpu.system) / 1e6) / (accepted / 1e6)).toFixed(2)],
  ...STAGE_LINES.map(([k, label]) => [`  of which ${label}`, ((byStage[k] ?? 0) / (accepted / 1e6)).toFixed(2)]),
  ['CPU s per million events: nats-server', (natsCpu / (accepted / 1e6)).toFixed(2)],
]
for (const [k, v] of lines) process.stdout.write(`${String(k).padEnd(58)} ${v}\n`)
