// Issue 35's load shape for bench/e2e (BENCH_SHAPE=issue35): OTLP protobuf from the
// official serializer, 1000 records a request of about 190 characters with 5 attributes,
// unique bodies, a fixed number of senders for a fixed time, then one marker request whose
// search is timed. Bodies are encoded once into a small pool and made unique per send by
// rewriting their seed digits in place (same length, so the protobuf stays valid): encoding
// millions of records up front would hold gigabytes, and encoding them while sending would
// put the serializer's CPU on the two cores the pipeline is measured on.
import type { Pool } from 'undici'
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'
import { encodeProtobuf, makeRecords, type TrafficShape } from '../lib/traffic.ts'

export const ISSUE35_SHAPE: TrafficShape = { records: 1000, messageLength: 190, attributes: 5 }

/** Seeds are eight digits (`seed=1xxxxxxx` in every message), so a rewrite never changes a length. */
const SEED_BASE = 10_000_000
const SEED_MAX = 99_999_999

/** One pooled body and where its seed digits sit. */
export interface PooledBody { bytes: Uint8Array; offsets: number[] }

/** `count` bodies of the shape, each with the offsets of its seed digits. */
export function bodyPool(count: number, shape: TrafficShape): PooledBody[] {
  const pool: PooledBody[] = []
  for (let k = 0; k < count; k++) {
    const seed = SEED_BASE + k
    const bytes = encodeProtobuf(makeRecords(seed, shape))
    const needle = Buffer.from(`seed=${seed} `)
    const offsets: number[] = []
    const view = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    for (let at = view.indexOf(needle); at >= 0; at = view.indexOf(needle, at + needle.length)) offsets.push(at + 5)
    if (offsets.length !== shape.records) throw new Error(`body ${k}: ${offsets.length} seed fields found, ${shape.records} expected`)
    pool.push({ bytes, offsets })
  }
  return pool
}

/** Writes `seed` (eight digits) into every record of the body. */
export function stampSeed(body: PooledBody, seed: number): void {
  if (seed < SEED_BASE || seed > SEED_MAX) throw new Error(`seed ${seed} out of range`)
  const digits = String(seed)
  for (const at of body.offsets) {
    for (let d = 0; d < 8; d++) body.bytes[at + d] = digits.charCodeAt(d)
  }
}

export interface FloodResult { accepted: number; refused: number; latencies: number[]; endedMs: number }

/**
 * Sends one body until it is accepted, as a sender would: a 429/503 is retried after 200 ms.
 * Every attempt's latency goes into `out.latencies`, every refusal into `out.refused`.
 */
export async function sendUntilAccepted(pool: Pool, path: string, headers: Record<string, string>, body: Uint8Array,
  out: Pick<FloodResult, 'refused' | 'latencies'>): Promise<void> {
  for (;;) {
    const started = performance.now()
    const res = await pool.request({ method: 'POST', path, headers, body })
    await res.body.arrayBuffer()
    out.latencies.push(performance.now() - started)
    if (res.statusCode === 200) return
    out.refused++
    await new Promise((r) => setTimeout(r, 200))
  }
}

/**
 * `senders` loops for `seconds`: each sends its own pooled bodies in turn (a body is rewritten
 * only after its previous request was answered), retrying a 429/503 after 200 ms as a sender
 * would. Seeds count up across the run from the pool's last one, so no two requests carry the
 * same records.
 */
export async function flood(pool: Pool, path: string, headers: Record<string, string>, bodies: PooledBody[],
  senders: number, seconds: number, records: number): Promise<FloodResult> {
  const out: FloodResult = { accepted: 0, refused: 0, latencies: [], endedMs: 0 }
  let nextSeed = SEED_BASE + bodies.length
  const until = performance.now() + seconds * 1000
  const sender = async (s: number): Promise<void> => {
    for (let turn = 0; performance.now() < until; turn++) {
      const body = bodies[(s + turn * senders) % bodies.length] as PooledBody
      stampSeed(body, nextSeed++)
      await sendUntilAccepted(pool, path, headers, body.bytes, out)
      out.accepted += records
    }
  }
  await Promise.all(Array.from({ length: senders }, (_, s) => sender(s)))
  out.endedMs = performance.now()
  return out
}

/** One request of one record whose message carries `nonce` (a word no other row holds). */
export function markerBody(nonce: string, shape: TrafficShape): Uint8Array {
  const [record] = makeRecords(SEED_MAX, { ...shape, records: 1 })
  ;(record as { body: unknown }).body = `flood marker nonce=${nonce} sent after the flood`
  return encodeProtobuf([record as ReadableLogRecord])
}
