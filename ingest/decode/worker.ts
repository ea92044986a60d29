// Piscina worker: decompress, decode, validate and encode one ingest request.
// Runs off the event loop; answers with plain data and one transferred buffer.
import { gunzipSync } from 'node:zlib'
import { Piscina } from 'piscina'
import { decodeJsonBatch } from './json-batch.ts'
import { decodeLegacyBatch } from './legacy.ts'
import { decodeOtlpJson } from './otlp-json.ts'
import { decodeOtlpProtobuf } from './otlp-proto.ts'
import { issue } from '../../core/index.ts'
import { contentHash, keyedBaseId, receivedBaseId } from './identity.ts'
import type { DecodeContext } from './context.ts'
import type { DecodeFailure, DecodeOutcome, DecodeSuccess, DecodeTask } from './task.ts'
import { newRowFields, RowWriter, type PackedRows } from '../rows/rows.ts'
import { LIMITS } from './schemas.ts'

const fields = newRowFields()
const utf8 = new TextDecoder('utf-8', { fatal: true })

function fail(kind: DecodeFailure['kind'], message: string, issues: DecodeFailure['issues'] = []): DecodeFailure {
  return { ok: false, kind, message, issues }
}

/** The pool's warm-up (DecoderPool.warm): answering proves the worker and its decoders loaded. */
export function ping(): string {
  return 'pong'
}

export default function decode(task: DecodeTask): DecodeOutcome | object {
  let bytes: Uint8Array = task.body
  if (task.gzip) {
    try {
      bytes = gunzipSync(bytes, { maxOutputLength: task.maxDecompressedBytes })
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE' || err instanceof RangeError) {
        return fail('tooLarge', `the body inflates past ${task.maxDecompressedBytes} bytes`)
      }
      return fail('malformed', 'the body is not valid gzip')
    }
  } else if (bytes.byteLength > task.maxDecompressedBytes) {
    return fail('tooLarge', `the body is over ${task.maxDecompressedBytes} bytes`)
  }

  // identity.ts: a retry publishes the same message ids, a repeat new ones.
  const content = contentHash(task.route, task.workspaceId, task.resourceId, bytes)
  const keyed = task.idempotencyKey !== ''
  const baseId = keyed ? keyedBaseId(task.route, task.workspaceId, task.resourceId, task.idempotencyKey, content) : content.slice(0, 24)
  const ctx: DecodeContext = {
    minTimeNs: task.minTimeNs,
    maxTimeNs: task.maxTimeNs,
    receivedNs: task.receivedNs,
    maxMessageLength: LIMITS.messageLength,
    fields,
    unstamped: 0,
  }
  const inflated = task.gzip ? bytes.byteLength : 0
  const done = (writer: RowWriter, accepted: number, rejected: number, errorMessage: string, resourceId: string, eventIds: string[]) => {
    const packed = writer.finish(!keyed && ctx.unstamped > 0 && task.route !== 'legacy' ? receivedBaseId(content, task.receivedNs) : baseId)
    return success(task, packed, { accepted, rejected, errorMessage, resourceId, eventIds, contentHash: content, inflatedBytes: inflated, unstamped: ctx.unstamped })
  }

  let text = ''
  if (task.format === 'json') {
    try {
      text = utf8.decode(bytes)
    } catch {
      return fail('malformed', 'the body is not valid UTF-8')
    }
  }
  try {
    if (task.route === 'otlp') {
      const writer = new RowWriter(task.workspaceId, task.resourceId, baseId, task.receivedNs, task.maxChunkBytes, rowsSizeHint(bytes))
      const r = task.format === 'protobuf' ? decodeOtlpProtobuf(bytes, writer, ctx) : decodeOtlpJson(text, writer, ctx)
      return done(writer, r.accepted, r.rejected, r.errorMessage, task.resourceId, [])
    }
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch (err) {
      return fail('malformed', 'the body is not valid JSON', [issue('', 'json', (err as Error).message)])
    }
    if (task.route === 'json') {
      const writer = new RowWriter(task.workspaceId, task.resourceId, baseId, task.receivedNs, task.maxChunkBytes, rowsSizeHint(bytes))
      const r = decodeJsonBatch(body, writer, ctx)
      if (!r.ok) return fail('invalid', 'the batch is invalid', r.issues)
      return done(writer, r.accepted, 0, '', task.resourceId, [])
    }
    if (bytes.byteLength > LIMITS.legacyBatchBytes) return fail('tooLarge', `a batch is at most ${LIMITS.legacyBatchBytes} bytes`)
    const rid = typeof (body as { resource_id?: unknown })?.resource_id === 'string' ? (body as { resource_id: string }).resource_id : ''
    const writer = new RowWriter(task.workspaceId, rid, baseId, task.receivedNs, task.maxChunkBytes, rowsSizeHint(bytes))
    const r = decodeLegacyBatch(body, writer, { ...ctx, maxMessageLength: LIMITS.legacyMessageLength })
    if (!r.ok) return fail(r.tooLarge ? 'tooLarge' : 'invalid', r.issues[0]?.message ?? 'the batch is invalid', r.issues)
    return done(writer, r.accepted, 0, '', r.resourceId, r.eventIds)
  } catch (err) {
    if ((err as { code?: string }).code === 'LOOKOUT_INGEST_MALFORMED') return fail('malformed', (err as Error).message)
    throw err
  }
}

type Outcome = Omit<DecodeSuccess, 'ok' | 'data' | 'chunks'>

function success(task: DecodeTask, { data, spans }: PackedRows, o: Outcome): DecodeOutcome | object {
  for (const s of spans) {
    if (s.length > task.maxMessageBytes) return fail('tooLarge', `a single record encodes to more than ${task.maxMessageBytes} bytes`)
  }
  const result: DecodeOutcome = { ok: true, ...o, data, chunks: spans }
  return Piscina.move({
    [Piscina.transferableSymbol]: [data.buffer],
    [Piscina.valueSymbol]: result,
  } as never)
}

/** Rows take about 1.5 times the bytes of the OTLP protobuf they come from (less for JSON): the writer sizes its columns from this. */
function rowsSizeHint(body: Uint8Array): number {
  return body.byteLength * 2 + 4096
}
