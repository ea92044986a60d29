// Realistic OTLP log traffic encoded by the official OpenTelemetry serializers
// (an encoder we did not write): ~300-byte messages, 8 attributes, 3 resource attributes.
import { JsonLogsSerializer, ProtobufLogsSerializer } from '@opentelemetry/otlp-transformer'
import { resourceFromAttributes } from '@opentelemetry/resources'
import type { ReadableLogRecord } from '@opentelemetry/sdk-logs'

const WORDS = 'request handled user cart checkout payment upstream latency retry cache miss hit order session token database query timeout connection pool worker'.split(' ')

export interface TrafficShape {
  records: number
  /** Target message length in characters (short access lines ~120, stack traces ~4000). */
  messageLength: number
  attributes: number
}

export const DEFAULT_SHAPE: TrafficShape = { records: 1000, messageLength: 300, attributes: 8 }

/** One export request's records; `seed` makes it reproducible and distinct. */
export function makeRecords(seed: number, shape: TrafficShape = DEFAULT_SHAPE, nowMs = Date.now()): ReadableLogRecord[] {
  let x = (seed * 2654435761) >>> 0 || 1
  const rand = (n: number): number => {
    x = (x ^ (x << 13)) >>> 0
    x = (x ^ (x >>> 17)) >>> 0
    x = (x ^ (x << 5)) >>> 0
    return x % n
  }
  const hex = (n: number): string => {
    let s = ''
    for (let i = 0; i < n; i++) s += '0123456789abcdef'[rand(16)]
    return s
  }
  const resource = resourceFromAttributes({ 'service.name': `svc-${seed % 50}`, 'service.version': '2.14.1', 'host.name': `ip-10-0-${seed % 250}-17.internal` })
  const scope = { name: '@acme/logger', version: '3.2.0' }
  const logs: ReadableLogRecord[] = []
  const sec = Math.floor(nowMs / 1000)
  for (let i = 0; i < shape.records; i++) {
    let message = `${WORDS[rand(WORDS.length)]} id=${hex(12)} seed=${seed} n=${i} `
    while (message.length < shape.messageLength) message += WORDS[rand(WORDS.length)] + (rand(5) === 0 ? `=${rand(100000)} ` : ' ')
    const level = rand(6)
    const attributes: Record<string, string | number | boolean | Record<string, unknown>> = {
      'http.request.method': ['GET', 'POST', 'PUT'][rand(3)] as string,
      'http.route': '/api/v1/orders/{id}/items',
      'http.response.status_code': [200, 201, 404, 500][rand(4)] as number,
      duration_ms: rand(100000) / 100,
      'user.id': `u-${hex(8)}`,
      'cache.hit': rand(2) === 0,
      'net.peer': { name: `db-${rand(4)}.internal`, port: 5432 },
      'retry.count': rand(3),
    }
    for (let a = 8; a < shape.attributes; a++) attributes[`extra.${a}`] = hex(6)
    logs.push({
      hrTime: [sec, rand(1e9)],
      hrTimeObserved: [sec, rand(1e9)],
      resource,
      instrumentationScope: scope,
      severityNumber: [5, 9, 9, 9, 13, 17][level] as number,
      severityText: ['DEBUG', 'INFO', 'INFO', 'INFO', 'WARN', 'ERROR'][level] as string,
      body: message,
      attributes,
      droppedAttributesCount: 0,
      spanContext: { traceId: hex(32), spanId: hex(16), traceFlags: 1 },
    } as unknown as ReadableLogRecord)
  }
  return logs
}

export function encodeProtobuf(records: ReadableLogRecord[]): Uint8Array {
  return ProtobufLogsSerializer.serializeRequest(records) as Uint8Array
}

export function encodeJson(records: ReadableLogRecord[]): Uint8Array {
  return JsonLogsSerializer.serializeRequest(records) as Uint8Array
}
